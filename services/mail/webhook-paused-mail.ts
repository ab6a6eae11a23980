/**
 * The notification e-mail of a webhook paused after its 8 failed attempts (spec "Webhook status"):
 * which endpoint, why its last attempt failed, that its events stay in the event log, and the one
 * call that resumes it. Plain text, no tracking, no secret (the signing secret never leaves the API).
 */
import type { WebhookPaused } from '../webhooks/webhooks.contract.ts';

export function webhookPausedMail(e: WebhookPaused, organizationName: string | null, publicUrl: string): { subject: string; text: string } {
  const mode = e.livemode ? 'live' : 'sandbox';
  const cause = e.lastStatusCode !== null ? `HTTP ${e.lastStatusCode}` : (e.lastError ?? 'no answer');
  return {
    subject: `Webhook paused (${mode}): ${e.url}`.replace(/[\r\n]+/g, ' ').slice(0, 300),
    text: [
      `Your ${mode} webhook ${e.webhookId}${organizationName ? ` of ${organizationName}` : ''} was paused at ${e.pausedAt}.`,
      '',
      `Endpoint: ${e.url}`,
      `A delivery failed all its ${e.attempts} attempts (event ${e.eventId}, ${e.eventType}); the last one ended with: ${cause}.`,
      ...(e.companyId ? [`Company: ${e.companyId}`] : []),
      '',
      'No event is delivered to this endpoint while it is paused. Every event stays in the event log',
      `(GET ${publicUrl}/v1/events) and can be replayed once the endpoint answers again.`,
      '',
      'To resume deliveries, fix the endpoint and set the webhook active again:',
      `  PATCH ${publicUrl}/v1/webhooks/${e.webhookId}  {"status": "active"}`,
      '',
      'You receive this message because your API key may manage the webhooks of this account.',
    ].join('\n'),
  };
}
