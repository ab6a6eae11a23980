/**
 * mail: the one place that speaks SMTP (nodemailer). Other services ask it to send a message and
 * get back what happened, or emit an event it follows; nobody calls it from inside a database
 * transaction (a slow SMTP server must never hold rows locked).
 *
 * Configuration (services/shared/config.ts, README): `EINV_SMTP_URL` (unset: nothing is mailed,
 * `send` answers `not_configured`), `EINV_MAIL_FROM`, `EINV_SMTP_TIMEOUT_MS`, and
 * `EINV_PORTABILITY_RELAY_URL` (the `portability-relay` route: a direct relay to the platforms).
 *
 * Events it follows:
 * - `webhooks.paused` (services/webhooks/webhooks.contract.ts, WEBHOOK_PAUSED_EVENT): mails the
 *   organization's contacts (tenancy `notificationContacts`: the owner e-mails of its live keys
 *   that may manage webhooks, else its platform support e-mail) that the webhook was paused, why,
 *   and how to resume it.
 */
import { defineAction } from '../shared/contract.ts';

const SERVICE = 'mail';

/** Which SMTP server a message goes through: the deployment's, or the direct relay to the platforms (portability). */
export const MAIL_ROUTES = ['default', 'portability-relay'] as const;
export type MailRoute = (typeof MAIL_ROUTES)[number];

export interface MailAttachment {
  filename: string;
  /** UTF-8 text (the portability CSV). */
  content: string;
  contentType: string;
}

export interface SendMailParams {
  to: string[];
  subject: string;
  text: string;
  attachments?: MailAttachment[];
  route?: MailRoute;
}

/** What the SMTP server made of it. A send never throws for a mail problem: the caller records the outcome. */
export type SendMailResult =
  | { sent: true; messageId: string; transport: MailRoute; accepted: string[]; rejected: string[] }
  /** `not_configured`: no SMTP server for that route on this deployment; `error`: the server refused or did not answer (`error` says how). */
  | { sent: false; reason: 'not_configured' | 'error'; transport: MailRoute; error: string | null };

/** Longest text body (a portability CSV inline is a few kilobytes). */
export const MAX_MAIL_TEXT_BYTES = 256 * 1024;

export const send = defineAction<SendMailParams, SendMailResult>(SERVICE, 'send', {
  params: {
    to: { type: 'array', min: 1, max: 20, items: { type: 'email', max: 254 } },
    // A header: no line breaks (they would inject headers), at most one folded line's worth.
    subject: { type: 'string', min: 1, max: 500, pattern: /^[^\r\n]*$/ },
    text: { type: 'string', max: MAX_MAIL_TEXT_BYTES },
    attachments: {
      type: 'array', optional: true, max: 5,
      items: { type: 'object', strict: true, props: { filename: { type: 'string', min: 1, max: 200, pattern: /^[^\r\n/\\]+$/ }, content: { type: 'string', max: MAX_MAIL_TEXT_BYTES }, contentType: { type: 'string', min: 3, max: 100 } } },
    },
    route: { type: 'enum', values: [...MAIL_ROUTES], optional: true },
  },
});

/** Which routes this deployment's mail service can send on (no secret: whether each is configured). */
export const routes = defineAction<Record<string, never>, Record<MailRoute, boolean>>(SERVICE, 'routes', { params: {} });
