import { Migration } from '@mikro-orm/migrations';

export class Migration20261122163135_identity_integrations_signing_keys extends Migration {

  override name = 'Migration20261122163135_identity_integrations_signing_keys';

  override up(): void | Promise<void> {
    this.addSql(`create table "signing_keys" ("kid" varchar(255) not null, "alg" varchar(255) not null, "public_jwk" jsonb not null, "private_jwk" jsonb not null, "created_at" timestamptz not null, "retire_at" timestamptz null, primary key ("kid"));`);

    this.addSql(`create table "technical_accounts" ("id" varchar(255) not null, "name" varchar(255) not null, "livemode" boolean not null, "created_at" timestamptz not null, "disabled_at" timestamptz null, primary key ("id"));`);

    this.addSql(`create table "memberships" ("id" varchar(255) not null, "technical_account_id" varchar(255) not null, "organization_id" varchar(255) not null, "role" text not null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "memberships_organization_id_index" on "memberships" ("organization_id");`);
    this.addSql(`alter table "memberships" add constraint "memberships_technical_account_id_organization_id_unique" unique ("technical_account_id", "organization_id");`);

    this.addSql(`create table "integrations" ("id" varchar(255) not null, "organization_id" varchar(255) not null, "technical_account_id" varchar(255) not null, "name" varchar(255) not null, "client_id" varchar(255) not null, "client_secret_hash" varchar(255) not null, "livemode" boolean not null, "created_at" timestamptz not null, "revoked_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "integrations_organization_id_index" on "integrations" ("organization_id");`);
    this.addSql(`alter table "integrations" add constraint "integrations_client_id_unique" unique ("client_id");`);

    this.addSql(`alter table "memberships" add constraint "memberships_technical_account_id_foreign" foreign key ("technical_account_id") references "technical_accounts" ("id") on delete cascade;`);
    this.addSql(`alter table "memberships" add constraint "memberships_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`);
    this.addSql(`alter table "memberships" add constraint "memberships_role_check" check ("role" in ('admin', 'member'));`);

    this.addSql(`alter table "integrations" add constraint "integrations_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`);
    this.addSql(`alter table "integrations" add constraint "integrations_technical_account_id_foreign" foreign key ("technical_account_id") references "technical_accounts" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "memberships" drop constraint "memberships_technical_account_id_foreign";`);
    this.addSql(`alter table "integrations" drop constraint "integrations_technical_account_id_foreign";`);

    this.addSql(`drop table if exists "signing_keys" cascade;`);
    this.addSql(`drop table if exists "technical_accounts" cascade;`);
    this.addSql(`drop table if exists "memberships" cascade;`);
    this.addSql(`drop table if exists "integrations" cascade;`);
  }

}
