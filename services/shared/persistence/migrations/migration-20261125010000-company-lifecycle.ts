import { Migration } from '@mikro-orm/migrations';

/**
 * Companies created, registered on the network and removed through the API: registration state,
 * soft removal with the statutory retention of their documents, the French establishment number
 * (SIRET) companies are imported by, and one live company per VAT number and per SIRET in an
 * organization (so two concurrent creations or imports cannot both win).
 */
export class Migration20261125010000_company_lifecycle extends Migration {

  override name = 'Migration20261125010000_company_lifecycle';

  override up(): void | Promise<void> {
    this.addSql(`alter table "companies" add column "registration_status" text null, add column "registered_at" timestamptz null, add column "deleted_at" timestamptz null, add column "retain_until" timestamptz null, add column "siret" varchar(14) null, add column "effective_date" varchar(10) null;`);
    this.addSql(`alter table "companies" add constraint "companies_registration_status_check" check ("registration_status" in ('active', 'deregistered'));`);
    this.addSql(`create unique index "companies_live_vat_unique" on "companies" ("organization_id", "vat_number") where "deleted_at" is null and "vat_number" is not null;`);
    this.addSql(`create unique index "companies_live_siret_unique" on "companies" ("organization_id", "siret") where "deleted_at" is null and "siret" is not null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index if exists "companies_live_siret_unique";`);
    this.addSql(`drop index if exists "companies_live_vat_unique";`);
    this.addSql(`alter table "companies" drop constraint if exists "companies_registration_status_check";`);
    this.addSql(`alter table "companies" drop column "registration_status", drop column "registered_at", drop column "deleted_at", drop column "retain_until", drop column "siret", drop column "effective_date";`);
  }

}
