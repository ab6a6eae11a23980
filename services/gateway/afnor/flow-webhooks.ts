/**
 * AFNOR flow webhooks ↔ our webhooks, pure. An AFNOR subscription is one of our webhooks (the
 * webhooks service delivers, retries and signs it); its filters (flow types, direction, ack status)
 * choose the events it subscribes to, and are kept in its description so the AFNOR listing can
 * give them back. Its deliveries carry the annex's callback body, the `Flow` of the event's
 * document, with `Afnor-Signature` / `Afnor-Signature-Timestamp` beside our own signature header
 * (the webhooks service's `afnor-flow` format).
 */
import type { WebhookView } from '../../webhooks/webhooks.contract.ts';
import { DomainError } from '../../shared/errors.ts';
import { FLOW_TYPES, webhookUuid } from './flows.ts';

/** `WebhookParams` of the Flow Service. */
export interface FlowWebhookParams {
  callbackUrl: string;
  flowTypes?: string[];
  flowDirection?: 'In' | 'Out';
  ackStatus?: 'Pending' | 'Ok' | 'Error';
}

/** Descriptions of AFNOR subscriptions start with this; the rest is the compact filter. */
const MARK = 'afnor-flows';

/**
 * The events of ours that produce flows matching the filter: an outgoing invoice's acceptance,
 * delivery and failure; an incoming one's arrival; any lifecycle step. Empty when no flow of ours
 * can match (report flow types only, or an incoming flow that is Pending).
 */
export function eventsFor(params: FlowWebhookParams): string[] {
  const types = params.flowTypes?.length ? params.flowTypes : undefined;
  const wants = (t: string) => !types || types.includes(t);
  const out = !params.flowDirection || params.flowDirection === 'Out';
  const inbound = !params.flowDirection || params.flowDirection === 'In';
  const ack = params.ackStatus;
  const events: string[] = [];
  if (wants('CustomerInvoice') && out) {
    if (!ack || ack === 'Ok') events.push('document.sent', 'document.delivered');
    if (!ack || ack === 'Error') events.push('document.failed');
  }
  if (wants('SupplierInvoice') && inbound && (!ack || ack === 'Ok')) events.push('document.received');
  if ((wants('CustomerInvoiceLC') || wants('SupplierInvoiceLC')) && (!ack || ack === 'Ok')) events.push('lifecycle.updated');
  return [...new Set(events)];
}

/** The description that keeps the filter: `afnor-flows t=0,1;d=Out;a=Ok` (flow types by index). */
export function describe(params: FlowWebhookParams): string {
  const parts: string[] = [];
  if (params.flowTypes?.length) parts.push(`t=${params.flowTypes.map((t) => (FLOW_TYPES as readonly string[]).indexOf(t)).join(',')}`);
  if (params.flowDirection) parts.push(`d=${params.flowDirection}`);
  if (params.ackStatus) parts.push(`a=${params.ackStatus}`);
  return parts.length ? `${MARK} ${parts.join(';')}` : MARK;
}

export function isFlowWebhook(hook: Pick<WebhookView, 'description'>): boolean {
  return hook.description === MARK || (hook.description?.startsWith(`${MARK} `) ?? false);
}

function filterOf(description: string): Omit<FlowWebhookParams, 'callbackUrl'> {
  const out: Omit<FlowWebhookParams, 'callbackUrl'> = {};
  for (const part of description.slice(MARK.length).trim().split(';')) {
    const [key, value] = part.split('=');
    if (!value) continue;
    if (key === 't') out.flowTypes = value.split(',').map((i) => FLOW_TYPES[Number(i)]).filter((t): t is (typeof FLOW_TYPES)[number] => t !== undefined);
    if (key === 'd' && (value === 'In' || value === 'Out')) out.flowDirection = value;
    if (key === 'a' && (value === 'Pending' || value === 'Ok' || value === 'Error')) out.ackStatus = value;
  }
  return out;
}

/**
 * The signing key as AFNOR gives it (base64): the HMAC key of the deliveries (the `whsec_` secret's
 * bytes), which verifies `Afnor-Signature` as the annex describes it, and our `X-Service-Signature`.
 */
export function signingKeyOf(secret: string): string {
  return Buffer.from(secret, 'utf8').toString('base64');
}

/** Our webhook as the Flow Service's `Webhook`. */
export function flowWebhook(hook: WebhookView): Record<string, unknown> {
  return { webhookId: webhookUuid(hook.id), createdAt: hook.createdAt, callbackUrl: hook.url, ...filterOf(hook.description ?? MARK) };
}

/** 400 when the filter matches nothing we produce (so the subscription would never fire). */
export function assertSubscribable(events: string[]): void {
  if (events.length === 0) {
    throw new DomainError('INVALID_REQUEST', 'No flow of this platform matches these filters (e-reporting and State* flow types are not produced here)', {
      details: [{ field: 'flowTypes', rule: 'subscribable', message: 'choose CustomerInvoice, SupplierInvoice, CustomerInvoiceLC or SupplierInvoiceLC' }],
    });
  }
}
