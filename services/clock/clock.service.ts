import type { Context, ServiceSchema } from 'moleculer';
import { OrmMixin, emOf } from '../../mixins/orm.mixin.ts';
import { WAKE_EVENT } from '../../mixins/scheduler.mixin.ts';
import { implement } from '../shared/contract.ts';
import { principalOf } from '../shared/auth.ts';
import { DomainError } from '../shared/errors.ts';
import { CLOCK_CHANGED_EVENT, forgetClockOffset, offsetClock, parseCompactDuration } from '../shared/clock.ts';
import { call } from '../shared/call.ts';
import { companyOf } from '../tenancy/tenancy.contract.ts';
import { CompanyClock } from '../shared/persistence/company-clock.entity.ts';
import { advanceClock, resetClock, forgetCompanyClocks, type ClockState } from './clock.contract.ts';

/** The company must be one the caller may act for (its own company for a personal key). */
async function ownCompany(ctx: Context, companyId: string): Promise<void> {
  const auth = principalOf(ctx);
  if (auth.keyType === 'personal' && auth.companyId && auth.companyId !== companyId) {
    throw new DomainError('COMPANY_FORBIDDEN', `Company '${companyId}' is not one this credential may act for`);
  }
  const company = await call(ctx, companyOf, { organizationId: auth.organizationId, companyId });
  if (!company) throw new DomainError('COMPANY_NOT_FOUND', `Company '${companyId}' was not found`);
}

function stateOf(companyId: string, offsetSeconds: number): ClockState {
  return { companyId, now: offsetClock(offsetSeconds).now().toISOString(), offsetSeconds };
}

/** This process forgets the old offset before answering; the other replicas as they hear of it. */
async function clockChanged(ctx: Context, companyId: string): Promise<void> {
  forgetClockOffset(companyId);
  await ctx.broadcast(CLOCK_CHANGED_EVENT, { companyId });
}

const ClockService: ServiceSchema = {
  name: 'clock',
  mixins: [OrmMixin],
  actions: {
    forgetCompanyClocks: implement(forgetCompanyClocks, async (ctx) => {
      const ids = [...new Set(ctx.params.companyIds)];
      if (!ids.length) return { forgotten: 0 };
      const res = await emOf(ctx).execute<{ affectedRows?: number }>(`delete from company_clocks where company_id in (${ids.map(() => '?').join(', ')})`, ids, 'run');
      for (const id of ids) forgetClockOffset(id);
      return { forgotten: res.affectedRows ?? 0 };
    }),

    advanceClock: implement(advanceClock, async (ctx) => {
      await ownCompany(ctx, ctx.params.companyId);
      const seconds = parseCompactDuration(ctx.params.by)!;
      const rows = await emOf(ctx).execute<Array<{ offset_seconds: string | number }>>(
        `insert into company_clocks (company_id, offset_seconds, updated_at) values (?, ?, now())
         on conflict (company_id) do update set offset_seconds = company_clocks.offset_seconds + excluded.offset_seconds, updated_at = now()
         returning offset_seconds`,
        [ctx.params.companyId, seconds],
      );
      await clockChanged(ctx, ctx.params.companyId);
      // Wake every scheduler (any replica, any kind): rows of this company may be due now.
      await ctx.broadcast(WAKE_EVENT, { companyId: ctx.params.companyId });
      return stateOf(ctx.params.companyId, Number(rows[0]!.offset_seconds));
    }),

    resetClock: implement(resetClock, async (ctx) => {
      await ownCompany(ctx, ctx.params.companyId);
      await emOf(ctx).nativeDelete(CompanyClock, { companyId: ctx.params.companyId });
      await clockChanged(ctx, ctx.params.companyId);
      return stateOf(ctx.params.companyId, 0);
    }),
  },
};

export default ClockService;
