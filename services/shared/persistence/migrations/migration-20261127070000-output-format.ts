import { Migration } from '@mikro-orm/migrations';

/**
 * The form a sender asked its document to travel in when it is not the record's own (Factur-X for a
 * French recipient): its name and the SHA-256 of the bytes delivered (the Factur-X PDF, kept in the
 * artefact store like the caller's original).
 */
export class Migration20261127070000_output_format extends Migration {

  override name = 'Migration20261127070000_output_format';

  override up(): void | Promise<void> {
    this.addSql(`alter table "documents" add column "output_format" varchar(32) null, add column "output_sha256" varchar(64) null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "documents" drop column "output_format", drop column "output_sha256";`);
  }

}
