import { Migration } from '@mikro-orm/migrations';

/** The rules' verdict on a received document (validity, packs, counts, the first findings), kept with it. */
export class Migration20261126070000_received_validation extends Migration {

  override name = 'Migration20261126070000_received_validation';

  override up(): void | Promise<void> {
    this.addSql(`alter table "documents" add column "validation" jsonb null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "documents" drop column "validation";`);
  }

}
