import { Migration } from '@mikro-orm/migrations';

/** Tag groups, tags and the taggings of objects (with the features the suggestion model learns from). */
export class Migration20261126095200_categorization extends Migration {

  override name = 'Migration20261126095200_categorization';

  override up(): void | Promise<void> {
    this.addSql(`create table "tag_groups" ("id" varchar(255) not null, "organization_id" varchar(255) not null, "livemode" boolean not null, "name" varchar(255) not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "tag_groups_pkey" primary key ("id"));`);
    this.addSql(`alter table "tag_groups" add constraint "tag_groups_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on delete cascade;`);
    this.addSql(`create index "tag_groups_list_index" on "tag_groups" ("organization_id", "livemode", "id");`);

    this.addSql(`create table "tags" ("id" varchar(255) not null, "organization_id" varchar(255) not null, "livemode" boolean not null, "group_id" varchar(255) not null, "name" varchar(255) not null, "color" varchar(32) null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "tags_pkey" primary key ("id"));`);
    this.addSql(`alter table "tags" add constraint "tags_group_id_foreign" foreign key ("group_id") references "tag_groups" ("id") on delete cascade;`);
    this.addSql(`create index "tags_group_index" on "tags" ("organization_id", "livemode", "group_id", "id");`);

    this.addSql(`create table "taggings" ("id" varchar(255) not null, "organization_id" varchar(255) not null, "livemode" boolean not null, "tag_id" varchar(255) not null, "object_id" varchar(255) not null, "object_type" text not null, "features" jsonb not null, "created_at" timestamptz not null, constraint "taggings_pkey" primary key ("id"));`);
    this.addSql(`alter table "taggings" add constraint "taggings_tag_id_foreign" foreign key ("tag_id") references "tags" ("id") on delete cascade;`);
    this.addSql(`alter table "taggings" add constraint "taggings_object_type_check" check ("object_type" in ('document', 'company', 'partner'));`);
    this.addSql(`create unique index "taggings_once" on "taggings" ("tag_id", "object_id");`);
    this.addSql(`create index "taggings_object_index" on "taggings" ("organization_id", "livemode", "object_id");`);
    this.addSql(`create index "taggings_history_index" on "taggings" ("organization_id", "livemode", "id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "taggings" cascade;`);
    this.addSql(`drop table if exists "tags" cascade;`);
    this.addSql(`drop table if exists "tag_groups" cascade;`);
  }

}
