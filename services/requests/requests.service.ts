import type { Context, ServiceSchema } from 'moleculer';
import { implement } from '../shared/contract.ts';
import { call } from '../shared/call.ts';
import { principalOf, type Principal } from '../shared/auth.ts';
import { DomainError, notFound } from '../shared/errors.ts';
import { systemClock } from '../shared/clock.ts';
import { loadConfig } from '../shared/config.ts';
import { readPageRequest, toPage } from '../shared/pagination.ts';
import { OrmMixin, emOf } from '../../mixins/orm.mixin.ts';
import { organizationProfile } from '../tenancy/tenancy.contract.ts';
import { planRateLimits } from '../limits/limits.contract.ts';
import { RequestLogEntry } from './request-log-entry.entity.ts';
import { prune, ingest, listRequests, summary, timeseries, getRequest, errorCounts, forgetOrganization, type RequestView, type RequestTrace, type SummaryRow, type TimeseriesRow } from './requests.contract.ts';
import { likeLiteral } from '../shared/pg-text.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Widest window a chart may ask for, per bucket (at most 1,440 minutes or 744 hours). */
const MAX_RANGE_MS = { minute: DAY, hour: 31 * DAY } as const;

function badRange(message: string): DomainError {
  return new DomainError('INVALID_REQUEST', message, { details: [{ field: 'since', rule: 'range', message }] });
}

function window(params: { since?: Date; until?: Date }, defaultMs: number, maxMs: number): { since: Date; until: Date } {
  const until = params.until ?? systemClock.now();
  const since = params.since ?? new Date(until.getTime() - defaultMs);
  if (since.getTime() >= until.getTime()) throw badRange("'since' must be before 'until'");
  if (until.getTime() - since.getTime() > maxMs) throw badRange(`The window may span at most ${maxMs / HOUR} hours`);
  return { since, until };
}

function view(row: RequestLogEntry): RequestView {
  return {
    id: row.id, method: row.method, path: row.path, status: row.status, apiKeyId: row.apiKeyId ?? null, userId: row.userId ?? null,
    errorCode: row.errorCode ?? null, durationMs: Number(row.durationMs), createdAt: row.createdAt.toISOString(),
  };
}

function trace(row: RequestLogEntry): RequestTrace {
  return {
    ...view(row),
    organizationId: row.organizationId,
    action: row.action ?? null,
    upstreamCalls: row.upstreamCalls ?? [],
    validation: row.validation ?? [],
    idempotencyKey: row.idempotencyKey ?? null,
    replayed: row.replayed,
    timing: { receivedAt: row.createdAt.toISOString(), completedAt: new Date(row.createdAt.getTime() + Number(row.durationMs)).toISOString(), durationMs: Number(row.durationMs) },
  };
}

/** Organizations the caller may chart: its own, and for JWT users every one its token grants. */
function visibleOrganizations(auth: Principal): string[] {
  const granted = (auth as Principal & { organizationIds?: string[] }).organizationIds ?? [];
  return [auth.organizationId, ...granted];
}

async function rateLimitOf(ctx: Context, organizationId: string): Promise<number> {
  const profile = await call(ctx, organizationProfile, { organizationId });
  return planRateLimits(loadConfig().rateLimitOverrides)[profile?.plan ?? 'free'];
}

const num = (v: unknown) => Number(v ?? 0);

/** Rows deleted per statement while pruning, so a large backlog never holds one long lock. */
const PRUNE_BATCH = 5000;
const PRUNE_EVERY_MS = 3_600_000;

