/**
 * events: the outbox dispatcher and the event log.
 *
 * Dispatcher: claims committed, undispatched event rows with FOR UPDATE SKIP LOCKED (so replicas
 * share the work), publishes each on the broker under its type and stamps `dispatchedAt`. A crash
 * before the commit leaves the rows to be claimed again (broker publication is at-least-once).
 * Woken by every outbox write and by a node-cron poll.
 *
 * Feed: followers that must see every event exactly once (webhooks) read the committed feed with a
 * cursor of their own (`readFeed`), kept in their own tables; this service writes nothing of theirs.
 */
import type { Service, ServiceSchema } from 'moleculer';
import { IsolationLevel, LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { OrmMixin, emOf } from '../../mixins/orm.mixin.ts';
import { implement } from '../shared/contract.ts';
import { principalOf } from '../shared/auth.ts';
import { systemClock } from '../shared/clock.ts';
import { loadConfig } from '../shared/config.ts';
import { DrainLoop } from '../shared/drain-loop.ts';
import { readPageRequest, toPage } from '../shared/pagination.ts';
import { databaseOf } from '../shared/persistence/database.ts';
import { Event } from './event.entity.ts';
import { decodeTime } from 'ulid';
import { call } from '../shared/call.ts';
import { sampleWhileMetricsOn, setMetric } from '../shared/metrics.ts';
import { listEvents, ackEvents, drainOutbox, readFeed, findEvent, resetSandbox, complianceReportCounts, outboxLag, OUTBOX_WRITTEN_EVENT, type EventEnvelope, type EventRecord, type FeedEvent } from './events.contract.ts';

export function envelopeOf(row: Event): EventEnvelope {
  return { id: row.id, type: row.type, livemode: row.livemode, createdAt: row.createdAt.toISOString(), apiVersion: row.apiVersion, data: row.data };
}

function feedEventOf(row: Event): FeedEvent {
  return { envelope: envelopeOf(row), organizationId: row.organizationId, companyId: row.companyId ?? null };
}

function recordOf(row: Event): EventRecord {
  return { ...envelopeOf(row), companyId: row.companyId ?? null, acknowledged: row.acknowledgedAt != null, acknowledgedAt: row.acknowledgedAt?.toISOString() ?? null };
}

/** Dispatch transactions run side by side in one instance. */
const DISPATCH_LOOPS = 3;

type EventsThis = Service & { dispatcher: DrainLoop; dispatchBatch(): Promise<number>; stopLagSampler?: () => void };

interface FeedRow { tx_id: string; id: string }

const EventsService: ServiceSchema = {
  name: 'events',
  mixins: [OrmMixin],

  created() {
    const self = this as unknown as EventsThis;
    // Parallel loops per pass: SKIP LOCKED gives each its own rows (receivers must not rely on order anyway).
    self.dispatcher = new DrainLoop(async (stopping) => {
      let total = 0;
      await Promise.all(Array.from({ length: DISPATCH_LOOPS }, async () => {
        while (!stopping()) {
          const events = await self.dispatchBatch();
          total += events;
          if (events < loadConfig().events.dispatcherBatch) return;
        }
      }));
      return total;
    }, (err) => self.logger.error('dispatcher: a batch failed; its events stay in the outbox', err));
  },

  started() {
    const self = this as unknown as EventsThis;
    self.dispatcher.start(loadConfig().events.dispatcherCron);
    // Outbox lag for the metrics endpoint, read through the action like any other reader would.
    self.stopLagSampler = sampleWhileMetricsOn(this.broker, loadConfig().observability.metrics?.pollMs, async () => {
      const lag = await call(this.broker, outboxLag, {});
      setMetric(this.broker, 'outboxPending', lag.pending);
      setMetric(this.broker, 'outboxLag', lag.oldestAgeSeconds);
    });
  },

  async stopped() {
    (this as unknown as EventsThis).stopLagSampler?.();
    await (this as unknown as EventsThis).dispatcher.stop();
  },

  events: {
    [OUTBOX_WRITTEN_EVENT]: {
      handler(this: EventsThis) {
        void this.dispatcher.run();
      },
    },
  },

  methods: {
    async dispatchBatch(this: EventsThis) {
      const em = databaseOf(this.broker).em.fork() as EntityManager;
      return em.transactional(async (tx) => {
        const rows = await tx.find(Event, { dispatchedAt: null }, {
          orderBy: { id: 'asc' }, limit: loadConfig().events.dispatcherBatch, lockMode: LockMode.PESSIMISTIC_PARTIAL_WRITE,
        });
        if (!rows.length) return 0;
        // Published before the commit: a crash after this line republishes the same event ids (at-least-once).
        for (const row of rows) this.broker.emit(row.type, envelopeOf(row));
        await tx.nativeUpdate(Event, { id: { $in: rows.map((r) => r.id) } }, { dispatchedAt: systemClock.now() });
        return rows.length;
      });
    },
  },

  actions: {
    listEvents: implement(listEvents, async (ctx) => {
      const auth = principalOf(ctx);
      const page = readPageRequest(ctx.params);
      const where: Record<string, unknown> = { organizationId: auth.organizationId, livemode: auth.livemode };
      if (ctx.params.type) where.type = ctx.params.type;
      // A call acting for one company sees that company's events and the organization-level ones.
      if (auth.companyId) where.$or = [{ companyId: auth.companyId }, { companyId: null }];
      if (page.after) where.id = { $lt: page.after };
      const rows = await emOf(ctx).find(Event, where, { orderBy: { id: 'desc' }, limit: page.limit + 1 });
      return toPage(rows, page, (r) => r.id, recordOf);
    }),

    ackEvents: implement(ackEvents, async (ctx) => {
      const auth = principalOf(ctx);
      const em = emOf(ctx);
      const ids = [...new Set(ctx.params.eventIds)];
      const where: Record<string, unknown> = { id: { $in: ids }, organizationId: auth.organizationId, livemode: auth.livemode };
      if (auth.companyId) where.$or = [{ companyId: auth.companyId }, { companyId: null }];
      const rows = await em.find(Event, where);
      const now = systemClock.now();
      for (const row of rows) row.acknowledgedAt ??= now;
      await em.flush();
      const found = new Set(rows.map((r) => r.id));
      return { acknowledged: rows.length, eventIds: ids.filter((i) => found.has(i)), notFound: ids.filter((i) => !found.has(i)) };
    }),

    /**
     * One read-only REPEATABLE READ transaction, so the horizon and the rows come from one snapshot:
     * every transaction below the snapshot's xmin has ended, so nothing can still commit behind the
     * cursor this page returns.
     */
    readFeed: implement(readFeed, async (ctx) => {
      const { after, limit } = ctx.params;
      const em = emOf(ctx);
      const page = await em.transactional(async (tx) => tx.execute<FeedRow[]>(
        `select tx_id::text as tx_id, id from events
          where (tx_id > ?::bigint or (tx_id = ?::bigint and ?::text is not null and id > ?::text))
            and tx_id < pg_snapshot_xmin(pg_current_snapshot())::text::bigint
          order by tx_id, id limit ?`,
        [after.txId, after.txId, after.eventId, after.eventId, limit], 'all'),
      { isolationLevel: IsolationLevel.REPEATABLE_READ, readOnly: true });
      if (!page.length) return { events: [], cursor: after };
      const rows = new Map((await em.find(Event, { id: { $in: page.map((r) => r.id) } })).map((r) => [r.id, r]));
      const last = page[page.length - 1]!;
      return { events: page.map((r) => feedEventOf(rows.get(r.id)!)), cursor: { txId: last.tx_id, eventId: last.id } };
    }),

    resetSandbox: implement(resetSandbox, async (ctx) => {
      const { organizationId, companyId } = ctx.params;
      const res = await emOf(ctx).execute<{ affectedRows?: number }>(
        `delete from events where organization_id = ? and not livemode${companyId ? ' and company_id = ?' : ''}`, companyId ? [organizationId, companyId] : [organizationId], 'run');
      return { events: res.affectedRows ?? 0 };
    }),

    complianceReportCounts: implement(complianceReportCounts, async (ctx) => {
      const { organizationId, livemode, companyId, from, to } = ctx.params;
      // Served by events_usage_index (organization, mode, type, created_at).
      const rows = await emOf(ctx).execute<Array<{ company_id: string | null; status: string | null; n: string }>>(
        `select company_id, data->>'status' as status, count(*) as n from events
         where organization_id = ? and livemode = ? and type = 'compliance.reported' and created_at >= ? and created_at < ?${companyId ? ' and company_id = ?' : ''}
         group by company_id, data->>'status'`,
        [organizationId, livemode, new Date(from), new Date(to), ...(companyId ? [companyId] : [])], 'all');
      const counts = { reported: 0, failed: 0, byCompany: {} as Record<string, number> };
      for (const r of rows) {
        const n = Number(r.n);
        if (r.status === 'failed') counts.failed += n;
        else counts.reported += n;
        if (r.company_id) counts.byCompany[r.company_id] = (counts.byCompany[r.company_id] ?? 0) + n;
      }
      return counts;
    }),

    findEvent: implement(findEvent, async (ctx) => {
      const { organizationId, id, livemode, companyId } = ctx.params;
      const row = await emOf(ctx).findOne(Event, { id, organizationId, livemode, ...(companyId ? { companyId } : {}) });
      return row ? feedEventOf(row) : null;
    }),

    /**
     * Undispatched rows are few (the dispatcher drains them within a tick) and sit in the outbox's
     * partial index. The age comes from the oldest id's ULID (wall time at the write), not from
     * `createdAt`, which a sandbox clock may have moved.
     */
    outboxLag: implement(outboxLag, async (ctx) => {
      const [row] = await emOf(ctx).execute<Array<{ pending: string; oldest: string | null }>>(
        'select count(*) as pending, min(id) as oldest from events where dispatched_at is null', [], 'all');
      const writtenAt = row?.oldest ? decodeTime(row.oldest.slice(row.oldest.indexOf('_') + 1)) : null;
      return { pending: Number(row?.pending ?? 0), oldestAgeSeconds: writtenAt === null ? 0 : Math.max(0, (Date.now() - writtenAt) / 1000) };
    }),

    drainOutbox: implement(drainOutbox, async function (this: EventsThis) {
      let dispatched = await this.dispatcher.run();
      // A round that was already running may have started before the caller's write: run one more.
      dispatched += await this.dispatcher.run();
      return { dispatched };
    }),
  },
};

export default EventsService;
