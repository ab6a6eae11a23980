/**
 * The outbox: every business event is written in the same database transaction as the state change
 * that causes it. Inside a transaction, call `recordEvent(em, {...})` (or the mixin's
 * `this.recordEvent(ctx, em, {...})`) before the transaction commits: the event row is flushed with
 * the state change, or not at all. The dispatcher (services/events) publishes committed rows and
 * fans them out to webhooks; the mixin wakes it as soon as the action returns.
 */
import type { Context, ServiceSchema } from 'moleculer';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Event } from '../services/events/event.entity.ts';
import { API_VERSION, EVENT_TYPES, OUTBOX_WRITTEN_EVENT, type EventEnvelope, type EventType } from '../services/events/events.contract.ts';
import { companyClock } from '../services/shared/clock.ts';
import { BusinessClockMixin } from './business-clock.mixin.ts';
import { newId } from '../services/shared/ids.ts';

export interface OutboxEventInput {
  organizationId: string;
  /** The company the event is about; its (virtual) clock stamps `createdAt`. */
  companyId?: string | null;
  type: EventType;
  livemode: boolean;
  data: Record<string, unknown>;
}


/** Adds an event row to `em`'s unit of work; it commits with the caller's transaction. */
export async function recordEvent(em: EntityManager, input: OutboxEventInput): Promise<EventEnvelope> {
  if (!(EVENT_TYPES as readonly string[]).includes(input.type)) throw new Error(`recordEvent: '${input.type}' is not an event type of the catalogue`);
  const createdAt = (await companyClock(em, input.companyId)).now();
  const row = em.create(Event, {
    id: newId('event'),
    organizationId: input.organizationId,
    companyId: input.companyId ?? null,
    type: input.type,
    livemode: input.livemode,
    apiVersion: API_VERSION,
    data: input.data,
    createdAt,
    dispatchedAt: null,
    acknowledgedAt: null,
  });
  return { id: row.id, type: row.type, livemode: row.livemode, createdAt: createdAt.toISOString(), apiVersion: API_VERSION, data: input.data };
}

interface OutboxLocals { outboxWritten?: boolean }

export const OutboxMixin: Partial<ServiceSchema> = {
  // every service that records events reads business time for their timestamps
  mixins: [BusinessClockMixin],
  methods: {
    /** `recordEvent` that also wakes the dispatcher once this action has returned (committed). */
    recordEvent(ctx: Context, em: EntityManager, input: OutboxEventInput): Promise<EventEnvelope> {
      (ctx.locals as OutboxLocals).outboxWritten = true;
      return recordEvent(em, input);
    },
  },
  hooks: {
    after: {
      '*'(this: { broker: Context['broker'] }, ctx: Context, result: unknown) {
        if ((ctx.locals as OutboxLocals).outboxWritten) void this.broker.broadcast(OUTBOX_WRITTEN_EVENT, {});
        return result;
      },
    },
  },
};
