/**
 * platform: what a platform (or white-label) organization does for its managed companies beyond
 * tenancy's own operations (services/tenancy: list, keys, suspend, settings): one-call onboarding
 * of a tenant, and the monthly usage per tenant.
 */
import { defineAction, SCOPES, STRICT_REMOVE, type Scope } from '../shared/contract.ts';
import { addressParams, apiKeyResponse, companyResponse, type ApiKeyView, type CompanyView, type CreateCompanyParams } from '../tenancy/tenancy.contract.ts';
import { eventsParam, webhookResponse, type WebhookView } from '../webhooks/webhooks.contract.ts';
import { PERIOD_PARAMS, periodSchema, type UsagePeriod } from '../shared/usage-period.ts';

export interface OnboardCompanyParams {
  vatNumber: string;
  name?: string;
  address?: CreateCompanyParams['address'];
  metadata?: Record<string, unknown>;
  webhook?: { url: string; events: string[]; description?: string };
  apiKey?: { name?: string; scopes?: Scope[] };
}
export interface OnboardedCompany {
  company: CompanyView;
  apiKey: ApiKeyView & { key: string };
  webhook: WebhookView | null;
}

export const onboardCompany = defineAction<OnboardCompanyParams, OnboardedCompany>('platform', 'onboardCompany', {
  params: {
    ...STRICT_REMOVE,
    // The shape is checked by tenancy, so a wrong one is INVALID_VAT_FORMAT as the spec says.
    vatNumber: { type: 'string', min: 1, max: 32 },
    name: { type: 'string', optional: true, min: 1, max: 200, trim: true },
    address: addressParams,
    metadata: { type: 'object', optional: true, maxProps: 50 },
    webhook: {
      type: 'object', optional: true, strict: 'remove',
      props: { url: { type: 'url', max: 2048 }, events: eventsParam, description: { type: 'string', optional: true, max: 255 } },
    },
    apiKey: {
      type: 'object', optional: true, strict: 'remove',
      props: { name: { type: 'string', optional: true, min: 1, max: 100, trim: true }, scopes: { type: 'array', optional: true, min: 1, unique: true, items: { type: 'enum', values: [...SCOPES] } } },
    },
  },
  http: {
    method: 'POST', path: '/v1/platform/companies', access: 'platform', status: 201, tag: 'Platform', secretFields: ['apiKey.key', 'webhook.secret'],
    location: (r: OnboardedCompany) => `/v1/companies/${r.company.id}`,
    summary: 'Onboard a managed company in one call: registers the company from its VAT number (as POST /v1/companies), opens its tenant webhook (`webhook`: `url`, `events`, which also accept `compliance.reported.failed`: only failed reports), mints its tenant key (a key bound to the company; `apiKey`: `name`, `scopes`, never beyond the caller\'s; default `*`) and registers it on the network. Atomic: when a step fails nothing of the others is left. Publication to the SMP is asynchronous: `company.smp_registered` follows (the tenant webhook gets it). The key and webhook secret are returned once; with `Idempotency-Key` a retry answers the same company (secrets masked). Without it, or once the key has expired, an existing VAT number is 409 COMPANY_EXISTS with `existingId`. Needs an organization-wide credential.',
    errors: {
      400: 'INVALID_VAT_FORMAT; INVALID_REQUEST (a field, or a webhook URL this mode may not call)',
      409: 'COMPANY_EXISTS: the organization already has a company with this VAT number (`existingId`)',
      422: 'VAT_NOT_FOUND, VAT_INACTIVE',
    },
    response: {
      type: 'object', required: ['company', 'apiKey', 'webhook'],
      properties: { company: companyResponse, apiKey: apiKeyResponse, webhook: { ...webhookResponse, type: ['object', 'null'] } },
    },
  },
});

export interface CompanyUsage {
  companyId: string;
  /** The platform's own reference of the tenant: the company's `metadata.tenantId` when it was given. */
  tenantId: string | null;
  name: string | null;
  sent: number;
  received: number;
  complianceReports: number;
}
export interface PlatformUsage {
  period: UsagePeriod;
  total: { documentsSent: number; documentsReceived: number; complianceReports: number };
  byCompany: CompanyUsage[];
}

export const platformUsage = defineAction<{ period?: 'month'; month?: string; groupBy?: 'company' }, PlatformUsage>('platform', 'usage', {
  params: { ...STRICT_REMOVE, ...PERIOD_PARAMS, groupBy: { type: 'enum', values: ['company'], optional: true, default: 'company' } },
  http: {
    method: 'GET', path: '/v1/platform/usage', access: 'platform', tag: 'Platform',
    summary: 'Documents sent and received and compliance reports filed in a month (UTC), for the organization and per managed company (`groupBy=company`, the only grouping). `period=month` is the current month; `month=YYYY-MM` picks another. `sent`: outgoing documents created in the month; `received`: incoming documents booked (repeated copies left out); `complianceReports`: lifecycle statuses and clearances reported to a tax platform (`compliance.reported`, either outcome). Companies with nothing in the month are left out of `byCompany`. Needs an organization-wide credential',
    response: {
      type: 'object', required: ['period', 'total', 'byCompany'],
      properties: {
        period: periodSchema,
        total: {
          type: 'object', required: ['documentsSent', 'documentsReceived', 'complianceReports'],
          properties: { documentsSent: { type: 'integer' }, documentsReceived: { type: 'integer' }, complianceReports: { type: 'integer' } },
        },
        byCompany: {
          type: 'array',
          items: {
            type: 'object', required: ['companyId', 'tenantId', 'name', 'sent', 'received', 'complianceReports'],
            properties: {
              companyId: { type: 'string' }, tenantId: { type: ['string', 'null'], description: 'The company\'s `metadata.tenantId`, when given at onboarding' }, name: { type: ['string', 'null'] },
              sent: { type: 'integer' }, received: { type: 'integer' }, complianceReports: { type: 'integer' },
            },
          },
        },
      },
    },
  },
});
