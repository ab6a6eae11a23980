import { Migration } from '@mikro-orm/migrations';

/**
 * A send keeps its Idempotency-Key (a digest of credential and key) and request hash: a retry whose
 * first answer was lost finds the document instead of failing on its own invoice number.
 */
export class Migration20261127000000_document_idempotency extends Migration {

  override name = 'Migration20261127000000_document_idempotency';

  override up(): void | Promise<void> {
    this.addSql(`alter table "documents" add column "idempotency_key" varchar(255) null, add column "idempotency_request_hash" varchar(255) null;`);
    this.addSql(`create unique index "documents_idempotency_key_unique" on "documents" ("organization_id", "idempotency_key") where "idempotency_key" is not null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "documents_idempotency_key_unique";`);
    this.addSql(`alter table "documents" drop column "idempotency_key", drop column "idempotency_request_hash";`);
  }

}
