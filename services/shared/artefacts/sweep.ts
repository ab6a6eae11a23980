/**
 * The retention-expiry sweep: deletes the bytes of artefacts whose retention has ended, and bytes
 * no artefact names (a put that failed between writing the bytes and the row) once they are older
 * than a grace period. Run on a schedule by the documents service (the owner of the artefact tables,
 * services/documents/artefact-sweep.ts); this module knows only the store.
 *
 * One batch, in three steps, so no transaction waits on the object store:
 *
 * 1. **Claim** (one transaction): up to `batch` due rows, `FOR UPDATE SKIP LOCKED` so replicas share
 *    the work. Each is checked against the retention rule in force now: the longer of the stored
 *    `retain_until` and the country's period (as configured today) from the year of storage, so a
 *    lengthened retention wins (the row is updated to it and kept). Rows under a legal hold
 *    (`artefact_holds`, for the organization or the artefact) are never claimed. The rest get
 *    `sweep_claimed_at`: from then on a put of the same bytes is refused with a retryable error
 *    (artefacts.ts), so no new reference can come to rely on bytes about to go.
 * 2. **Delete the bytes** (no transaction; a remote call for S3), one artefact at a time: a failure is
 *    logged and counted, the artefact stays claimed, and the others go on.
 * 3. **Finish** (another transaction): each artefact whose bytes went becomes a tombstone
 *    (`expired_at`), so documents naming it read as expired, not as missing.
 *
 * A crash between the steps leaves claimed rows; once the claim is older than the lease, the next
 * sweep takes them again and completes them (deleting bytes already gone is a no-op), without
 * checking retention again: the bytes may be gone already. Content is per namespace and one row
 * names it (puts of the same bytes share the row and only lengthen its retention), so bytes are
 * deleted only when the retention of every document naming them has ended.
 *
 * Bytes nobody names: in PostgreSQL, `artefact_contents` is read page by page in the order written
 * (bounded per run, resumed where the last run stopped) and one statement per page deletes the rows
 * older than the grace period that no live row names (a put renews the time of bytes it finds,
 * pg-blob-backend.ts);
 * in the object store, the bucket is listed page by page (bounded per run, resumed where the last
 * run stopped), and each object older than the grace period with no row is adopted as a claimed row
 * and goes through steps 2 and 3.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { systemClock } from '../clock.ts';
import { namespaceKey, parseNamespaceKey, type ArtefactLocation } from './artefact-store.ts';
import type { Artefacts } from './artefacts.ts';
import { retainUntil, type RetentionPolicy } from './retention.ts';
import { S3BlobBackend } from './s3-blob-backend.ts';

export interface SweepOptions {
  /** Business time: what retention and the grace period are measured against. */
  now: Date;
  policy: RetentionPolicy;
  /** Rows claimed per transaction (and objects listed per page). */
  batch: number;
  /** Batches per run at most, of each kind (expired, unnamed): a run is bounded, the next goes on. */
  maxBatches: number;
  /** A claim older than this (wall time) is a crashed sweep's: taken again and completed. */
  leaseMs: number;
  /** Bytes nobody names are kept this long after they were written (a put in progress names them soon). */
  orphanGraceMs: number;
  /** Called once per batch (a log line, a metric): counts and namespaces only, never contents. */
  onBatch?: (batch: SweepBatch) => void;
  /** Test seams: a crash between the steps. */
  afterClaim?: () => void | Promise<void>;
  afterBytesDeleted?: () => void | Promise<void>;
}

export interface SweepBatch {
  kind: 'expired' | 'unnamed';
  /** Artefacts whose bytes were deleted (tombstoned), or unnamed bytes deleted. */
  deleted: number;
  /** Artefacts kept because the retention in force now is longer than the stored one. */
  lengthened: number;
  /** Artefacts whose bytes could not be deleted (left claimed, retried after the lease). */
  failed: number;
  /** Deleted per namespace (`<organization>/<live|test>`). */
  byNamespace: Record<string, number>;
}

export interface SweepReport {
  expired: number;
  unnamed: number;
  lengthened: number;
  failed: number;
  byOrganization: Record<string, { expired: number; unnamed: number }>;
  /** The same per namespace (`<organization>/<live|test>`): one event per organization and mode. */
  byNamespace: Record<string, { expired: number; unnamed: number }>;
}

interface DueRow {
  namespace: string;
  sha256: string;
  location: ArtefactLocation;
  retain_until: Date | null;
  country: string | null;
  created_at: Date;
  sweep_claimed_at: Date | null;
}

interface Claimed { namespace: string; sha256: string; location: ArtefactLocation }

