import { Migration } from '@mikro-orm/migrations';

/**
 * The committed feed: each event records the transaction that wrote it, so followers (webhooks)
 * read events in (transaction, id) order with a cursor of their own instead of the dispatcher
 * writing their tables. Events already fanned out are behind the webhooks' first cursor (tx 0);
 * those still in the outbox are in front of it (tx 1), so none is delivered twice or lost.
 */
export class Migration20261125003000_events_feed extends Migration {

  override name = 'Migration20261125003000_events_feed';

  override up(): void | Promise<void> {
    this.addSql(`alter table "events" add column "tx_id" bigint;`);
    this.addSql(`update "events" set "tx_id" = case when "dispatched_at" is null then 1 else 0 end;`);
    this.addSql(`alter table "events" alter column "tx_id" set default (pg_current_xact_id()::text::bigint), alter column "tx_id" set not null;`);
    this.addSql(`create index "events_feed_index" on "events" ("tx_id", "id");`);
    this.addSql(`create table "webhook_feed_cursors" ("consumer" varchar(255) not null, "tx_id" bigint not null, "event_id" varchar(255) null, "updated_at" timestamptz not null, constraint "webhook_feed_cursors_pkey" primary key ("consumer"));`);
    this.addSql(`insert into "webhook_feed_cursors" ("consumer", "tx_id", "event_id", "updated_at") values ('webhooks', 0, null, now());`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "webhook_feed_cursors";`);
    this.addSql(`drop index if exists "events_feed_index";`);
    this.addSql(`alter table "events" drop column "tx_id";`);
  }

}
