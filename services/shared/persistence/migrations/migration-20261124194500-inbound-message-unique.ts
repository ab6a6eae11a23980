import { Migration } from '@mikro-orm/migrations';

/** A network message becomes one document: inbound hand-offs are deduplicated by the database, not by a read first. */
export class Migration20261124194500_inbound_message_unique extends Migration {

  override name = 'Migration20261124194500_inbound_message_unique';

  override up(): void | Promise<void> {
    this.addSql(`create unique index "documents_inbound_message_unique" on "documents" ("connector_id", "connector_message_id") where "direction" = 'incoming';`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "documents_inbound_message_unique";`);
  }

}
