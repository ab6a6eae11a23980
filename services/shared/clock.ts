/**
 * The one source of business time. Everything that stamps or compares business deadlines asks
 * here, so the sandbox's per-company virtual clock can move it.
 *
 * - `systemClock`: wall time, for anything not tied to a company (and what existing callers use).
 * - `companyClock(em, companyId)`: the company's business time. In the sandbox a company can be
 *   moved forward (`POST /v1/sandbox/clock/advance`): its time is wall time plus an offset kept in
 *   `company_clocks`, shared by every replica. Without a row it is wall time. The clock service is
 *   the table's only writer; it is the one table of the shared kernel because every service reads
 *   business time inside its own transaction (an event's time and the change it records agree).
 *
 * Signature timestamps and leases are not business time: they stay on `systemClock`.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { CompanyClock } from './persistence/company-clock.entity.ts';
import { loadConfig } from './config.ts';

/**
 * Offsets read recently, by company. A send reads its company's business time five times (send,
 * its event, delivery, the receiver's inbox and events), each in its own transaction; nearly every
 * company has no row. The clock service drops an entry as it writes it (so its own process reads
 * its writes at once) and broadcasts CLOCK_CHANGED_EVENT so the other replicas drop theirs
 * (mixins/business-clock.mixin.ts); EINV_CLOCK_CACHE_TTL_MS bounds the rest.
 */
export const CLOCK_CHANGED_EVENT = 'clock.changed';
const MAX_CACHED_OFFSETS = 10_000;
const cachedOffsets = new Map<string, { offset: number; until: number }>();
let cacheTtlMs: number | undefined;

/** Drops a company's cached offset (every company's without an id). */
export function forgetClockOffset(companyId?: string): void {
  if (companyId) cachedOffsets.delete(companyId); else cachedOffsets.clear();
}

function cachedOffset(companyId: string): number | undefined {
  const hit = cachedOffsets.get(companyId);
  if (!hit) return undefined;
  if (hit.until > Date.now()) return hit.offset;
  cachedOffsets.delete(companyId);
  return undefined;
}

function keepOffset(companyId: string, offset: number): void {
  cacheTtlMs ??= loadConfig().clockCacheTtlMs;
  if (!cacheTtlMs) return;
  if (cachedOffsets.size >= MAX_CACHED_OFFSETS) cachedOffsets.clear();
  cachedOffsets.set(companyId, { offset, until: Date.now() + cacheTtlMs });
}

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock running `offsetSeconds` ahead of `base`. */
export function offsetClock(offsetSeconds: number, base: Clock = systemClock): Clock {
  if (!offsetSeconds) return base;
  return { now: () => new Date(base.now().getTime() + offsetSeconds * 1000) };
}

/** Offset of a company's virtual clock in seconds (0 when it runs on wall time). */
export async function clockOffsetOf(em: EntityManager, companyId: string | null | undefined): Promise<number> {
  if (!companyId) return 0;
  const cached = cachedOffset(companyId);
  if (cached !== undefined) return cached;
  const row = await em.findOne(CompanyClock, { companyId }, { disableIdentityMap: true });
  const offset = row ? Number(row.offsetSeconds) : 0;
  keepOffset(companyId, offset);
  return offset;
}

/** Offsets of several companies' clocks at once (companies without a row are left out: wall time). */
export async function clockOffsetsOf(em: EntityManager, companyIds: Iterable<string>): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const missing: string[] = [];
  for (const id of new Set(companyIds)) {
    const cached = cachedOffset(id);
    if (cached === undefined) missing.push(id); else if (cached) out.set(id, cached);
  }
  if (!missing.length) return out;
  const rows = await em.find(CompanyClock, { companyId: { $in: missing } }, { disableIdentityMap: true });
  const found = new Map(rows.map((r) => [r.companyId, Number(r.offsetSeconds)]));
  for (const id of missing) {
    const offset = found.get(id) ?? 0;
    keepOffset(id, offset);
    if (offset) out.set(id, offset);
  }
  return out;
}

/** The business clock of a company (wall time for null, live companies and untouched sandboxes). */
export async function companyClock(em: EntityManager, companyId: string | null | undefined): Promise<Clock> {
  return offsetClock(await clockOffsetOf(em, companyId));
}

const UNIT_SECONDS = { h: 3_600, d: 86_400, w: 7 * 86_400, m: 30 * 86_400, y: 365 * 86_400 } as const;

/** Compact durations of the sandbox clock: `1h`, `3d`, `2w`, `1m` (30 days), `1y` (365 days). */
export const COMPACT_DURATION = /^([1-9]\d{0,3})([hdwmy])$/;

export function parseCompactDuration(value: string): number | undefined {
  const m = COMPACT_DURATION.exec(value);
  if (!m) return undefined;
  return Number(m[1]) * UNIT_SECONDS[m[2] as keyof typeof UNIT_SECONDS];
}
