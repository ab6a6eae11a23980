import { Migration } from '@mikro-orm/migrations';

/**
 * The connectors' durable state (SDK 2.5 `host.state`), owned by the connector-state service: one
 * JSON value per (connector, key) and the version compare-and-set writes against.
 */
export class Migration20261128040000_connector_state extends Migration {

  override name = 'Migration20261128040000_connector_state';

  override up(): void | Promise<void> {
    this.addSql(`create table "connector_state" ("connector_id" text not null, "key" text not null, "value" jsonb not null, "version" bigint not null, "updated_at" timestamptz not null default now(), constraint "connector_state_pkey" primary key ("connector_id", "key"));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "connector_state";`);
  }

}
