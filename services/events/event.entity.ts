import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * One business event: the outbox row and its durable twin in the event log at once. Services write
 * it in the same transaction as the state change that causes it (mixins/outbox.mixin.ts); the
 * dispatcher (services/events) claims rows whose `dispatchedAt` is null, publishes them on the
 * broker and stamps `dispatchedAt`. The `tx_id` column (the writing transaction, a database
 * default not mapped here) orders the committed feed followers read with their own cursors.
 */
export const Event = defineEntity({
  name: 'Event',
  tableName: 'events',
  properties: {
    id: p.string().primary(),
    /** The tenancy organization (a foreign key in the database). */
    organizationId: p.string(),
    /** The company the event is about (null for organization-level events). */
    companyId: p.string().nullable(),
    type: p.string(),
    livemode: p.boolean(),
    apiVersion: p.string(),
    data: p.json<Record<string, unknown>>(),
    /** Business time of the event (the company's clock: virtual in the sandbox). */
    createdAt: p.datetime(),
    /** Set by the dispatcher once published on the broker; null = still in the outbox. */
    dispatchedAt: p.datetime().nullable(),
    acknowledgedAt: p.datetime().nullable(),
  },
  indexes: [
    { name: 'events_outbox_index', properties: ['id'], where: { dispatchedAt: null } },
    { name: 'events_log_index', properties: ['organizationId', 'livemode', 'id'] },
  ],
});
export type Event = InferEntity<typeof Event>;
