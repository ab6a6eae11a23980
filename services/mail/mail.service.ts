/**
 * mail: sends what other services ask over SMTP (nodemailer), outside any transaction of theirs,
 * and the notifications that follow from events (a paused webhook). A send never throws for a mail
 * problem: the result says `sent`, or `not_configured` / `error` with the server's words, so the
 * caller can record what happened. Keeps no table.
 */
import type { Context, Service, ServiceSchema } from 'moleculer';
import { implement } from '../shared/contract.ts';
import { call } from '../shared/call.ts';
import { loadConfig } from '../shared/config.ts';
import { notificationContacts } from '../tenancy/tenancy.contract.ts';
import { WEBHOOK_PAUSED_EVENT, type WebhookPaused } from '../webhooks/webhooks.contract.ts';
import { MailTransports } from './transports.ts';
import { webhookPausedMail } from './webhook-paused-mail.ts';
import * as contract from './mail.contract.ts';

type MailThis = Service & { transports: MailTransports };

async function sendMail(this: MailThis, p: contract.SendMailParams): Promise<contract.SendMailResult> {
  const route = p.route ?? 'default';
  const transport = this.transports.get(route);
  if (!transport) return { sent: false, reason: 'not_configured', transport: route, error: null };
  try {
    const info = await transport.sendMail({
      // base64 keeps every byte of a data line (a CSV row is longer than the 76 characters quoted-printable would fold it at).
      from: loadConfig().mail.from, to: p.to, subject: p.subject, text: p.text, textEncoding: 'base64',
      attachments: (p.attachments ?? []).map((a) => ({ filename: a.filename, content: a.content, contentType: a.contentType })),
    });
    const list = (v: unknown[] | undefined) => (v ?? []).map((a) => (typeof a === 'string' ? a : (a as { address: string }).address));
    return { sent: true, messageId: String(info.messageId), transport: route, accepted: list(info.accepted), rejected: list(info.rejected) };
  } catch (err) {
    this.logger.warn(`mail: sending "${p.subject}" through the ${route} route failed`, (err as Error).message);
    return { sent: false, reason: 'error', transport: route, error: (err as Error).message.slice(0, 500) };
  }
}

const MailService: ServiceSchema = {
  name: 'mail',

  created() {
    (this as unknown as MailThis).transports = new MailTransports(() => loadConfig().mail);
  },

  stopped() {
    (this as unknown as MailThis).transports.close();
  },

  actions: {
    send: implement(contract.send, async function (this: MailThis, ctx) { return sendMail.call(this, ctx.params); }),

    routes: implement(contract.routes, async function (this: MailThis) {
      return { default: this.transports.urlOf('default') !== undefined, 'portability-relay': this.transports.urlOf('portability-relay') !== undefined };
    }),
  },

  events: {
    // Balanced (emit): one mail instance of the deployment sends it.
    [WEBHOOK_PAUSED_EVENT]: {
      async handler(this: MailThis, ctx: Context<WebhookPaused>) {
        const e = ctx.params;
        const contacts = await call(ctx, notificationContacts, { organizationId: e.organizationId, livemode: e.livemode, companyId: e.companyId });
        if (!contacts.emails.length) {
          this.logger.warn(`mail: webhook ${e.webhookId} was paused but organization ${e.organizationId} has no contact e-mail (no key owner e-mail, no support e-mail)`);
          return;
        }
        const mail = webhookPausedMail(e, contacts.organizationName, loadConfig().publicUrl);
        const result = await sendMail.call(this, { to: contacts.emails, ...mail });
        if (result.sent) this.logger.info(`mail: webhook ${e.webhookId} paused, ${contacts.emails.length} contact(s) told (${result.messageId})`);
      },
    },
  },
};

export default MailService;
