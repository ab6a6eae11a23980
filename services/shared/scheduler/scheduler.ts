/**
 * The one scheduling mechanism: due-time rows in `scheduled_jobs`, claimed with
 * FOR UPDATE SKIP LOCKED and leased, so any number of replicas can run it. A row is due when its
 * company's business time (wall time plus the sandbox clock offset, read in the same query) has
 * reached `dueAt`. The node-cron tick and the wake-ups live in mixins/scheduler.mixin.ts; these are
 * the SQL verbs, all usable inside the caller's transaction.
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { systemClock } from '../clock.ts';
import { ScheduledJob } from './scheduled-job.entity.ts';

export interface ClaimedJob {
  id: string;
  kind: string;
  ref: string;
  companyId: string | null;
  dueAt: Date;
  claims: number;
}

export interface JobInput {
  kind: string;
  ref: string;
  companyId?: string | null;
  /** In the company's business time (see services/shared/clock.ts companyClock). */
  dueAt: Date;
}

/** Adds due-time rows in the caller's unit of work (persisted by its flush / transaction). */
export function scheduleJobs(em: EntityManager, jobs: JobInput[]): void {
  for (const job of jobs) {
    em.create(ScheduledJob, { id: randomUUID(), kind: job.kind, ref: job.ref, companyId: job.companyId ?? null, dueAt: job.dueAt, lockedUntil: null, claims: 0 });
  }
}

/** Inserts due-time rows at once, in one statement (hot paths: one row per webhook delivery). */
export async function insertJobs(em: EntityManager, jobs: JobInput[]): Promise<void> {
  if (!jobs.length) return;
  const wall = systemClock.now();
  await em.insertMany(ScheduledJob, jobs.map((job) => ({ id: randomUUID(), kind: job.kind, ref: job.ref, companyId: job.companyId ?? null, dueAt: job.dueAt, lockedUntil: null, claims: 0, createdAt: wall })));
}

/** Creates or moves the job of (kind, ref) to `dueAt`, unlocked. */
export async function upsertJob(em: EntityManager, job: JobInput): Promise<void> {
  await em.execute(
    `insert into scheduled_jobs (id, kind, ref, company_id, due_at, locked_until, claims, created_at)
     values (?, ?, ?, ?, ?, null, 0, ?)
     on conflict (kind, ref) do update set due_at = excluded.due_at, company_id = excluded.company_id, locked_until = null`,
    [randomUUID(), job.kind, job.ref, job.companyId ?? null, job.dueAt, systemClock.now()],
    'run',
  );
}

const placeholders = (n: number) => Array.from({ length: n }, () => '?').join(', ');

/**
 * Claims up to `limit` due jobs of the given kinds and leases them for `leaseMs` (committed at
 * once, so a slow handler holds no transaction open; a crashed claimer's lease simply runs out).
 */
export async function claimDueJobs(em: EntityManager, kinds: readonly string[], limit: number, leaseMs: number): Promise<ClaimedJob[]> {
  if (!kinds.length) return [];
  const wall = systemClock.now();
  const rows = await em.execute<Array<{ id: string; kind: string; ref: string; company_id: string | null; due_at: Date; claims: number }>>(
    `update scheduled_jobs j set locked_until = ?, claims = j.claims + 1
     where j.id in (
       select s.id from scheduled_jobs s left join company_clocks c on c.company_id = s.company_id
       where s.kind in (${placeholders(kinds.length)})
         and s.due_at <= ?::timestamptz + make_interval(secs => coalesce(c.offset_seconds, 0))
         and (s.locked_until is null or s.locked_until < ?)
       order by s.due_at
       limit ?
       for update of s skip locked)
     returning j.id, j.kind, j.ref, j.company_id, j.due_at, j.claims`,
    [new Date(wall.getTime() + leaseMs), ...kinds, wall, wall, limit],
  );
  return rows.map((r) => ({ id: r.id, kind: r.kind, ref: r.ref, companyId: r.company_id, dueAt: new Date(r.due_at), claims: r.claims }));
}

/** Jobs of each kind due now (in their company's business time) and not leased: the scheduler's backlog. */
export async function countDueJobs(em: EntityManager, kinds: readonly string[]): Promise<Record<string, number>> {
  const counts: Record<string, number> = Object.fromEntries(kinds.map((k) => [k, 0]));
  if (!kinds.length) return counts;
  const wall = systemClock.now();
  const rows = await em.execute<Array<{ kind: string; due: string }>>(
    `select s.kind, count(*) as due from scheduled_jobs s left join company_clocks c on c.company_id = s.company_id
     where s.kind in (${placeholders(kinds.length)})
       and s.due_at <= ?::timestamptz + make_interval(secs => coalesce(c.offset_seconds, 0))
       and (s.locked_until is null or s.locked_until < ?)
     group by s.kind`,
    [...kinds, wall, wall],
  );
  for (const r of rows) counts[r.kind] = Number(r.due);
  return counts;
}

/** Removes finished jobs. */
export async function completeJobs(em: EntityManager, ids: readonly string[]): Promise<void> {
  if (!ids.length) return;
  await em.execute(`delete from scheduled_jobs where id in (${placeholders(ids.length)})`, [...ids], 'run');
}

/** Drops the jobs of these kinds for one ref (the thing they were for is gone). */
export async function cancelJobs(em: EntityManager, kinds: readonly string[], ref: string): Promise<void> {
  if (!kinds.length) return;
  await em.execute(`delete from scheduled_jobs where kind in (${placeholders(kinds.length)}) and ref = ?`, [...kinds, ref], 'run');
}

/** Moves a claimed job to a new due time and releases its lease. */
export async function rescheduleJob(em: EntityManager, id: string, dueAt: Date): Promise<void> {
  await em.execute(`update scheduled_jobs set due_at = ?, locked_until = null where id = ?`, [dueAt, id], 'run');
}

/** Releases leases early (e.g. after a handler error) so the jobs run again after `retryMs`. */
export async function releaseJobs(em: EntityManager, ids: readonly string[], retryMs: number): Promise<void> {
  if (!ids.length) return;
  await em.execute(
    `update scheduled_jobs set locked_until = ? where id in (${placeholders(ids.length)})`,
    [new Date(systemClock.now().getTime() + retryMs), ...ids],
    'run',
  );
}
