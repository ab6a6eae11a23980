import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Webhook } from './webhook.entity.ts';

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'cancelled'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** One attempt of a delivery, as the delivery log shows it. */
export interface DeliveryAttempt {
  attempt: number;
  /** Wall-clock time the request left. */
  at: string;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
}

/**
 * One event to one webhook. Its pending attempts are due-time rows of the scheduler
 * (services/scheduler), kind `webhook.deliver`, ref = this id.
 */
export const WebhookDelivery = defineEntity({
  name: 'WebhookDelivery',
  tableName: 'webhook_deliveries',
  properties: {
    id: p.string().primary(),
    webhook: p.manyToOne(Webhook).ref().deleteRule('cascade'),
    organizationId: p.string(),
    companyId: p.string().nullable(),
    eventId: p.string().index(),
    eventType: p.string(),
    /** The exact envelope sent (the same bytes on every attempt). */
    payload: p.text(),
    status: p.enum(DELIVERY_STATUSES).default('pending'),
    /** Attempts whose outcome is recorded. */
    attempts: p.integer().default(0),
    /**
     * Attempts begun, counted before the request leaves: after a worker dies mid-attempt the next one
     * goes out with the next number, never the same one again.
     */
    attemptsStarted: p.integer().default(0),
    attemptLog: p.json<DeliveryAttempt[]>(),
    nextAttemptAt: p.datetime().nullable(),
    lastStatusCode: p.integer().nullable(),
    lastLatencyMs: p.integer().nullable(),
    lastError: p.text().nullable(),
    /** A "send test event" delivery: one attempt, no retries, never pauses the webhook. */
    test: p.boolean().default(false),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
    deliveredAt: p.datetime().nullable(),
  },
  indexes: [{ name: 'webhook_deliveries_log_index', properties: ['webhook', 'id'] }],
});
export type WebhookDelivery = InferEntity<typeof WebhookDelivery>;
