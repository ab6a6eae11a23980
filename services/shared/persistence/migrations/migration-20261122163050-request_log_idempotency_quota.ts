import { Migration } from '@mikro-orm/migrations';

export class Migration20261122163050_request_log_idempotency_quota extends Migration {

  override name = 'Migration20261122163050_request_log_idempotency_quota';

  override up(): void | Promise<void> {
    this.addSql(`create table "document_quota_usage" ("organization_id" varchar(255) not null, "period" varchar(7) not null, "used" int not null default 0, "updated_at" timestamptz not null, primary key ("organization_id", "period"));`);

    this.addSql(`create table "idempotency_keys" ("scope" varchar(255) not null, "key" varchar(255) not null, "organization_id" varchar(255) not null, "method" varchar(8) not null, "path" varchar(2048) not null, "request_hash" varchar(64) not null, "state" text not null, "locked_until" timestamptz not null, "response_status" smallint null, "response_headers" jsonb null, "response_body" bytea null, "created_at" timestamptz not null, "expires_at" timestamptz not null, primary key ("scope", "key"));`);
    this.addSql(`create index "idempotency_keys_expires_at_index" on "idempotency_keys" ("expires_at");`);

    this.addSql(`create table "request_log" ("id" varchar(255) not null, "organization_id" varchar(255) not null, "method" varchar(8) not null, "path" varchar(2048) not null, "status" smallint not null, "error_code" varchar(255) null, "api_key_id" varchar(255) null, "user_id" varchar(255) null, "action" varchar(255) null, "duration_ms" double precision not null, "upstream_calls" jsonb null, "validation" jsonb null, "idempotency_key" varchar(255) null, "replayed" boolean not null default false, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "request_log_organization_id_created_at_index" on "request_log" ("organization_id", "created_at");`);

    this.addSql(`alter table "idempotency_keys" add constraint "idempotency_keys_state_check" check ("state" in ('processing', 'completed'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "document_quota_usage" cascade;`);
    this.addSql(`drop table if exists "idempotency_keys" cascade;`);
    this.addSql(`drop table if exists "request_log" cascade;`);
  }

}
