import { Migration } from '@mikro-orm/migrations';

/** Portability messages: every change-of-platform e-mail built, whether or not it was mailed (services/portability-messages). */
export class Migration20261127010000_portability_messages extends Migration {

  override name = 'Migration20261127010000_portability_messages';

  override up(): void | Promise<void> {
    this.addSql(`create table "portability_messages" ("id" varchar(255) not null, "organization_id" varchar(255) not null, "livemode" boolean not null, "request_ref" varchar(128) not null, "message_type" text not null, "state" text not null, "status_code" varchar(3) not null, "direction_role" text null, "taxpayer_siren" varchar(9) not null, "subject" text not null, "filename" varchar(255) not null, "csv_header" text not null, "csv_row" text not null, "csv_fields" jsonb not null, "csv_sha256" varchar(64) not null, "reason_code" varchar(255) null, "reason_text" text null, "recipient" varchar(255) null, "recipient_source" varchar(255) not null, "recipient_resolution" jsonb not null, "dispatched" boolean not null default false, "reason" text not null, "smtp_message_id" varchar(255) null, "transport" text null, "annuaire" jsonb null, "created_at" timestamptz not null, constraint "portability_messages_pkey" primary key ("id"));`);
    this.addSql(`alter table "portability_messages" add constraint "portability_messages_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`);
    this.addSql(`create index "portability_messages_list_index" on "portability_messages" ("organization_id", "livemode", "id");`);
    this.addSql(`create index "portability_messages_ref_index" on "portability_messages" ("organization_id", "livemode", "request_ref");`);
    this.addSql(`alter table "portability_messages" add constraint "portability_messages_message_type_check" check ("message_type" in ('REQUEST', 'ACK', 'DECISION', 'COMPLETION'));`);
    this.addSql(`alter table "portability_messages" add constraint "portability_messages_state_check" check ("state" in ('received', 'acknowledged', 'accepted', 'rejected', 'auto_accepted', 'executing', 'completed', 'failed'));`);
    this.addSql(`alter table "portability_messages" add constraint "portability_messages_direction_role_check" check ("direction_role" in ('GAINING_PA', 'LOSING_PA'));`);
    this.addSql(`alter table "portability_messages" add constraint "portability_messages_transport_check" check ("transport" in ('smtp', 'relay'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "portability_messages" cascade;`);
  }

}
