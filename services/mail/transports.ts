/**
 * The nodemailer SMTP transports of this process, one per configured route, made on first use and
 * closed when the service stops. Timeouts are bounded so a dead server fails a send instead of
 * hanging it.
 */
import nodemailer, { type Transporter } from 'nodemailer';
import type { MailConfig } from '../shared/config.ts';
import type { MailRoute } from './mail.contract.ts';

export class MailTransports {
  private readonly made = new Map<MailRoute, Transporter>();

  private readonly config: MailConfig;

  constructor(config: MailConfig) {
    this.config = config;
  }

  urlOf(route: MailRoute): string | undefined {
    return route === 'portability-relay' ? this.config.portabilityRelayUrl : this.config.smtpUrl;
  }

  /** The transport of a route, or undefined when the route has no SMTP server configured. */
  get(route: MailRoute): Transporter | undefined {
    const url = this.urlOf(route);
    if (!url) return undefined;
    let transport = this.made.get(route);
    if (!transport) {
      const t = this.config.timeoutMs;
      transport = nodemailer.createTransport({ url, connectionTimeout: t, greetingTimeout: t, socketTimeout: t });
      this.made.set(route, transport);
    }
    return transport;
  }

  close(): void {
    for (const t of this.made.values()) t.close();
    this.made.clear();
  }
}
