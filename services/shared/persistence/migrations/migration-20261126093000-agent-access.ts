import { Migration } from '@mikro-orm/migrations';

/** Agent access (identity): consent requests with PKCE and single-use handoff tokens; secrets as SHA-256 only. */
export class Migration20261126093000_agent_access extends Migration {

  override name = 'Migration20261126093000_agent_access';

  override up(): void | Promise<void> {
    this.addSql(`create table "agent_authorizations" ("id" varchar(255) not null, "client_name" varchar(255) not null, "scopes" text[] not null, "code_challenge" varchar(255) not null, "expires_at" timestamptz not null, "code_hash" varchar(255) null, "organization_id" varchar(255) null, "company_id" varchar(255) null, "grantor_api_key_id" varchar(255) null, "grantor_user_id" varchar(255) null, "grantor_email" varchar(255) null, "livemode" boolean null, "consented_at" timestamptz null, "exchanged_at" timestamptz null, "api_key_id" varchar(255) null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "agent_authorizations_expires_at_index" on "agent_authorizations" ("expires_at");`);
    this.addSql(`alter table "agent_authorizations" add constraint "agent_authorizations_code_hash_unique" unique ("code_hash");`);
    this.addSql(`create table "handoff_tokens" ("id" varchar(255) not null, "token_hash" varchar(255) not null, "name" varchar(255) not null, "scopes" text[] not null, "organization_id" varchar(255) not null, "company_id" varchar(255) not null, "grantor_api_key_id" varchar(255) null, "grantor_user_id" varchar(255) null, "grantor_email" varchar(255) null, "livemode" boolean not null, "expires_at" timestamptz not null, "redeemed_at" timestamptz null, "api_key_id" varchar(255) null, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`alter table "handoff_tokens" add constraint "handoff_tokens_token_hash_unique" unique ("token_hash");`);
    this.addSql(`create index "handoff_tokens_organization_id_index" on "handoff_tokens" ("organization_id");`);
    this.addSql(`create index "handoff_tokens_expires_at_index" on "handoff_tokens" ("expires_at");`);
    // Tenancy's organizations own these rows' lifetime: an organization removed (an expired sandbox) takes its grants along.
    this.addSql(`alter table "agent_authorizations" add constraint "agent_authorizations_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`);
    this.addSql(`alter table "handoff_tokens" add constraint "handoff_tokens_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "handoff_tokens" cascade;`);
    this.addSql(`drop table if exists "agent_authorizations" cascade;`);
  }

}
