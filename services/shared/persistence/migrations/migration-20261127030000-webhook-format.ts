import { Migration } from '@mikro-orm/migrations';

/**
 * What a webhook's deliveries carry: `native` (our event envelope, every webhook so far) or
 * `afnor-flow` (an AFNOR XP Z12-013 flow subscription made under /afnor/: the `Flow` of the event's
 * document, with the annex's `Afnor-Signature` headers).
 */
export class Migration20261127030000_webhook_format extends Migration {

  override name = 'Migration20261127030000_webhook_format';

  override up(): void | Promise<void> {
    this.addSql(`alter table "webhooks" add column "format" text not null default 'native';`);
    this.addSql(`alter table "webhooks" add constraint "webhooks_format_check" check ("format" in ('native', 'afnor-flow'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "webhooks" drop constraint "webhooks_format_check";`);
    this.addSql(`alter table "webhooks" drop column "format";`);
  }

}