/** No active hold for the organization of `alias.namespace` nor for its artefact. */
const notHeld = (alias: string): string => `not exists (select 1 from artefact_holds h where h.released_at is null
  and h.organization_id = split_part(${alias}.namespace, '/', 1) and (h.sha256 is null or h.sha256 = ${alias}.sha256))`;

/**
 * Where the scans for unnamed bytes stopped (the next run goes on from there, so a run is bounded
 * and still every row is reached): the object store's listing per backend, the PostgreSQL table's
 * (time written, namespace, hash) per store.
 */
const listingCursors = new WeakMap<S3BlobBackend, string>();
const pgCursors = new WeakMap<Artefacts, { at: string; namespace: string; sha256: string }>();

export async function sweepArtefacts(artefacts: Artefacts, em: EntityManager, options: SweepOptions): Promise<SweepReport> {
  const report: SweepReport = { expired: 0, unnamed: 0, lengthened: 0, failed: 0, byOrganization: {}, byNamespace: {} };
  const record = (batch: SweepBatch): void => {
    report[batch.kind] += batch.deleted;
    report.lengthened += batch.lengthened;
    report.failed += batch.failed;
    for (const [ns, n] of Object.entries(batch.byNamespace)) {
      (report.byNamespace[ns] ??= { expired: 0, unnamed: 0 })[batch.kind] += n;
      (report.byOrganization[parseNamespaceKey(ns).organizationId] ??= { expired: 0, unnamed: 0 })[batch.kind] += n;
    }
    options.onBatch?.(batch);
  };

  for (let i = 0; i < options.maxBatches; i++) {
    const { claimed, lengthened, seen } = await claimDue(em, options);
    if (!seen) break;
    const batch = await deleteClaimed(artefacts, em, claimed, options);
    record({ kind: 'expired', ...batch, lengthened });
  }

  const cutoff = new Date(options.now.getTime() - options.orphanGraceMs);
  for (let i = 0; i < options.maxBatches; i++) {
    const after = pgCursors.get(artefacts) ?? { at: '-infinity', namespace: '', sha256: '' };
    const page = await em.fork().execute<Array<{ at: string; namespace: string; sha256: string }>>(
      `select created_at::text as at, namespace, sha256 from artefact_contents
       where created_at < ? and (created_at, namespace, sha256) > (?::timestamptz, ?, ?) order by created_at, namespace, sha256 limit ${options.batch}`,
      [cutoff, after.at, after.namespace, after.sha256], 'all');
    if (page.length === options.batch) pgCursors.set(artefacts, page.at(-1)!); else pgCursors.delete(artefacts);
    const deleted = page.length ? await deleteUnnamedPgBytes(em, page, cutoff) : [];
    if (deleted.length) record({ kind: 'unnamed', deleted: deleted.length, lengthened: 0, failed: 0, byNamespace: countByNamespace(deleted) });
    if (page.length < options.batch) break;
  }

  const s3 = [artefacts.primary].find((b): b is S3BlobBackend => b instanceof S3BlobBackend);
  if (s3) {
    for (let i = 0; i < options.maxBatches; i++) {
      const page = await s3.listPage(listingCursors.get(s3), options.batch);
      if (page.last) listingCursors.set(s3, page.last); else listingCursors.delete(s3);
      const claimed = await adoptUnnamedObjects(em, page.objects.filter((o) => o.lastModified.getTime() < options.now.getTime() - options.orphanGraceMs));
      if (claimed.length) record({ kind: 'unnamed', ...(await deleteClaimed(artefacts, em, claimed, options)), lengthened: 0 });
      if (!page.last) break;
    }
  }
  return report;
}

/**
 * Step 1: claims due rows (retention ended and not held, or claimed by a sweep that did not finish).
 * `seen`: rows looked at (0: nothing left to do).
 */
async function claimDue(em: EntityManager, options: SweepOptions): Promise<{ claimed: Claimed[]; lengthened: number; seen: number }> {
  return em.fork().transactional(async (tx) => {
    const claimedAt = systemClock.now();
    const rows = await tx.execute<DueRow[]>(
      `select a.namespace, a.sha256, a.location, a.retain_until, a.country, a.created_at, a.sweep_claimed_at from artefacts a
       where (a.expired_at is null and a.sweep_claimed_at is null and a.retain_until is not null and a.retain_until <= ? and ${notHeld('a')})
          or a.sweep_claimed_at < ?
       order by a.retain_until nulls first limit ${options.batch} for update of a skip locked`,
      [options.now, new Date(claimedAt.getTime() - options.leaseMs)], 'all');
    const claimed: Claimed[] = [];
    let lengthened = 0;
    for (const row of rows) {
      if (!row.sweep_claimed_at) {
        const ruleNow = retainUntil(options.policy, { livemode: true, country: row.country, storedAt: new Date(row.created_at) });
        if (ruleNow && ruleNow > options.now) {
          // The retention configured now is longer: the longer one wins, and is kept on the row.
          await tx.execute('update artefacts set retain_until = ? where namespace = ? and sha256 = ?', [ruleNow, row.namespace, row.sha256], 'run');
          lengthened++;
          continue;
        }
      }
      await tx.execute('update artefacts set sweep_claimed_at = ? where namespace = ? and sha256 = ?', [claimedAt, row.namespace, row.sha256], 'run');
      claimed.push({ namespace: row.namespace, sha256: row.sha256, location: row.location });
    }
    return { claimed: claimed.map((c) => ({ ...c, claimedAt })), lengthened, seen: rows.length };
  });
}

