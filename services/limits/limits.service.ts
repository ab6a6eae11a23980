import type { Context, ServiceSchema } from 'moleculer';
import { implement } from '../shared/contract.ts';
import { DomainError, notFound } from '../shared/errors.ts';
import { systemClock } from '../shared/clock.ts';
import { OrmMixin, emOf } from '../../mixins/orm.mixin.ts';
import { call } from '../shared/call.ts';
import { organizationProfile } from '../tenancy/tenancy.contract.ts';
import { organizationPlan, consumeDocumentQuota, refundDocumentQuota, documentQuota, PLAN_DOCUMENT_QUOTAS, type OrganizationPlan } from './limits.contract.ts';
import { quotaPeriod, secondsToNextPeriod } from './quota-period.ts';

/** Plans are tenancy's: asked before any transaction of ours opens. */
async function planOf(ctx: Context, organizationId: string): Promise<OrganizationPlan> {
  const profile = await call(ctx, organizationProfile, { organizationId });
  if (!profile) throw notFound('Organization', organizationId);
  return profile;
}

const LimitsService: ServiceSchema = {
  name: 'limits',
  mixins: [OrmMixin],
  actions: {
    organizationPlan: implement(organizationPlan, async (ctx) => planOf(ctx, ctx.params.organizationId)),

    /**
     * One atomic upsert per call: the counter only moves while it stays within the quota, so
     * concurrent sends can never overshoot it. Sandbox organizations have no quota.
     */
    consumeDocumentQuota: implement(consumeDocumentQuota, async (ctx) => {
      const em = emOf(ctx);
      const { organizationId } = ctx.params;
      const count = ctx.params.count ?? 1;
      const plan = await planOf(ctx, organizationId);
      const now = systemClock.now();
      const period = quotaPeriod(now);
      const limit = plan.sandbox ? null : PLAN_DOCUMENT_QUOTAS[plan.plan];
      const exceeded = () => new DomainError('QUOTA_EXCEEDED', `The monthly document quota of the ${plan.plan} plan (${limit} documents) is used; it starts over on the 1st (UTC)`, {
        retryAfter: secondsToNextPeriod(now),
        extra: { quota: limit, period },
      });
      if (limit !== null && count > limit) throw exceeded();
      const rows = await em.execute<Array<{ used: number }>>(
        `insert into document_quota_usage (organization_id, period, used, updated_at) values (?, ?, ?, ?)
         on conflict (organization_id, period) do update set used = document_quota_usage.used + excluded.used, updated_at = excluded.updated_at
         where ?::int is null or document_quota_usage.used + excluded.used <= ?::int
         returning used`,
        [organizationId, period, count, now, limit, limit],
      );
      if (!rows.length) throw exceeded();
      return { organizationId, period, used: rows[0]!.used, limit };
    }),

    refundDocumentQuota: implement(refundDocumentQuota, async (ctx) => {
      const { organizationId, period, count } = ctx.params;
      const rows = await emOf(ctx).execute<Array<{ used: number }>>(
        'update document_quota_usage set used = greatest(0, used - ?), updated_at = ? where organization_id = ? and period = ? returning used',
        [count, systemClock.now(), organizationId, period],
      );
      return { used: rows[0]?.used ?? 0 };
    }),

    documentQuota: implement(documentQuota, async (ctx) => {
      const em = emOf(ctx);
      const plan = await planOf(ctx, ctx.params.organizationId);
      const period = quotaPeriod(systemClock.now());
      const rows = await em.execute<Array<{ used: number }>>('select used from document_quota_usage where organization_id = ? and period = ?', [plan.organizationId, period]);
      return { organizationId: plan.organizationId, period, used: rows[0]?.used ?? 0, limit: plan.sandbox ? null : PLAN_DOCUMENT_QUOTAS[plan.plan] };
    }),
  },
};

export default LimitsService;
