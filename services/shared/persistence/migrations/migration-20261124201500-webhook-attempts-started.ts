import { Migration } from '@mikro-orm/migrations';

/** Attempts are counted when they leave, so a worker that dies before recording one never re-sends its number. */
export class Migration20261124201500_webhook_attempts_started extends Migration {

  override name = 'Migration20261124201500_webhook_attempts_started';

  override up(): void | Promise<void> {
    this.addSql(`alter table "webhook_deliveries" add column "attempts_started" int not null default 0;`);
    this.addSql(`update "webhook_deliveries" set "attempts_started" = "attempts";`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "webhook_deliveries" drop column "attempts_started";`);
  }

}
