/**
 * webhooks: subscriptions, signing secrets (with rotation overlap), deliveries and their retries,
 * the delivery log, "send test event" and replay.
 */
import { defineAction, STRICT_REMOVE } from '../shared/contract.ts';
import { PAGE_PARAMS, pageSchema, type Page } from '../shared/pagination.ts';
import { SUBSCRIBABLE_EVENTS } from '../events/events.contract.ts';
import { WEBHOOK_STATUSES, type WebhookStatus } from './webhook.entity.ts';
import { DELIVERY_STATUSES, type DeliveryAttempt, type DeliveryStatus } from './delivery.entity.ts';

const SERVICE = 'webhooks';

/** Scheduler job kind of a pending delivery attempt (ref = delivery id). */
export const DELIVER_JOB = 'webhook.deliver';
/**
 * Emitted (broker event, once per pause, after the transaction that paused the webhook committed)
 * when a webhook goes active → paused because a delivery failed all its 8 attempts. The mail
 * service sends the notification e-mail the spec asks for; nothing else is held up by it. It is a
 * notification, not must-deliver work: the webhook's state and its events stay in the database and
 * the event log whether or not anyone hears it.
 */
export const WEBHOOK_PAUSED_EVENT = 'webhooks.paused';
export interface WebhookPaused {
  webhookId: string;
  organizationId: string;
  /** The company whose events it receives; null for an organization-level (platform) webhook. */
  companyId: string | null;
  url: string;
  livemode: boolean;
  pausedAt: string;
  /** The delivery that exhausted its attempts, and how its last attempt ended. */
  eventId: string;
  eventType: string;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
}

/** `User-Agent` of every delivery. */
export const WEBHOOK_USER_AGENT = 'einvoicing-exchange-webhooks/0.1.0';
/** Longest overlap during which the previous secret keeps signing after a rotation (7 days). */
export const MAX_ROTATION_OVERLAP_SECONDS = 7 * 86_400;

