import type { ServiceSchema } from 'moleculer';
import { implement } from '../shared/contract.ts';
import { principalOf } from '../shared/auth.ts';
import { OrmMixin, emOf } from '../../mixins/orm.mixin.ts';
import { databaseOf } from '../shared/persistence/database.ts';
import { claim, complete, renew, release, flush, flushOrganization, IDEMPOTENCY_TTL_MS, idempotencyScope, type ClaimResult } from './idempotency.contract.ts';
import type { EntityManager } from '@mikro-orm/postgresql';

/** Expired keys are deleted in bounded batches, every few minutes. */
const SWEEP_EVERY_MS = 5 * 60_000;
const SWEEP_BATCH = 1000;

interface Row {
  request_hash: string;
  state: 'processing' | 'completed';
  response_status: number | null;
  response_headers: Record<string, string> | null;
  response_body: Buffer | null;
}


const IdempotencyService: ServiceSchema & { sweeper?: NodeJS.Timeout } = {
  name: 'idempotency',
  mixins: [OrmMixin],
  actions: {
    /**
     * One statement claims the key: a new key is inserted; an expired one, or a processing claim
     * whose holder is gone, is taken over. Anything else is read back to tell replay, in progress
     * and body mismatch apart. The database's clock decides, so replicas agree.
     */
    claim: implement(claim, async (ctx): Promise<ClaimResult> => {
      const em = emOf(ctx);
      const p = ctx.params;
      const claimed = await em.execute<unknown[]>(
        `insert into idempotency_keys (scope, key, organization_id, method, path, request_hash, state, locked_until, created_at, expires_at)
         values (?, ?, ?, ?, ?, ?, 'processing', now() + (? * interval '1 millisecond'), now(), now() + (? * interval '1 millisecond'))
         on conflict (scope, key) do update set organization_id = excluded.organization_id, method = excluded.method, path = excluded.path,
           request_hash = excluded.request_hash, state = 'processing', locked_until = excluded.locked_until, response_status = null,
           response_headers = null, response_body = null, created_at = excluded.created_at, expires_at = excluded.expires_at
         where idempotency_keys.expires_at <= now() or (idempotency_keys.state = 'processing' and idempotency_keys.locked_until <= now())
         returning 1`,
        [p.scope, p.key, p.organizationId, p.method, p.path, p.requestHash, p.lockMs, IDEMPOTENCY_TTL_MS],
      );
      if (claimed.length) return { outcome: 'claimed' };
      const rows = await em.execute<Row[]>(
        'select request_hash, state, response_status, response_headers, response_body from idempotency_keys where scope = ? and key = ?',
        [p.scope, p.key],
      );
      const row = rows[0];
      // Deleted between the two statements (flush, expiry sweep): the caller may simply retry.
      if (!row) return { outcome: 'in_progress' };
      if (row.request_hash !== p.requestHash) return { outcome: 'mismatch' };
      if (row.state === 'processing' || row.response_status === null) return { outcome: 'in_progress' };
      return { outcome: 'replay', response: { status: row.response_status, headers: row.response_headers ?? {}, body: (row.response_body ?? Buffer.alloc(0)).toString('base64') } };
    }),

    complete: implement(complete, async (ctx) => {
      const { scope, key, response } = ctx.params;
      const res = await emOf(ctx).execute<{ affectedRows?: number }>(
        `update idempotency_keys set state = 'completed', response_status = ?, response_headers = ?::jsonb, response_body = ?
         where scope = ? and key = ? and state = 'processing'`,
        [response.status, JSON.stringify(response.headers), Buffer.from(response.body, 'base64'), scope, key],
        'run',
      );
      return { stored: (res.affectedRows ?? 0) > 0 };
    }),

    renew: implement(renew, async (ctx) => {
      const { scope, key, lockMs } = ctx.params;
      const res = await emOf(ctx).execute<{ affectedRows?: number }>(
        `update idempotency_keys set locked_until = now() + (? * interval '1 millisecond') where scope = ? and key = ? and state = 'processing'`,
        [lockMs, scope, key], 'run',
      );
      return { renewed: (res.affectedRows ?? 0) > 0 };
    }),

    release: implement(release, async (ctx) => {
      const res = await emOf(ctx).execute<{ affectedRows?: number }>(
        "delete from idempotency_keys where scope = ? and key = ? and state = 'processing'", [ctx.params.scope, ctx.params.key], 'run',
      );
      return { released: (res.affectedRows ?? 0) > 0 };
    }),

    flush: implement(flush, async (ctx) => {
      const res = await emOf(ctx).execute<{ affectedRows?: number }>(
        'delete from idempotency_keys where scope = ?', [idempotencyScope(principalOf(ctx))], 'run',
      );
      return { flushed: res.affectedRows ?? 0 };
    }),

    flushOrganization: implement(flushOrganization, async (ctx) => {
      const res = await emOf(ctx).execute<{ affectedRows?: number }>(
        'delete from idempotency_keys where organization_id = ?', [ctx.params.organizationId], 'run',
      );
      return { flushed: res.affectedRows ?? 0 };
    }),
  },

  started() {
    const sweep = async () => {
      const em = databaseOf(this.broker).em.fork() as EntityManager;
      await em.execute(
        `delete from idempotency_keys where ctid in (select ctid from idempotency_keys where expires_at <= now() limit ${SWEEP_BATCH})`, [], 'run',
      );
    };
    this.sweeper = setInterval(() => { sweep().catch((err: unknown) => this.logger.warn('idempotency sweep failed:', err)); }, SWEEP_EVERY_MS);
    this.sweeper.unref();
  },

  stopped() {
    if (this.sweeper) clearInterval(this.sweeper);
  },
};

export default IdempotencyService;
