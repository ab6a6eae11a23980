import { Migration } from '@mikro-orm/migrations';

/** Partners: an organization's counterparties, one per VAT number and per Peppol id in each mode. */
export class Migration20261125020000_partners extends Migration {

  override name = 'Migration20261125020000_partners';

  override up(): void | Promise<void> {
    this.addSql(`create table "partners" ("id" varchar(255) not null, "organization_id" varchar(255) not null, "livemode" boolean not null, "name" varchar(255) not null, "country" varchar(2) null, "vat_number" varchar(255) null, "peppol_id" varchar(255) null, "role" text not null, "partner_organization_id" varchar(255) null, "partner_company_id" varchar(255) null, "metadata" jsonb null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "partners_pkey" primary key ("id"));`);
    this.addSql(`alter table "partners" add constraint "partners_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`);
    this.addSql(`alter table "partners" add constraint "partners_role_check" check ("role" in ('customer', 'supplier', 'both'));`);
    this.addSql(`create index "partners_list_index" on "partners" ("organization_id", "livemode", "id");`);
    this.addSql(`create unique index "partners_vat_unique" on "partners" ("organization_id", "livemode", "vat_number") where "vat_number" is not null;`);
    this.addSql(`create unique index "partners_peppol_unique" on "partners" ("organization_id", "livemode", lower("peppol_id")) where "peppol_id" is not null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "partners" cascade;`);
  }

}
