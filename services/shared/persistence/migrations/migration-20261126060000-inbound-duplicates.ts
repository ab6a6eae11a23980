import { Migration } from '@mikro-orm/migrations';

/**
 * The same business document arriving twice under different network messages (another channel, a
 * re-send): the first is booked, every later copy is kept and points at it (`duplicate_of`). Two
 * unique partial indexes over the booked incoming copies decide between concurrent arrivals and
 * make the lookup an index probe: the SBDH instance id from one sender, and (seller, type, number,
 * issue date), each per recipient company and mode.
 */
export class Migration20261126060000_inbound_duplicates extends Migration {

  override name = 'Migration20261126060000_inbound_duplicates';

  override up(): void | Promise<void> {
    this.addSql(`alter table "documents" add column "duplicate_of" varchar(255) null, add column "instance_identifier" varchar(255) null;`);
    this.addSql(`alter table "documents" add constraint "documents_duplicate_of_foreign" foreign key ("duplicate_of") references "documents" ("id") on update cascade;`);
    this.addSql(`create index "documents_duplicate_of_index" on "documents" ("duplicate_of") where "duplicate_of" is not null;`);
    this.addSql(`create unique index "documents_inbound_instance_unique" on "documents" ("company_id", "livemode", "sender_peppol_id", "instance_identifier") where "direction" = 'incoming' and "duplicate_of" is null and "instance_identifier" is not null;`);
    this.addSql(`create unique index "documents_inbound_invoice_unique" on "documents" ("company_id", "livemode", "seller_key", "type", "number", "issue_date") where "direction" = 'incoming' and "duplicate_of" is null and "seller_key" is not null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "documents_inbound_invoice_unique";`);
    this.addSql(`drop index "documents_inbound_instance_unique";`);
    this.addSql(`drop index "documents_duplicate_of_index";`);
    this.addSql(`alter table "documents" drop constraint "documents_duplicate_of_foreign";`);
    this.addSql(`alter table "documents" drop column "duplicate_of", drop column "instance_identifier";`);
  }

}
