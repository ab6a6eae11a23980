import { Migration } from '@mikro-orm/migrations';

export class Migration20261122163017_events_webhooks_scheduler extends Migration {

  override name = 'Migration20261122163017_events_webhooks_scheduler';

  override up(): void | Promise<void> {
    this.addSql(`create table "company_clocks" ("company_id" varchar(255) not null, "offset_seconds" bigint not null default '0', "updated_at" timestamptz not null, primary key ("company_id"));`);

    this.addSql(`create table "events" ("id" varchar(255) not null, "organization_id" varchar(255) not null, "company_id" varchar(255) null, "type" varchar(255) not null, "livemode" boolean not null, "api_version" varchar(255) not null, "data" jsonb not null, "created_at" timestamptz not null, "dispatched_at" timestamptz null, "acknowledged_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "events_outbox_index" on "events" ("id") where "dispatched_at" is null;`);
    this.addSql(`create index "events_log_index" on "events" ("organization_id", "livemode", "id");`);

    this.addSql(`create table "scheduled_jobs" ("id" uuid not null, "kind" varchar(255) not null, "ref" varchar(255) not null, "company_id" varchar(255) null, "due_at" timestamptz not null, "locked_until" timestamptz null, "claims" int not null default 0, "created_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "scheduled_jobs_due_index" on "scheduled_jobs" ("kind", "due_at");`);
    this.addSql(`alter table "scheduled_jobs" add constraint "scheduled_jobs_kind_ref_unique" unique ("kind", "ref");`);

    this.addSql(`create table "webhooks" ("id" varchar(255) not null, "organization_id" varchar(255) not null, "company_id" varchar(255) null, "url" text not null, "events" text[] not null, "description" varchar(255) null, "status" text not null default 'active', "failure_count" int not null default 0, "livemode" boolean not null, "secret" varchar(255) not null, "previous_secret" varchar(255) null, "previous_secret_expires_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "webhooks_organization_id_index" on "webhooks" ("organization_id");`);

    this.addSql(`create table "webhook_deliveries" ("id" varchar(255) not null, "webhook_id" varchar(255) not null, "organization_id" varchar(255) not null, "company_id" varchar(255) null, "event_id" varchar(255) not null, "event_type" varchar(255) not null, "payload" text not null, "status" text not null default 'pending', "attempts" int not null default 0, "attempt_log" jsonb not null, "next_attempt_at" timestamptz null, "last_status_code" int null, "last_latency_ms" int null, "last_error" text null, "test" boolean not null default false, "created_at" timestamptz not null, "updated_at" timestamptz not null, "delivered_at" timestamptz null, primary key ("id"));`);
    this.addSql(`create index "webhook_deliveries_event_id_index" on "webhook_deliveries" ("event_id");`);
    this.addSql(`create index "webhook_deliveries_log_index" on "webhook_deliveries" ("webhook_id", "id");`);

    this.addSql(`alter table "events" add constraint "events_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`);

    this.addSql(`alter table "webhooks" add constraint "webhooks_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`);
    this.addSql(`alter table "webhooks" add constraint "webhooks_status_check" check ("status" in ('active', 'paused', 'disabled'));`);

    this.addSql(`alter table "webhook_deliveries" add constraint "webhook_deliveries_webhook_id_foreign" foreign key ("webhook_id") references "webhooks" ("id") on delete cascade;`);
    this.addSql(`alter table "webhook_deliveries" add constraint "webhook_deliveries_status_check" check ("status" in ('pending', 'succeeded', 'failed', 'cancelled'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "webhook_deliveries" drop constraint "webhook_deliveries_webhook_id_foreign";`);

    this.addSql(`drop table if exists "company_clocks" cascade;`);
    this.addSql(`drop table if exists "events" cascade;`);
    this.addSql(`drop table if exists "scheduled_jobs" cascade;`);
    this.addSql(`drop table if exists "webhooks" cascade;`);
    this.addSql(`drop table if exists "webhook_deliveries" cascade;`);
  }

}
