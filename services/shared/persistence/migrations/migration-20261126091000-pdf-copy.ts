import { Migration } from '@mikro-orm/migrations';

/** A structured invoice carrying a PDF copy of itself as an attachment (BT-125, application/pdf; Peppol BIS 3.0.20 allows one): its PDF representation. */
export class Migration20261126091000_pdf_copy extends Migration {

  override name = 'Migration20261126091000_pdf_copy';

  override up(): void | Promise<void> {
    this.addSql(`alter table "documents" add column "pdf_copy" boolean not null default false;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "documents" drop column "pdf_copy";`);
  }

}