/**
 * Steps 2 and 3 for claimed rows: their bytes deleted one by one outside any transaction, then
 * those that went tombstoned in one transaction, only while the claim is still this sweep's.
 */
async function deleteClaimed(artefacts: Artefacts, em: EntityManager, claimed: Array<Claimed & { claimedAt?: Date }>, options: SweepOptions): Promise<Omit<SweepBatch, 'kind' | 'lengthened'>> {
  await options.afterClaim?.();
  const gone: Array<Claimed & { claimedAt?: Date }> = [];
  let failed = 0;
  for (const c of claimed) {
    try {
      await artefacts.backendFor(c.location).remove(parseNamespaceKey(c.namespace), c.sha256);
      gone.push(c);
    } catch {
      failed++;
    }
  }
  await options.afterBytesDeleted?.();
  const done: Claimed[] = [];
  if (gone.length) {
    await em.fork().transactional(async (tx) => {
      for (const c of gone) {
        const rows = await tx.execute<unknown[]>(
          'update artefacts set expired_at = ?, sweep_claimed_at = null where namespace = ? and sha256 = ? and sweep_claimed_at = ? returning 1',
          [options.now, c.namespace, c.sha256, c.claimedAt], 'all');
        if (rows.length) done.push(c);
      }
    });
  }
  return { deleted: done.length, failed, byNamespace: countByNamespace(done) };
}

/**
 * Of one page of PostgreSQL bytes older than the grace period, those no live row names and no hold
 * covers: deleted in one statement (the conditions are checked again on the locked rows, so bytes a
 * put renewed meanwhile stay).
 */
async function deleteUnnamedPgBytes(em: EntityManager, page: Array<{ namespace: string; sha256: string }>, cutoff: Date): Promise<Array<{ namespace: string }>> {
  return em.fork().execute<Array<{ namespace: string }>>(
    `delete from artefact_contents c where (c.namespace, c.sha256) in (
       select o.namespace, o.sha256 from artefact_contents o
       where (o.namespace, o.sha256) in (${page.map(() => '(?, ?)').join(', ')}) and o.created_at < ? and ${notHeld('o')}
         and not exists (select 1 from artefacts a where a.namespace = o.namespace and a.sha256 = o.sha256 and a.location = 'pg' and a.expired_at is null)
       for update of o skip locked)
     returning c.namespace`,
    [...page.flatMap((p) => [p.namespace, p.sha256]), cutoff], 'all');
}

/**
 * Objects older than the grace period that no row names (or only a tombstone does: a revive that
 * failed after writing) become claimed rows, so a put of the same bytes meanwhile waits for the
 * deletion instead of naming bytes about to go. Objects under a hold are left alone.
 */
async function adoptUnnamedObjects(em: EntityManager, objects: Array<{ namespace: { organizationId: string; livemode: boolean }; sha256: string; size: number }>): Promise<Array<Claimed & { claimedAt: Date }>> {
  const out: Array<Claimed & { claimedAt: Date }> = [];
  for (const o of objects) {
    const claimedAt = systemClock.now();
    const ns = namespaceKey(o.namespace);
    const adopted = await em.fork().execute<unknown[]>(
      `insert into artefacts (namespace, sha256, size, content_type, location, retain_until, country, created_at, sweep_claimed_at)
       select ?, ?, ?, 'application/octet-stream', 's3', null, null, ?, ?
       where not exists (select 1 from artefact_holds h where h.released_at is null and h.organization_id = ? and (h.sha256 is null or h.sha256 = ?))
       on conflict (namespace, sha256) do update set sweep_claimed_at = excluded.sweep_claimed_at
       where artefacts.expired_at is not null and artefacts.sweep_claimed_at is null
       returning 1`,
      [ns, o.sha256, o.size, claimedAt, claimedAt, o.namespace.organizationId, o.sha256], 'all');
    if (adopted.length) out.push({ namespace: ns, sha256: o.sha256, location: 's3', claimedAt });
  }
  return out;
}

function countByNamespace(rows: Array<{ namespace: string }>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of rows) out[r.namespace] = (out[r.namespace] ?? 0) + 1;
  return out;
}
