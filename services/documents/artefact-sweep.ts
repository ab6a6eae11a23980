/**
 * The documents service's side of the retention sweep (services/shared/artefacts/sweep.ts): its
 * schedule (EINV_ARTEFACT_SWEEP_CRON, node-cron like the other pollers; every replica runs it and
 * FOR UPDATE SKIP LOCKED shares the rows), a log line and metric per batch (counts and namespaces,
 * never contents), an `artefacts.swept` event per organization and mode in the event log, and the
 * legal holds that stop it (`artefact_holds`, a table of this service).
 */
import type { Context, Service, ServiceBroker } from 'moleculer';

type LoggerInstance = Service['logger'];
import type { EntityManager } from '@mikro-orm/postgresql';
import { schedule, type ScheduledTask } from 'node-cron';
import { emOf } from '../../mixins/orm.mixin.ts';
import { recordEvent } from '../../mixins/outbox.mixin.ts';
import { OUTBOX_WRITTEN_EVENT } from '../events/events.contract.ts';
import { parseNamespaceKey } from '../shared/artefacts/artefact-store.ts';
import { systemClock } from '../shared/clock.ts';
import { databaseOf } from '../shared/persistence/database.ts';
import { notFound } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { countMetric } from '../shared/metrics.ts';
import { sweepSettingsFromEnv } from '../shared/artefacts/settings.ts';
import { sweepArtefacts, type SweepBatch, type SweepReport } from '../shared/artefacts/sweep.ts';
import { artefactsOf, retentionPolicyOf } from './originals.ts';
import type { ArtefactHold } from './artefacts.contract.ts';

/** One sweep run now: business time is wall time (retention is not a sandbox company's clock). */
export async function runArtefactSweep(broker: ServiceBroker, logger: LoggerInstance, now: Date = systemClock.now()): Promise<SweepReport> {
  const settings = sweepSettingsFromEnv();
  const report = await sweepArtefacts(artefactsOf(broker), databaseOf(broker).em as EntityManager, {
    now, policy: retentionPolicyOf(broker), batch: settings.batch, maxBatches: settings.maxBatches, leaseMs: settings.leaseMs, orphanGraceMs: settings.orphanGraceMs,
    onBatch: (batch) => observeBatch(broker, logger, batch),
  });
  await recordSweepEvents(broker, report, now);
  if (report.expired || report.unnamed || report.failed) {
    logger.info(`Artefact sweep: ${report.expired} expired, ${report.unnamed} unnamed deleted, ${report.lengthened} kept for a lengthened retention, ${report.failed} failed (retried after the lease)`);
  }
  return report;
}

/**
 * One `artefacts.swept` event per organization and mode the run deleted something of (log-only: in
 * the event log, `GET /v1/events`, never sent to webhooks), in one transaction after the run.
 */
async function recordSweepEvents(broker: ServiceBroker, report: SweepReport, now: Date): Promise<void> {
  const entries = Object.entries(report.byNamespace);
  if (!entries.length) return;
  await (databaseOf(broker).em as EntityManager).fork().transactional(async (tx) => {
    for (const [ns, counts] of entries) {
      const { organizationId, livemode } = parseNamespaceKey(ns);
      await recordEvent(tx, { organizationId, livemode, type: 'artefacts.swept', data: { expired: counts.expired, unnamed: counts.unnamed, sweptAt: now.toISOString() } });
    }
  });
  void broker.broadcast(OUTBOX_WRITTEN_EVENT, {});
}

function observeBatch(broker: ServiceBroker, logger: LoggerInstance, batch: SweepBatch): void {
  const outcomes = { [batch.kind]: batch.deleted, lengthened: batch.lengthened, failed: batch.failed };
  for (const [outcome, n] of Object.entries(outcomes)) if (n) countMetric(broker, 'artefactsSwept', { outcome }, n);
  const namespaces = Object.entries(batch.byNamespace).map(([ns, n]) => `${ns}=${n}`).join(' ');
  (batch.failed ? logger.warn : logger.info).call(logger, `Artefact sweep batch (${batch.kind}): ${batch.deleted} deleted, ${batch.lengthened} lengthened, ${batch.failed} failed${namespaces ? `; by namespace ${namespaces}` : ''}`);
}

/** Starts the schedule (none when EINV_ARTEFACT_SWEEP_CRON=off). A failed run is logged; the next tick runs again. */
export function scheduleArtefactSweep(broker: ServiceBroker, logger: LoggerInstance): ScheduledTask | undefined {
  const { cron } = sweepSettingsFromEnv();
  if (!cron) return undefined;
  return schedule(cron, async () => {
    try {
      await runArtefactSweep(broker, logger);
    } catch (err) {
      logger.warn(`Artefact sweep: the run failed, the next tick tries again: ${(err as Error).message}`);
    }
  }, { noOverlap: true, timezone: 'UTC' });
}

interface HoldRow { id: string; organization_id: string; sha256: string | null; reason: string; created_at: Date; released_at: Date | null }

const holdView = (row: HoldRow): ArtefactHold => ({
  id: row.id, organizationId: row.organization_id, sha256: row.sha256, reason: row.reason,
  createdAt: new Date(row.created_at).toISOString(), releasedAt: row.released_at ? new Date(row.released_at).toISOString() : null,
});

export async function placeHold(ctx: Context, params: { organizationId: string; sha256?: string | undefined; reason: string }): Promise<ArtefactHold> {
  const em = emOf(ctx);
  const { organizationId, sha256, reason } = params;
  if (sha256) {
    const known = await em.fork().execute<unknown[]>('select 1 from artefacts where split_part(namespace, \'/\', 1) = ? and sha256 = ? limit 1', [organizationId, sha256], 'all');
    if (!known.length) throw notFound('Artefact of this organization', sha256);
  }
  const rows = await em.fork().execute<HoldRow[]>(
    'insert into artefact_holds (id, organization_id, sha256, reason, created_at) values (?, ?, ?, ?, ?) returning *',
    [newId('artefactHold'), organizationId, sha256 ?? null, reason, systemClock.now()], 'all');
  return holdView(rows[0]!);
}

export async function releaseHold(ctx: Context, params: { organizationId: string; id: string }): Promise<ArtefactHold> {
  const rows = await emOf(ctx).fork().execute<HoldRow[]>(
    'update artefact_holds set released_at = coalesce(released_at, ?) where id = ? and organization_id = ? returning *',
    [systemClock.now(), params.id, params.organizationId], 'all');
  if (!rows[0]) throw notFound('Legal hold', params.id);
  return holdView(rows[0]);
}

export async function listHolds(ctx: Context, params: { organizationId: string }): Promise<{ data: ArtefactHold[] }> {
  const rows = await emOf(ctx).fork().execute<HoldRow[]>(
    'select * from artefact_holds where organization_id = ? order by released_at is not null, created_at desc limit 1000', [params.organizationId], 'all');
  return { data: rows.map(holdView) };
}
