import { Migration } from '@mikro-orm/migrations';

export class Migration20261122155520_initial extends Migration {

  override name = 'Migration20261122155520_initial';

  override up(): void | Promise<void> {
    this.addSql(`create table "organizations" ("id" varchar(255) not null, "name" varchar(255) not null, "plan" text not null default 'free', "sandbox" boolean not null default false, "country" varchar(2) null, "vat_number" varchar(255) null, "created_at" timestamptz not null, primary key ("id"));`);

    this.addSql(`create table "companies" ("id" varchar(255) not null, "organization_id" varchar(255) not null, "name" varchar(255) not null, "legal_name" varchar(255) null, "slug" varchar(255) not null, "country" varchar(2) not null, "vat_number" varchar(255) null, "tax_number" varchar(255) null, "registration_number" varchar(255) null, "address" jsonb null, "is_public" boolean not null default false, "data_provider_type" varchar(255) null, "data_provider_sync_date" timestamptz null, "peppol_id" varchar(255) null, "status" text not null default 'active', "smp_registered" boolean not null default false, "metadata" jsonb null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "companies_organization_id_index" on "companies" ("organization_id");`);

    this.addSql(`create table "api_keys" ("id" varchar(255) not null, "organization_id" varchar(255) not null, "company_id" varchar(255) null, "name" varchar(255) not null, "key_prefix" varchar(255) not null, "key_hash" varchar(255) not null, "key_type" text not null, "scopes" text[] not null, "livemode" boolean not null, "email" varchar(255) null, "created_at" timestamptz not null, "expires_at" timestamptz null, "revoked_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "api_keys_organization_id_index" on "api_keys" ("organization_id");`);
    this.addSql(`alter table "api_keys" add constraint "api_keys_key_hash_unique" unique ("key_hash");`);

    this.addSql(`alter table "organizations" add constraint "organizations_plan_check" check ("plan" in ('free', 'starter', 'pro', 'platform', 'white_label'));`);

    this.addSql(`alter table "companies" add constraint "companies_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`);
    this.addSql(`alter table "companies" add constraint "companies_status_check" check ("status" in ('active', 'pending_verification'));`);

    this.addSql(`alter table "api_keys" add constraint "api_keys_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`);
    this.addSql(`alter table "api_keys" add constraint "api_keys_company_id_foreign" foreign key ("company_id") references "companies" ("id") on delete set null;`);
    this.addSql(`alter table "api_keys" add constraint "api_keys_key_type_check" check ("key_type" in ('personal', 'platform', 'white_label'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "companies" drop constraint "companies_organization_id_foreign";`);
    this.addSql(`alter table "api_keys" drop constraint "api_keys_organization_id_foreign";`);
    this.addSql(`alter table "api_keys" drop constraint "api_keys_company_id_foreign";`);

    this.addSql(`drop table if exists "organizations" cascade;`);
    this.addSql(`drop table if exists "companies" cascade;`);
    this.addSql(`drop table if exists "api_keys" cascade;`);
  }

}
