import { Migration } from '@mikro-orm/migrations';

/**
 * Portability requests (France, change of approved platform): the request with the head of its
 * hash-linked evidence chain, the chain's rows, the files of its mandate, and the routing switches
 * per SIREN. The state of a request is not a column anywhere: it is folded from the chain.
 */
export class Migration20261127020000_portability_requests extends Migration {

  override name = 'Migration20261127020000_portability_requests';

  override up(): void | Promise<void> {
    this.addSql(`create table "portability_requests" ("request_ref" varchar(255) not null, "organization_id" varchar(255) not null, "livemode" boolean not null, "clock_company_id" varchar(255) null, "siren" varchar(9) null, "head_seq" int not null, "head_hash" varchar(64) not null, "created_at" timestamptz not null, constraint "portability_requests_pkey" primary key ("request_ref"));`);
    this.addSql(`alter table "portability_requests" add constraint "portability_requests_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`);
    this.addSql(`create index "portability_requests_org_index" on "portability_requests" ("organization_id", "livemode", "request_ref");`);

    this.addSql(`create table "portability_evidence" ("request_ref" varchar(255) not null, "seq" int not null, "kind" varchar(255) not null, "payload" jsonb not null, "recorded_at" timestamptz(3) not null, "previous_hash" varchar(64) not null, "hash" varchar(64) not null, constraint "portability_evidence_pkey" primary key ("request_ref", "seq"));`);
    this.addSql(`alter table "portability_evidence" add constraint "portability_evidence_request_ref_foreign" foreign key ("request_ref") references "portability_requests" ("request_ref") on delete cascade;`);

    this.addSql(`create table "portability_files" ("id" varchar(255) not null, "organization_id" varchar(255) not null, "livemode" boolean not null, "request_ref" varchar(255) not null, "kind" text not null, "filename" varchar(255) not null, "content_type" varchar(255) not null, "content" bytea not null, "sha256" varchar(64) not null, "created_at" timestamptz not null, constraint "portability_files_pkey" primary key ("id"));`);
    this.addSql(`alter table "portability_files" add constraint "portability_files_request_ref_foreign" foreign key ("request_ref") references "portability_requests" ("request_ref") on delete cascade;`);
    this.addSql(`alter table "portability_files" add constraint "portability_files_kind_check" check ("kind" in ('agreement', 'signed_mandate'));`);
    this.addSql(`create index "portability_files_request_index" on "portability_files" ("request_ref");`);

    this.addSql(`create table "portability_routings" ("id" varchar(255) not null, "organization_id" varchar(255) not null, "livemode" boolean not null, "connection_id" varchar(255) null, "siren" varchar(9) not null, "siret" varchar(14) null, "role" text not null, "effective_date" varchar(10) not null, "service_until" varchar(10) null, "created_at" timestamptz not null, constraint "portability_routings_pkey" primary key ("id"));`);
    this.addSql(`alter table "portability_routings" add constraint "portability_routings_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`);
    this.addSql(`alter table "portability_routings" add constraint "portability_routings_role_check" check ("role" in ('GAINING_PA', 'LOSING_PA'));`);
    this.addSql(`create unique index "portability_routings_siren_unique" on "portability_routings" ("organization_id", "livemode", "siren");`);
    this.addSql(`create index "portability_routings_siren_index" on "portability_routings" ("livemode", "siren");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "portability_routings" cascade;`);
    this.addSql(`drop table if exists "portability_files" cascade;`);
    this.addSql(`drop table if exists "portability_evidence" cascade;`);
    this.addSql(`drop table if exists "portability_requests" cascade;`);
  }

}
