import { Migration } from '@mikro-orm/migrations';

/**
 * What a tax authority's clearance gave a document (its id, receipt, QR, signed original), and the
 * clearance status; an invoice the authority rejected frees its number for the corrected send.
 */
export class Migration20261126090000_clearance extends Migration {

  override name = 'Migration20261126090000_clearance';

  override up(): void | Promise<void> {
    this.addSql(`alter table "documents" add column "clearance" jsonb null, add column "clearance_status" varchar(16) null;`);
    this.addSql(`drop index "documents_seller_number_unique";`);
    this.addSql(`create unique index "documents_seller_number_unique" on "documents" ("organization_id", "livemode", "seller_key", "type", "number") where "direction" = 'outgoing' and "type" in ('invoice', 'credit-note', 'debit-note') and "clearance_status" is distinct from 'rejected';`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "documents_seller_number_unique";`);
    this.addSql(`create unique index "documents_seller_number_unique" on "documents" ("organization_id", "livemode", "seller_key", "type", "number") where "direction" = 'outgoing' and "type" in ('invoice', 'credit-note', 'debit-note');`);
    this.addSql(`alter table "documents" drop column "clearance", drop column "clearance_status";`);
  }

}
