import { Migration } from '@mikro-orm/migrations';

export class Migration20261122164516_technical_account_external_subject extends Migration {

  override name = 'Migration20261122164516_technical_account_external_subject';

  override up(): void | Promise<void> {
    this.addSql(`alter table "technical_accounts" add "external_issuer" varchar(255) null, add "external_subject" varchar(255) null;`);
    this.addSql(`alter table "technical_accounts" add constraint "technical_accounts_external_issuer_external_subject_unique" unique ("external_issuer", "external_subject");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "technical_accounts" drop constraint "technical_accounts_external_issuer_external_subject_unique";`);
    this.addSql(`alter table "technical_accounts" drop column "external_issuer", drop column "external_subject";`);
  }

}
