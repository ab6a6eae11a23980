/**
 * events: the outbox dispatcher and the event log.
 *
 * Dispatcher: claims committed, undispatched event rows with FOR UPDATE SKIP LOCKED (so replicas
 * share the work), publishes each on the broker under its type, creates the webhook deliveries and
 * their first due-time rows, and stamps `dispatchedAt`, all in one transaction. A crash anywhere
 * before the commit rolls everything back and the rows are claimed again: no event is lost, and its
 * deliveries are created exactly once (broker publication is at-least-once). Woken by every outbox
 * write and by a node-cron poll.
 */
import type { Service, ServiceSchema } from 'moleculer';
import { randomUUID } from 'node:crypto';
import { LockMode, type RequiredEntityData } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { schedule, type ScheduledTask } from 'node-cron';
import { OrmMixin, emOf } from '../../mixins/orm.mixin.ts';
import { WAKE_EVENT } from '../../mixins/scheduler.mixin.ts';
import { implement } from '../shared/contract.ts';
import { principalOf } from '../shared/auth.ts';
import { systemClock } from '../shared/clock.ts';
import { loadConfig } from '../shared/config.ts';
import { newId } from '../shared/ids.ts';
import { readPageRequest, toPage } from '../shared/pagination.ts';
import { databaseOf } from '../shared/persistence/database.ts';
import { CompanyClock } from '../clock/company-clock.entity.ts';
import { Company } from '../tenancy/company.entity.ts';
import { Webhook } from '../webhooks/webhook.entity.ts';
import { WebhookDelivery } from '../webhooks/delivery.entity.ts';
import { payloadFor, subscribes } from '../webhooks/fan-out.ts';
import { DELIVER_JOB } from '../webhooks/webhooks.contract.ts';
import { ScheduledJob } from '../scheduler/scheduled-job.entity.ts';
import { Event } from './event.entity.ts';
import { listEvents, ackEvents, drainOutbox, OUTBOX_WRITTEN_EVENT, type EventEnvelope, type EventRecord } from './events.contract.ts';

export function envelopeOf(row: Event): EventEnvelope {
  return { id: row.id, type: row.type, livemode: row.livemode, createdAt: row.createdAt.toISOString(), apiVersion: row.apiVersion, data: row.data };
}

function recordOf(row: Event): EventRecord {
  return { ...envelopeOf(row), companyId: row.companyId ?? null, acknowledged: row.acknowledgedAt != null, acknowledgedAt: row.acknowledgedAt?.toISOString() ?? null };
}

/** Dispatch transactions run side by side in one instance. */
const DISPATCH_LOOPS = 3;

interface DispatcherState {
  task?: ScheduledTask;
  running?: Promise<number>;
  again: boolean;
  stopping: boolean;
}

type EventsThis = Service & { dispatcher: DispatcherState; drain(): Promise<number>; dispatchBatch(): Promise<{ events: number; deliveries: number }> };

