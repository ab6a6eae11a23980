import { Migration } from '@mikro-orm/migrations';

export class Migration20261122163430_documents extends Migration {

  override name = 'Migration20261122163430_documents';

  override up(): void | Promise<void> {
    this.addSql(`create table "documents" ("id" varchar(255) not null, "organization_id" varchar(255) not null, "company_id" varchar(255) not null, "livemode" boolean not null, "direction" text not null, "type" varchar(255) not null, "document_subtype" varchar(255) null, "format" varchar(255) not null, "number" varchar(255) null, "issue_date" varchar(10) null, "due_date" varchar(10) null, "currency" varchar(3) null, "total_amount" numeric(18,2) null, "seller_key" varchar(255) null, "sender_peppol_id" varchar(255) null, "sender_name" varchar(255) null, "receiver_peppol_id" varchar(255) null, "receiver_name" varchar(255) null, "recipient" jsonb null, "metadata" jsonb null, "status" varchar(255) not null, "lifecycle_code" varchar(255) null, "lifecycle" jsonb not null, "delivery_status" text not null, "connector_id" varchar(255) null, "connector_message_id" varchar(255) null, "delivery_attempts" int not null default 0, "next_attempt_at" timestamptz null, "error_code" varchar(255) null, "error_message" text null, "sent_at" timestamptz null, "delivered_at" timestamptz null, "counterpart_id" varchar(255) null, "original_content" bytea null, "original_content_type" varchar(255) null, "original_filename" varchar(255) null, "file_id" varchar(255) null, "stored_format" varchar(255) null, "xml" text null, "xml_syntax" varchar(255) null, "normalized" jsonb null, "has_pdf" boolean not null default false, "read_at" timestamptz null, "archived_at" timestamptz null, "notes" jsonb not null, "related_document_ids" jsonb not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`);
    this.addSql(`create index "documents_org_list_index" on "documents" ("organization_id", "livemode", "id");`);
    this.addSql(`create index "documents_company_index" on "documents" ("organization_id", "company_id", "id");`);
    this.addSql(`create index "documents_type_status_index" on "documents" ("organization_id", "type", "status");`);
    this.addSql(`create index "documents_issue_date_index" on "documents" ("organization_id", "issue_date");`);
    this.addSql(`create index "documents_total_amount_index" on "documents" ("organization_id", "total_amount");`);
    this.addSql(`create index "documents_number_index" on "documents" ("organization_id", "number");`);
    this.addSql(`create index "documents_delivery_due_index" on "documents" ("next_attempt_at") where "delivery_status" = 'pending';`);
    this.addSql(`create unique index "documents_seller_number_unique" on "documents" ("organization_id", "livemode", "seller_key", "type", "number") where "direction" = 'outgoing' and "type" in ('invoice', 'credit-note', 'debit-note');`);
    this.addSql(`create unique index "documents_counterpart_unique" on "documents" ("organization_id", "counterpart_id") where "direction" = 'incoming';`);

    this.addSql(`alter table "documents" add constraint "documents_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`);
    this.addSql(`alter table "documents" add constraint "documents_direction_check" check ("direction" in ('outgoing', 'incoming'));`);
    this.addSql(`alter table "documents" add constraint "documents_delivery_status_check" check ("delivery_status" in ('pending', 'delivered', 'failed', 'stored', 'received'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "documents" cascade;`);
  }

}
