import { Migration } from '@mikro-orm/migrations';

/** PunchOut shopping sessions at suppliers' catalogs (services/punchout). */
export class Migration20261127040000_punchout_sessions extends Migration {

  override name = 'Migration20261127040000_punchout_sessions';

  override up(): void | Promise<void> {
    this.addSql(`create table "punchout_sessions" ("id" varchar(255) not null, "organization_id" varchar(255) not null, "company_id" varchar(255) not null, "livemode" boolean not null, "principal" jsonb not null, "buyer_cookie_sha256" varchar(64) not null, "catalog_url" text not null, "start_page_url" text not null, "supplier" jsonb not null, "order_number" varchar(255) not null, "status" text not null, "document_id" varchar(255) null, "expires_at" timestamptz not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "punchout_sessions_pkey" primary key ("id"));`);
    this.addSql(`alter table "punchout_sessions" add constraint "punchout_sessions_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`);
    this.addSql(`alter table "punchout_sessions" add constraint "punchout_sessions_status_check" check ("status" in ('open', 'ordered'));`);
    this.addSql(`create index "punchout_sessions_company_index" on "punchout_sessions" ("organization_id", "company_id", "created_at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "punchout_sessions" cascade;`);
  }

}
