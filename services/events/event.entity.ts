import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Organization } from '../tenancy/organization.entity.ts';

/**
 * One business event: the outbox row and its durable twin in the event log at once. Services write
 * it in the same transaction as the state change that causes it (mixins/outbox.mixin.ts); the
 * dispatcher (services/events) claims rows whose `dispatchedAt` is null, publishes them and creates
 * their webhook deliveries, then stamps `dispatchedAt` in that same transaction.
 */
export const Event = defineEntity({
  name: 'Event',
  tableName: 'events',
  properties: {
    id: p.string().primary(),
    organization: p.manyToOne(Organization).ref().deleteRule('cascade'),
    /** The company the event is about (null for organization-level events). */
    companyId: p.string().nullable(),
    type: p.string(),
    livemode: p.boolean(),
    apiVersion: p.string(),
    data: p.json<Record<string, unknown>>(),
    /** Business time of the event (the company's clock: virtual in the sandbox). */
    createdAt: p.datetime(),
    /** Set by the dispatcher once published and fanned out to webhooks; null = still in the outbox. */
    dispatchedAt: p.datetime().nullable(),
    acknowledgedAt: p.datetime().nullable(),
  },
  indexes: [
    { name: 'events_outbox_index', properties: ['id'], where: { dispatchedAt: null } },
    { name: 'events_log_index', properties: ['organization', 'livemode', 'id'] },
  ],
});
export type Event = InferEntity<typeof Event>;
