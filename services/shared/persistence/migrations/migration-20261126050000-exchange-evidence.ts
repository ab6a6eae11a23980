import { Migration } from '@mikro-orm/migrations';

/** What proves a network exchange of a document (AS4 message id, signed receipt, SBDH instance id, hashes), kept with it. */
export class Migration20261126050000_exchange_evidence extends Migration {

  override name = 'Migration20261126050000_exchange_evidence';

  override up(): void | Promise<void> {
    this.addSql(`alter table "documents" add column "evidence" jsonb null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "documents" drop column "evidence";`);
  }

}
