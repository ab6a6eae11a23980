import { Migration } from '@mikro-orm/migrations';

/**
 * The artefact store (services/shared/artefacts): an index of every stored artefact (hash, size,
 * where its bytes are, retention) and the PostgreSQL backend's bytes; documents name their
 * original by hash. Both tables belong to the documents service. No foreign key to organizations:
 * deleting an organization must never delete retained artefacts behind the store's back.
 * Existing originals stay in documents.original_content until scripts/artefacts-migrate.ts moves them.
 */
export class Migration20261127080000_artefacts extends Migration {

  override name = 'Migration20261127080000_artefacts';

  override up(): void | Promise<void> {
    this.addSql(`create table "artefacts" ("namespace" varchar(160) not null, "sha256" char(64) not null, "size" bigint not null, "content_type" varchar(255) not null, "location" varchar(8) not null, "retain_until" timestamptz null, "country" varchar(2) null, "created_at" timestamptz not null, constraint "artefacts_pkey" primary key ("namespace", "sha256"), constraint "artefacts_location_check" check ("location" in ('pg', 's3')));`);
    this.addSql(`create index "artefacts_location_index" on "artefacts" ("location", "namespace", "sha256");`);
    this.addSql(`create table "artefact_contents" ("namespace" varchar(160) not null, "sha256" char(64) not null, "content" bytea not null, constraint "artefact_contents_pkey" primary key ("namespace", "sha256"));`);
    this.addSql(`alter table "documents" add column "original_sha256" varchar(64) null;`);
    this.addSql(`create index "documents_original_sha256_index" on "documents" ("organization_id", "livemode", "original_sha256") where "original_sha256" is not null;`);
    this.addSql(`create index "documents_legacy_original_index" on "documents" ("id") where "original_content" is not null and "original_sha256" is null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "documents_legacy_original_index";`);
    this.addSql(`drop index "documents_original_sha256_index";`);
    this.addSql(`alter table "documents" drop column "original_sha256";`);
    this.addSql(`drop table "artefact_contents";`);
    this.addSql(`drop table "artefacts";`);
  }

}
