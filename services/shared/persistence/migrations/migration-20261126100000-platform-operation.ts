import { Migration } from '@mikro-orm/migrations';

/**
 * Platform operation and usage statistics: an organization's white-label settings and custom
 * domain (unique, looked up by the gateway per request host), when a sandbox organization expires,
 * suspended tenants; and the indexes the monthly usage and statistics read by (organization, mode,
 * time) instead of scanning every document, event, delivery or request of the organization.
 */
export class Migration20261126100000_platform_operation extends Migration {

  override name = 'Migration20261126100000_platform_operation';

  override up(): void | Promise<void> {
    this.addSql(`alter table "organizations" add column "settings" jsonb null, add column "custom_domain" varchar(253) null, add column "expires_at" timestamptz null;`);
    this.addSql(`create unique index "organizations_custom_domain_unique" on "organizations" ("custom_domain") where "custom_domain" is not null;`);
    this.addSql(`alter table "companies" add column "suspended_at" timestamptz null;`);
    this.addSql(`create index "documents_usage_index" on "documents" ("organization_id", "livemode", "created_at");`);
    this.addSql(`create index "events_usage_index" on "events" ("organization_id", "livemode", "type", "created_at");`);
    this.addSql(`create index "webhook_deliveries_usage_index" on "webhook_deliveries" ("organization_id", "created_at") where not "test";`);
    // Sandbox organizations bootstrapped before: they expire with their last key, and the scheduler removes them then.
    this.addSql(`update "organizations" o set "expires_at" = k."last" from (
      select "organization_id", max("expires_at") as "last" from "api_keys" group by "organization_id" having bool_and("expires_at" is not null)) k
      where o."id" = k."organization_id" and o."sandbox" and o."expires_at" is null;`);
    this.addSql(`insert into "scheduled_jobs" ("id", "kind", "ref", "company_id", "due_at", "locked_until", "claims", "created_at")
      select gen_random_uuid(), 'sandbox.expire', "id", null, "expires_at", null, 0, now() from "organizations" where "sandbox" and "expires_at" is not null
      on conflict ("kind", "ref") do nothing;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`delete from "scheduled_jobs" where "kind" = 'sandbox.expire';`);
    this.addSql(`drop index "webhook_deliveries_usage_index";`);
    this.addSql(`drop index "events_usage_index";`);
    this.addSql(`drop index "documents_usage_index";`);
    this.addSql(`alter table "companies" drop column "suspended_at";`);
    this.addSql(`drop index "organizations_custom_domain_unique";`);
    this.addSql(`alter table "organizations" drop column "settings", drop column "custom_domain", drop column "expires_at";`);
  }

}