const EventsService: ServiceSchema = {
  name: 'events',
  mixins: [OrmMixin],

  created() {
    const self = this as unknown as EventsThis;
    self.dispatcher = { again: false, stopping: false };
  },

  started() {
    const self = this as unknown as EventsThis;
    self.dispatcher.task = schedule(loadConfig().events.dispatcherCron, () => { void self.drain(); }, { noOverlap: true });
    void self.drain();
  },

  async stopped() {
    const self = this as unknown as EventsThis;
    self.dispatcher.stopping = true;
    await self.dispatcher.task?.stop();
    await self.dispatcher.running?.catch(() => 0);
  },

  events: {
    [OUTBOX_WRITTEN_EVENT]: {
      handler(this: EventsThis) {
        void this.drain();
      },
    },
  },

  methods: {
    /** Dispatches until the outbox is empty; concurrent calls join the running round (plus one more). */
    drain(this: EventsThis): Promise<number> {
      const state = this.dispatcher;
      if (state.running) {
        state.again = true;
        return state.running;
      }
      const round = (async () => {
        let total = 0;
        try {
          do {
            state.again = false;
            // Parallel loops: SKIP LOCKED gives each its own rows (receivers must not rely on order anyway).
            await Promise.all(Array.from({ length: DISPATCH_LOOPS }, async () => {
              for (;;) {
                if (state.stopping) return;
                const { events, deliveries } = await this.dispatchBatch();
                total += events;
                if (deliveries) void this.broker.broadcast(WAKE_EVENT, { kind: DELIVER_JOB });
                if (events < loadConfig().events.dispatcherBatch) return;
              }
            }));
          } while (state.again && !state.stopping);
        } catch (err) {
          if (!state.stopping) this.logger.error('dispatcher: a batch failed; its events stay in the outbox', err);
        } finally {
          state.running = undefined;
        }
        return total;
      })();
      state.running = round;
      return round;
    },

    async dispatchBatch(this: EventsThis) {
      const em = databaseOf(this.broker).em.fork() as EntityManager;
      return em.transactional(async (tx) => {
        const rows = await tx.find(Event, { dispatchedAt: null }, {
          orderBy: { id: 'asc' }, limit: loadConfig().events.dispatcherBatch, lockMode: LockMode.PESSIMISTIC_PARTIAL_WRITE,
        });
        if (!rows.length) return { events: 0, deliveries: 0 };
        const orgIds = [...new Set(rows.map((r) => r.organization.id))];
        const hooks = await tx.find(Webhook, { organization: { $in: orgIds }, status: 'active' });
        const companyIds = [...new Set(rows.map((r) => r.companyId).filter((c): c is string => !!c))];
        const needTenants = hooks.some((h) => h.companyId === null);
        const tenants = new Map((needTenants && companyIds.length ? await tx.find(Company, { id: { $in: companyIds } }) : []).map((c) => [c.id, c]));
        const offsets = new Map((companyIds.length ? await tx.find(CompanyClock, { companyId: { $in: companyIds } }) : []).map((c) => [c.companyId, Number(c.offsetSeconds)]));
        const wall = systemClock.now();
        // Bulk statements rather than the unit of work: the dispatcher is the hot path of every event.
        const deliveries: Array<RequiredEntityData<WebhookDelivery>> = [];
        const jobs: Array<RequiredEntityData<ScheduledJob>> = [];
        for (const row of rows) {
          const envelope = envelopeOf(row);
          const facts = { type: row.type, livemode: row.livemode, companyId: row.companyId ?? null, data: row.data };
          for (const hook of hooks) {
            if (hook.organization.id !== row.organization.id || !subscribes({ ...hook, companyId: hook.companyId ?? null }, facts)) continue;
            const tenant = row.companyId ? tenants.get(row.companyId) : undefined;
            const payload = payloadFor({ companyId: hook.companyId ?? null }, envelope, tenant ? { id: tenant.id, metadata: tenant.metadata ?? null } : undefined);
            // Due at once, in the company's business time.
            const dueAt = new Date(wall.getTime() + (offsets.get(row.companyId ?? '') ?? 0) * 1000);
            const id = newId('delivery');
            deliveries.push({
              id, webhook: hook.id, organizationId: row.organization.id, companyId: row.companyId ?? null,
              eventId: row.id, eventType: row.type, payload: JSON.stringify(payload), status: 'pending', attempts: 0, attemptLog: [], test: false,
              nextAttemptAt: dueAt, lastStatusCode: null, lastLatencyMs: null, lastError: null, deliveredAt: null, createdAt: wall, updatedAt: wall,
            });
            jobs.push({ id: randomUUID(), kind: DELIVER_JOB, ref: id, companyId: row.companyId ?? null, dueAt, lockedUntil: null, claims: 0, createdAt: wall });
          }
          // Published before the commit: a crash after this line republishes the same event id (at-least-once).
          this.broker.emit(row.type, envelope);
        }
        if (deliveries.length) {
          await tx.insertMany(WebhookDelivery, deliveries);
          await tx.insertMany(ScheduledJob, jobs);
        }
        await tx.nativeUpdate(Event, { id: { $in: rows.map((r) => r.id) } }, { dispatchedAt: wall });
        return { events: rows.length, deliveries: deliveries.length };
      });
    },
  },

  actions: {
    listEvents: implement(listEvents, async (ctx) => {
      const auth = principalOf(ctx);
      const page = readPageRequest(ctx.params);
      const where: Record<string, unknown> = { organization: auth.organizationId, livemode: auth.livemode };
      if (ctx.params.type) where.type = ctx.params.type;
      // A call acting for one company sees that company's events and the organization-level ones.
      if (auth.companyId) where.companyId = { $in: [auth.companyId, null] };
      if (page.after) where.id = { $lt: page.after };
      const rows = await emOf(ctx).find(Event, where, { orderBy: { id: 'desc' }, limit: page.limit + 1 });
      return toPage(rows, page, (r) => r.id, recordOf);
    }),

    ackEvents: implement(ackEvents, async (ctx) => {
      const auth = principalOf(ctx);
      const em = emOf(ctx);
      const ids = [...new Set(ctx.params.eventIds)];
      const where: Record<string, unknown> = { id: { $in: ids }, organization: auth.organizationId, livemode: auth.livemode };
      if (auth.companyId) where.companyId = { $in: [auth.companyId, null] };
      const rows = await em.find(Event, where);
      const now = systemClock.now();
      for (const row of rows) row.acknowledgedAt ??= now;
      await em.flush();
      const found = new Set(rows.map((r) => r.id));
      return { acknowledged: rows.length, eventIds: ids.filter((i) => found.has(i)), notFound: ids.filter((i) => !found.has(i)) };
    }),

    drainOutbox: implement(drainOutbox, async function (this: EventsThis) {
      let dispatched = await this.drain();
      // A round that was already running may have started before the caller's write: run one more.
      dispatched += await this.drain();
      return { dispatched };
    }),
  },
};

export default EventsService;