export interface WebhookView {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  status: WebhookStatus;
  failureCount: number;
  companyId: string | null;
  livemode: boolean;
  /** The signing secret: only in the answers of create and rotate-secret. */
  secret?: string;
  /** While a rotation overlaps: until when the previous secret also signs. */
  previousSecretExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface DeliveryView {
  id: string;
  webhookId: string;
  eventId: string;
  eventType: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: string | null;
  lastStatusCode: number | null;
  lastLatencyMs: number | null;
  lastError: string | null;
  test: boolean;
  createdAt: string;
  deliveredAt: string | null;
  attemptLog: DeliveryAttempt[];
}

const nullableString = { type: ['string', 'null'] };
export const webhookResponse = {
  type: 'object',
  required: ['id', 'url', 'events', 'status', 'failureCount', 'livemode', 'createdAt'],
  properties: {
    id: { type: 'string', examples: ['wh_01JD7Z3V9Q1M2N3P4R5S6T7V8W'] },
    url: { type: 'string', format: 'uri' },
    events: { type: 'array', items: { type: 'string', enum: [...SUBSCRIBABLE_EVENTS] } },
    description: nullableString,
    status: { type: 'string', enum: [...WEBHOOK_STATUSES] },
    failureCount: { type: 'integer', description: 'Consecutive failed attempts' },
    companyId: { type: ['string', 'null'], description: 'null: a platform-level webhook (every company of the organization)' },
    livemode: { type: 'boolean' },
    secret: { type: 'string', description: 'Signing secret; returned only by create and rotate-secret', examples: ['whsec_…'] },
    previousSecretExpiresAt: { type: ['string', 'null'], format: 'date-time' },
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
  },
};
const deliveryResponse = {
  type: 'object',
  required: ['id', 'webhookId', 'eventId', 'eventType', 'status', 'attempts', 'attemptLog', 'createdAt'],
  properties: {
    id: { type: 'string', examples: ['dlv_01JD7Z3V9Q1M2N3P4R5S6T7V8W'] },
    webhookId: { type: 'string' }, eventId: { type: 'string' }, eventType: { type: 'string' },
    status: { type: 'string', enum: [...DELIVERY_STATUSES] },
    attempts: { type: 'integer' },
    nextAttemptAt: { type: ['string', 'null'], format: 'date-time' },
    lastStatusCode: { type: ['integer', 'null'] }, lastLatencyMs: { type: ['integer', 'null'] }, lastError: nullableString,
    test: { type: 'boolean' },
    createdAt: { type: 'string', format: 'date-time' }, deliveredAt: { type: ['string', 'null'], format: 'date-time' },
    attemptLog: {
      type: 'array',
      items: {
        type: 'object',
        properties: { attempt: { type: 'integer' }, at: { type: 'string', format: 'date-time' }, statusCode: { type: ['integer', 'null'] }, latencyMs: { type: 'integer' }, error: nullableString },
      },
    },
  },
};

const idParam = { id: { type: 'string', min: 1, max: 64 } } as const;
export const eventsParam = { type: 'array', min: 1, max: 32, unique: true, items: { type: 'enum', values: [...SUBSCRIBABLE_EVENTS] } } as const;
const urlParam = { type: 'url', max: 2048 } as const;

export interface CreateWebhookParams { url: string; events: string[]; description?: string }
export const createWebhook = defineAction<CreateWebhookParams, WebhookView>(SERVICE, 'createWebhook', {
  params: { ...STRICT_REMOVE, url: urlParam, events: eventsParam, description: { type: 'string', optional: true, max: 255 } },
  http: {
    method: 'POST', path: '/v1/webhooks', access: 'receive', status: 201, tag: 'Webhooks', secretFields: ['secret'],
    location: (w: WebhookView) => `/v1/webhooks/${w.id}`,
    summary: 'Subscribe a URL to events (names or `*`); the signing secret is returned once. Live webhooks must be HTTPS to a public address',
    response: webhookResponse,
  },
});

/**
 * Internal (the AFNOR XP Z12-013 Flow Service under /afnor/): the same subscription as createWebhook
 * for the caller, whose deliveries carry the AFNOR `Flow` of the event's document, signed with the
 * annex's `Afnor-Signature` and `Afnor-Signature-Timestamp` headers (beside ours).
 */
export const createFlowWebhook = defineAction<CreateWebhookParams, WebhookView>(SERVICE, 'createFlowWebhook', {
  params: { ...STRICT_REMOVE, url: urlParam, events: eventsParam, description: { type: 'string', optional: true, max: 255 } },
});

export const listWebhooks = defineAction<{ limit?: number; cursor?: string }, Page<WebhookView>>(SERVICE, 'listWebhooks', {
  params: { ...STRICT_REMOVE, ...PAGE_PARAMS },
  http: { method: 'GET', path: '/v1/webhooks', access: 'receive', tag: 'Webhooks', summary: 'List webhooks', response: pageSchema(webhookResponse) },
});

export const getWebhook = defineAction<{ id: string }, WebhookView>(SERVICE, 'getWebhook', {
  params: { ...STRICT_REMOVE, ...idParam },
  http: { method: 'GET', path: '/v1/webhooks/:id', access: 'receive', tag: 'Webhooks', summary: 'One webhook', response: webhookResponse },
});

export interface UpdateWebhookParams { id: string; status?: WebhookStatus; url?: string; events?: string[]; description?: string }
export const updateWebhook = defineAction<UpdateWebhookParams, WebhookView>(SERVICE, 'updateWebhook', {
  params: {
    ...STRICT_REMOVE, ...idParam,
    status: { type: 'enum', values: [...WEBHOOK_STATUSES], optional: true },
    url: { ...urlParam, optional: true },
    events: { ...eventsParam, optional: true },
    description: { type: 'string', optional: true, max: 255 },
  },
  http: {
    method: 'PATCH', path: '/v1/webhooks/:id', access: 'receive', tag: 'Webhooks',
    summary: '`status`: `active` (resumes; the failure count restarts), `paused`, `disabled`; also `url`, `events`, `description`',
    response: webhookResponse,
  },
});

export const deleteWebhook = defineAction<{ id: string }, { id: string; deleted: true }>(SERVICE, 'deleteWebhook', {
  params: { ...STRICT_REMOVE, ...idParam },
  http: {
    method: 'DELETE', path: '/v1/webhooks/:id', access: 'receive', tag: 'Webhooks', summary: 'Delete a webhook and its delivery log; pending retries stop',
    response: { type: 'object', required: ['id', 'deleted'], properties: { id: { type: 'string' }, deleted: { const: true } } },
  },
});

export const rotateWebhookSecret = defineAction<{ id: string; overlapSeconds?: number }, WebhookView>(SERVICE, 'rotateWebhookSecret', {
  params: { ...STRICT_REMOVE, ...idParam, overlapSeconds: { type: 'number', integer: true, min: 0, max: MAX_ROTATION_OVERLAP_SECONDS, optional: true, convert: true } },
  http: {
    method: 'POST', path: '/v1/webhooks/:id/rotate-secret', access: 'receive', tag: 'Webhooks', secretFields: ['secret'],
    summary: 'New signing secret (returned once); the previous one keeps signing, beside it, for `overlapSeconds` (default 86400, max 604800)',
    response: webhookResponse,
  },
});

export const listDeliveries = defineAction<{ id: string; status?: DeliveryStatus; eventId?: string; limit?: number; cursor?: string }, Page<DeliveryView>>(SERVICE, 'listDeliveries', {
  params: {
    ...STRICT_REMOVE, ...idParam, ...PAGE_PARAMS,
    status: { type: 'enum', values: [...DELIVERY_STATUSES], optional: true },
    eventId: { type: 'string', optional: true, max: 64 },
  },
  http: {
    method: 'GET', path: '/v1/webhooks/:id/deliveries', access: 'receive', tag: 'Webhooks',
    summary: 'The delivery log of a webhook, newest first: status, attempts (each with status code and latency), next attempt',
    response: pageSchema(deliveryResponse),
  },
});

export const sendTestEvent = defineAction<{ id: string }, DeliveryView>(SERVICE, 'sendTestEvent', {
  params: { ...STRICT_REMOVE, ...idParam },
  http: {
    method: 'POST', path: '/v1/webhooks/:id/test', access: 'receive', tag: 'Webhooks',
    summary: 'Send a signed `webhook.test` event now (one attempt, no retry, not in the event log) and answer with its outcome',
    response: deliveryResponse,
  },
});

export const replayEvent = defineAction<{ id: string; eventId: string }, DeliveryView>(SERVICE, 'replayEvent', {
  params: { ...STRICT_REMOVE, ...idParam, eventId: { type: 'string', min: 1, max: 64 } },
  http: {
    method: 'POST', path: '/v1/webhooks/:id/replay', access: 'receive', status: 202, tag: 'Webhooks',
    summary: 'Deliver an event of the log to this (active) webhook again, as a new delivery with the full retry schedule',
    response: deliveryResponse,
  },
});

// ---------- internal: platform onboarding, sandbox reset, statistics ----------

/** Checks a webhook target before anything is created with it (platform onboarding); `field` names it in the error. */
export const checkWebhookTarget = defineAction<{ url: string; livemode: boolean; field?: string }, { ok: true }>(SERVICE, 'checkWebhookTarget', {
  params: { url: { type: 'string', min: 1, max: 2048 }, livemode: 'boolean', field: { type: 'string', optional: true, max: 64 } },
});

export interface OpenTenantWebhookParams { organizationId: string; companyId: string; livemode: boolean; url: string; events: string[]; description?: string }
/** A webhook of one managed company, opened by its platform's onboarding call (the signing secret is in the answer). */
export const openTenantWebhook = defineAction<OpenTenantWebhookParams, WebhookView>(SERVICE, 'openTenantWebhook', {
  params: {
    organizationId: { type: 'string', min: 1, max: 255 }, companyId: { type: 'string', min: 1, max: 255 }, livemode: 'boolean',
    url: urlParam, events: eventsParam, description: { type: 'string', optional: true, max: 255 },
  },
});

export interface WebhooksReset { deliveries: number; scheduledJobs: number; webhooks: number }
/**
 * Wipes an organization's sandbox deliveries (one company's with `companyId`) and their pending attempts (`POST /v1/sandbox/reset`);
 * with `subscriptions`, its sandbox webhooks too (an expired sandbox organization). Live rows are never touched.
 */
export const resetSandbox = defineAction<{ organizationId: string; companyId?: string; subscriptions?: boolean }, WebhooksReset>(SERVICE, 'resetSandbox', {
  params: { organizationId: { type: 'string', min: 1, max: 255 }, companyId: { type: 'string', optional: true, max: 255 }, subscriptions: { type: 'boolean', optional: true } },
});

export interface DeliveryStats {
  succeeded: number;
  failed: number;
  pending: number;
  /** succeeded / (succeeded + failed), null when nothing has finished. */
  successRate: number | null;
}
/** Delivery outcomes of the organization's events (test events left out) created in [from, to). */
export const deliveryStats = defineAction<{ organizationId: string; livemode: boolean; companyId?: string; from: string; to: string }, DeliveryStats>(SERVICE, 'deliveryStats', {
  params: { organizationId: { type: 'string', min: 1, max: 255 }, livemode: 'boolean', companyId: { type: 'string', optional: true, max: 255 }, from: 'string', to: 'string' },
});
