import { Migration } from '@mikro-orm/migrations';

/** Peppol Reporting: which month's TSR and EUSR the scheduler submitted (services/reporting). */
export class Migration20261126080000_peppol_report_submissions extends Migration {

  override name = 'Migration20261126080000_peppol_report_submissions';

  override up(): void | Promise<void> {
    this.addSql(`create table "peppol_report_submissions" ("month" varchar(7) not null, "livemode" boolean not null, "report" varchar(4) not null, "attempts" int not null default 0, "claimed_until" timestamptz null, "submitted_at" timestamptz null, "response_status" int null, "last_error" text null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "peppol_report_submissions_pkey" primary key ("month", "livemode", "report"));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "peppol_report_submissions" cascade;`);
  }

}
