import { Migration } from '@mikro-orm/migrations';

/**
 * The retention-expiry sweep (services/shared/artefacts/sweep.ts): an artefact the sweep has claimed
 * (`sweep_claimed_at`: its bytes are being deleted) and one whose bytes are gone at the end of
 * retention (`expired_at`: the row stays as a tombstone, so a document naming it reads as expired,
 * not as missing); when PostgreSQL bytes were written (`artefact_contents.created_at`), so bytes
 * nobody names are deleted only after a grace period; and legal holds that stop the sweep for an
 * organization or one artefact. All belong to the documents service, like the artefact tables.
 */
export class Migration20261128030000_artefact_sweep extends Migration {

  override name = 'Migration20261128030000_artefact_sweep';

  override up(): void | Promise<void> {
    this.addSql(`alter table "artefacts" add column "sweep_claimed_at" timestamptz null, add column "expired_at" timestamptz null;`);
    this.addSql(`create index "artefacts_sweep_due_index" on "artefacts" ("retain_until") where "expired_at" is null and "retain_until" is not null;`);
    this.addSql(`create index "artefacts_sweep_claimed_index" on "artefacts" ("sweep_claimed_at") where "sweep_claimed_at" is not null;`);
    this.addSql(`alter table "artefact_contents" add column "created_at" timestamptz not null default now();`);
    this.addSql(`create index "artefact_contents_created_at_index" on "artefact_contents" ("created_at", "namespace", "sha256");`);
    this.addSql(`create table "artefact_holds" ("id" varchar(64) not null, "organization_id" varchar(128) not null, "sha256" char(64) null, "reason" varchar(500) not null, "created_at" timestamptz not null, "released_at" timestamptz null, constraint "artefact_holds_pkey" primary key ("id"));`);
    this.addSql(`create index "artefact_holds_active_index" on "artefact_holds" ("organization_id", "sha256") where "released_at" is null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table "artefact_holds";`);
    this.addSql(`drop index "artefact_contents_created_at_index";`);
    this.addSql(`alter table "artefact_contents" drop column "created_at";`);
    this.addSql(`drop index "artefacts_sweep_claimed_index";`);
    this.addSql(`drop index "artefacts_sweep_due_index";`);
    this.addSql(`alter table "artefacts" drop column "expired_at", drop column "sweep_claimed_at";`);
  }

}
