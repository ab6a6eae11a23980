import { Migration } from '@mikro-orm/migrations';

/** Payments recorded against documents, and each company's payment profile (bank account, terms). */
export class Migration20261126095100_payments extends Migration {

  override name = 'Migration20261126095100_payments';

  override up(): void | Promise<void> {
    this.addSql(`create table "payments" ("id" varchar(255) not null, "organization_id" varchar(255) not null, "livemode" boolean not null, "object_id" varchar(255) not null, "object_type" varchar(255) not null, "amount" numeric(18,2) not null, "currency" varchar(3) not null, "paid_at" timestamptz not null, "method" text null, "reference" varchar(255) null, "note" text null, "lifecycle_status" varchar(255) null, "created_at" timestamptz not null, constraint "payments_pkey" primary key ("id"));`);
    this.addSql(`alter table "payments" add constraint "payments_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`);
    this.addSql(`alter table "payments" add constraint "payments_method_check" check ("method" in ('SEPA', 'card', 'cheque', 'cash', 'wire', 'other'));`);
    this.addSql(`alter table "payments" add constraint "payments_amount_positive" check ("amount" > 0);`);
    this.addSql(`create index "payments_object_index" on "payments" ("organization_id", "livemode", "object_id");`);

    this.addSql(`create table "payment_profiles" ("id" varchar(255) not null, "organization_id" varchar(255) not null, "livemode" boolean not null, "peppol_id" varchar(255) not null, "company_id" varchar(255) null, "name" varchar(255) not null, "iban" varchar(34) null, "bic" varchar(11) null, "terms" jsonb null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "payment_profiles_pkey" primary key ("id"));`);
    this.addSql(`alter table "payment_profiles" add constraint "payment_profiles_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`);
    this.addSql(`create index "payment_profiles_list_index" on "payment_profiles" ("organization_id", "livemode", "id");`);
    this.addSql(`create unique index "payment_profiles_company_unique" on "payment_profiles" ("organization_id", "livemode", "peppol_id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "payment_profiles" cascade;`);
    this.addSql(`drop table if exists "payments" cascade;`);
  }

}
