import { Migration } from '@mikro-orm/migrations';

export class Migration20261124193000_issued_tokens extends Migration {

  override name = 'Migration20261124193000_issued_tokens';

  override up(): void | Promise<void> {
    this.addSql(`create table "issued_tokens" ("jti" varchar(255) not null, "technical_account_id" varchar(255) not null, "company_id" varchar(255) null, "expires_at" timestamptz not null, primary key ("jti"));`);
    this.addSql(`create index "issued_tokens_technical_account_id_index" on "issued_tokens" ("technical_account_id");`);
    this.addSql(`create index "issued_tokens_expires_at_index" on "issued_tokens" ("expires_at");`);
    this.addSql(`alter table "integrations" add "company_id" varchar(255) null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "integrations" drop column "company_id";`);
    this.addSql(`drop table if exists "issued_tokens" cascade;`);
  }

}