const RequestsService: ServiceSchema & { pruner?: NodeJS.Timeout } = {
  name: 'requests',
  mixins: [OrmMixin],

  started() {
    this.pruner = setInterval(() => {
      call(this.broker, prune, {}).catch((err: unknown) => this.logger.warn('request log: pruning failed:', err));
    }, PRUNE_EVERY_MS);
    this.pruner.unref();
  },

  stopped() {
    if (this.pruner) clearInterval(this.pruner);
  },

  actions: {
    prune: implement(prune, async (ctx) => {
      const days = ctx.params.olderThanDays ?? loadConfig().requestLogRetentionDays;
      const cutoff = new Date(systemClock.now().getTime() - days * DAY);
      const em = emOf(ctx);
      let deleted = 0;
      for (;;) {
        const res = await em.execute<{ affectedRows?: number }>(
          `delete from request_log where ctid in (select ctid from request_log where created_at < ? limit ${PRUNE_BATCH})`, [cutoff], 'run',
        );
        deleted += res.affectedRows ?? 0;
        if ((res.affectedRows ?? 0) < PRUNE_BATCH) return { deleted };
      }
    }),

    /** One multi-row insert per batch; a request id seen twice (a retried batch) is kept once. */
    ingest: implement(ingest, async (ctx) => {
      const { entries } = ctx.params;
      if (!entries.length) return { written: 0 };
      const columns = ['id', 'organization_id', 'method', 'path', 'status', 'error_code', 'api_key_id', 'user_id', 'action', 'duration_ms', 'upstream_calls', 'validation', 'idempotency_key', 'replayed', 'created_at'];
      const values: unknown[] = [];
      for (const e of entries) {
        values.push(e.id, e.organizationId, e.method, e.path.slice(0, 2048), e.status, e.errorCode, e.apiKeyId, e.userId, e.action, e.durationMs,
          e.upstreamCalls ? JSON.stringify(e.upstreamCalls) : null, e.validation ? JSON.stringify(e.validation) : null, e.idempotencyKey, e.replayed, new Date(e.createdAt));
      }
      const row = `(${columns.map(() => '?').join(', ')})`;
      const res = await emOf(ctx).execute<{ affectedRows?: number }>(
        `insert into request_log (${columns.map((c) => `"${c}"`).join(', ')}) values ${entries.map(() => row).join(', ')} on conflict (id) do nothing`,
        values, 'run',
      );
      return { written: res.affectedRows ?? entries.length };
    }),

    list: implement(listRequests, async (ctx) => {
      const auth = principalOf(ctx);
      const p = ctx.params;
      const page = readPageRequest(p);
      const where: Record<string, unknown> = { organizationId: auth.organizationId };
      if (p.method) where.method = p.method;
      if (p.path) where.path = { $like: `${likeLiteral(p.path)}%` };
      if (p.status !== undefined) where.status = p.status;
      if (p.apiKeyId) where.apiKeyId = p.apiKeyId;
      if (p.userId) where.userId = p.userId;
      const created: Record<string, Date> = {};
      if (p.since) created.$gte = p.since;
      if (p.until) created.$lt = p.until;
      if (Object.keys(created).length) where.createdAt = created;
      if (page.after) where.id = { $lt: page.after };
      const rows = await emOf(ctx).find(RequestLogEntry, where, { orderBy: { id: 'desc' }, limit: page.limit + 1 });
      return toPage(rows, page, (r) => r.id, view);
    }),

    /**
     * Per key or user. Throttled requests are exact (every 429 is logged); the per-minute peak is
     * a lower bound because successful reads are only logged when the server flag is on.
     */
    summary: implement(summary, async (ctx) => {
      const auth = principalOf(ctx);
      const by = ctx.params.by ?? 'key';
      const { since, until } = window(ctx.params, DAY, 366 * DAY);
      const em = emOf(ctx);
      const who = by === 'key' ? 'api_key_id' : 'user_id';
      const rows = await em.execute<Array<Record<string, unknown>>>(
        `with per_minute as (
           select ${who} as who, date_trunc('minute', created_at) as minute, count(*) as total,
                  count(*) filter (where status >= 400) as errors, count(*) filter (where error_code = 'RATE_LIMITED') as throttled,
                  max(created_at) as last_at
           from request_log where organization_id = ? and created_at >= ? and created_at < ? and ${who} is not null
           group by 1, 2)
         select who, sum(total) as total, sum(errors) as errors, sum(throttled) as throttled, max(total) as peak, max(last_at) as last_at
         from per_minute group by who order by sum(total) desc, who`,
        [auth.organizationId, since, until],
      );
      const rateLimitPerMinute = await rateLimitOf(ctx, auth.organizationId);
      const data: SummaryRow[] = rows.map((r) => ({
        ...(by === 'key' ? { apiKeyId: r.who as string } : { userId: r.who as string }),
        totalRequests: num(r.total), errorRequests: num(r.errors), throttledRequests: num(r.throttled),
        peakRequestsPerMinute: num(r.peak), rateLimitPerMinute, lastRequestAt: new Date(r.last_at as string).toISOString(),
      }));
      return { by, since: since.toISOString(), until: until.toISOString(), data };
    }),

    timeseries: implement(timeseries, async (ctx) => {
      const auth = principalOf(ctx);
      const bucket = ctx.params.bucket ?? 'hour';
      const organizationId = ctx.params.organizationId ?? auth.organizationId;
      if (!visibleOrganizations(auth).includes(organizationId)) {
        throw new DomainError('ORGANIZATION_FORBIDDEN', `Token does not grant access to organization '${organizationId}'`);
      }
      const { since, until } = window(ctx.params, bucket === 'minute' ? HOUR : DAY, MAX_RANGE_MS[bucket]);
      const params: unknown[] = [organizationId, since, until];
      let keyFilter = '';
      if (ctx.params.apiKeyId) { keyFilter = ' and api_key_id = ?'; params.push(ctx.params.apiKeyId); }
      const rows = await emOf(ctx).execute<Array<Record<string, unknown>>>(
        `select date_trunc('${bucket}', created_at) as ts, count(*) as total, count(*) filter (where status >= 400) as errors,
                count(*) filter (where error_code = 'RATE_LIMITED') as throttled, max(duration_ms) as max_duration
         from request_log where organization_id = ? and created_at >= ? and created_at < ?${keyFilter}
         group by 1 order by 1`,
        params,
      );
      const data: TimeseriesRow[] = rows.map((r) => ({
        ts: new Date(r.ts as string).toISOString(), total: num(r.total), errors: num(r.errors), throttled: num(r.throttled), maxDurationMs: num(r.max_duration),
      }));
      return { bucket, since: since.toISOString(), until: until.toISOString(), data };
    }),

    forgetOrganization: implement(forgetOrganization, async (ctx) => {
      const res = await emOf(ctx).execute<{ affectedRows?: number }>('delete from request_log where organization_id = ?', [ctx.params.organizationId], 'run');
      return { deleted: res.affectedRows ?? 0 };
    }),

    errorCounts: implement(errorCounts, async (ctx) => {
      const { organizationId, codes, from, to } = ctx.params;
      const rows = await emOf(ctx).execute<Array<{ error_code: string; n: string }>>(
        `select error_code, count(*) as n from request_log where organization_id = ? and created_at >= ? and created_at < ? and error_code in (${codes.map(() => '?').join(', ')}) group by error_code`,
        [organizationId, new Date(from), new Date(to), ...codes], 'all');
      return Object.fromEntries(codes.map((c) => [c, Number(rows.find((r) => r.error_code === c)?.n ?? 0)]));
    }),

    get: implement(getRequest, async (ctx) => {
      const auth = principalOf(ctx);
      const row = await emOf(ctx).findOne(RequestLogEntry, { id: ctx.params.id, organizationId: auth.organizationId });
      if (!row) throw notFound('Request', ctx.params.id);
      return trace(row);
    }),
  },
};

export default RequestsService;
