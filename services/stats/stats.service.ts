/**
 * stats: assembles `GET /v1/stats` from the owning services' counts; it has no tables of its own.
 */
import type { ServiceSchema } from 'moleculer';
import { implement } from '../shared/contract.ts';
import { call } from '../shared/call.ts';
import { principalOf } from '../shared/auth.ts';
import { monthPeriod } from '../shared/usage-period.ts';
import { usage as documentUsage } from '../documents/documents.contract.ts';
import { complianceReportCounts } from '../events/events.contract.ts';
import { deliveryStats } from '../webhooks/webhooks.contract.ts';
import { errorCounts } from '../requests/requests.contract.ts';
import { stats } from './stats.contract.ts';

const StatsService: ServiceSchema = {
  name: 'stats',
  actions: {
    stats: implement(stats, async (ctx) => {
      const auth = principalOf(ctx);
      const period = monthPeriod(ctx.params.month);
      const companyId = auth.companyId ?? undefined;
      const window = { organizationId: auth.organizationId, livemode: auth.livemode, from: period.start, to: period.end, ...(companyId ? { companyId } : {}) };
      const [docs, hooks, reports, refused] = await Promise.all([
        call(ctx, documentUsage, window),
        call(ctx, deliveryStats, window),
        call(ctx, complianceReportCounts, window),
        call(ctx, errorCounts, { organizationId: auth.organizationId, codes: ['UBL_VALIDATION_FAILED'], from: period.start, to: period.end }),
      ]);
      const refusedSends = refused.UBL_VALIDATION_FAILED ?? 0;
      return {
        period,
        organizationId: auth.organizationId,
        companyId: companyId ?? null,
        documents: { sent: docs.sent, received: docs.received, byType: docs.byType, byStatus: docs.byStatus, byDeliveryStatus: docs.byDeliveryStatus },
        validationFailures: { refused: refusedSends, receivedInvalid: docs.receivedInvalid, total: refusedSends + docs.receivedInvalid },
        webhooks: hooks,
        complianceReports: { reported: reports.reported, failed: reports.failed, total: reports.reported + reports.failed },
      };
    }),
  },
};

export default StatsService;
