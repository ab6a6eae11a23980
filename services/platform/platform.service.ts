/**
 * platform: one-call onboarding of a managed company, and usage per tenant. No tables of its own:
 * it asks the owning services. Onboarding is made atomic by order and compensation: the webhook
 * target is checked first, tenancy creates the company with its key (one step that leaves nothing
 * on failure), webhooks opens the tenant webhook (on failure tenancy removes the company again),
 * and only then is the company registered, so its `company.smp_registered` reaches the new webhook.
 */
import type { ServiceSchema } from 'moleculer';
import { implement } from '../shared/contract.ts';
import { call } from '../shared/call.ts';
import { principalOf, requireOrganizationWide } from '../shared/auth.ts';
import { monthPeriod } from '../shared/usage-period.ts';
import { abandonTenant, companiesByIds, onboardTenant, publishTenant } from '../tenancy/tenancy.contract.ts';
import { checkWebhookTarget, openTenantWebhook, type WebhookView } from '../webhooks/webhooks.contract.ts';
import { usage as documentUsage } from '../documents/documents.contract.ts';
import { complianceReportCounts } from '../events/events.contract.ts';
import { onboardCompany, platformUsage, type CompanyUsage } from './platform.contract.ts';

const PlatformService: ServiceSchema = {
  name: 'platform',
  actions: {
    onboardCompany: implement(onboardCompany, async (ctx) => {
      const auth = principalOf(ctx);
      requireOrganizationWide(auth);
      const { webhook, apiKey, ...company } = ctx.params;
      if (webhook) await call(ctx, checkWebhookTarget, { url: webhook.url, livemode: auth.livemode, field: 'webhook.url' });
      const onboarded = await call(ctx, onboardTenant, { ...company, ...(apiKey ? { apiKey } : {}) });
      let hook: WebhookView | null = null;
      try {
        if (webhook) {
          hook = await call(ctx, openTenantWebhook, {
            organizationId: auth.organizationId, companyId: onboarded.company.id, livemode: auth.livemode,
            url: webhook.url, events: webhook.events, ...(webhook.description ? { description: webhook.description } : {}),
          });
        }
      } catch (err) {
        await call(ctx, abandonTenant, { companyId: onboarded.company.id });
        throw err;
      }
      const registered = await call(ctx, publishTenant, { companyId: onboarded.company.id });
      return { company: registered, apiKey: onboarded.apiKey, webhook: hook };
    }),

    usage: implement(platformUsage, async (ctx) => {
      const auth = principalOf(ctx);
      requireOrganizationWide(auth);
      const period = monthPeriod(ctx.params.month);
      const window = { organizationId: auth.organizationId, livemode: auth.livemode, from: period.start, to: period.end };
      const [docs, reports] = await Promise.all([call(ctx, documentUsage, window), call(ctx, complianceReportCounts, window)]);
      const ids = [...new Set([...Object.keys(docs.byCompany), ...Object.keys(reports.byCompany)])].sort();
      const companies = new Map((ids.length ? await call(ctx, companiesByIds, { ids }) : []).filter((c) => c.organizationId === auth.organizationId).map((c) => [c.id, c]));
      const byCompany: CompanyUsage[] = ids.map((id) => {
        const tenantId = companies.get(id)?.metadata?.tenantId;
        return {
          companyId: id,
          tenantId: typeof tenantId === 'string' || typeof tenantId === 'number' ? String(tenantId) : null,
          name: companies.get(id)?.name ?? null,
          sent: docs.byCompany[id]?.sent ?? 0,
          received: docs.byCompany[id]?.received ?? 0,
          complianceReports: reports.byCompany[id] ?? 0,
        };
      });
      return { period, total: { documentsSent: docs.sent, documentsReceived: docs.received, complianceReports: reports.reported + reports.failed }, byCompany };
    }),
  },
};

export default PlatformService;
