/**
 * The nodemailer SMTP transports of this process, one per configured SMTP server, made on first use
 * and closed when the service stops. Timeouts are bounded so a dead server fails a send instead of
 * hanging it.
 */
import nodemailer, { type Transporter } from 'nodemailer';
import type { MailConfig } from '../shared/config.ts';
import type { MailRoute } from './mail.contract.ts';

export class MailTransports {
  /** By SMTP URL: a configuration read anew that names another server gets its own transport. */
  private readonly made = new Map<string, Transporter>();
  private readonly config: () => MailConfig;

  constructor(config: () => MailConfig) {
    this.config = config;
  }

  urlOf(route: MailRoute): string | undefined {
    const c = this.config();
    return route === 'portability-relay' ? c.portabilityRelayUrl : c.smtpUrl;
  }

  /** The transport of a route, or undefined when the route has no SMTP server configured. */
  get(route: MailRoute): Transporter | undefined {
    const url = this.urlOf(route);
    if (!url) return undefined;
    let transport = this.made.get(url);
    if (!transport) {
      const t = this.config().timeoutMs;
      transport = nodemailer.createTransport({ url, connectionTimeout: t, greetingTimeout: t, socketTimeout: t });
      this.made.set(url, transport);
    }
    return transport;
  }

  close(): void {
    for (const t of this.made.values()) t.close();
    this.made.clear();
  }
}
