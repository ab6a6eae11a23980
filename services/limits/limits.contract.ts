/**
 * limits: what an organization's plan allows. The gateway asks for the plan (rate limit per
 * minute) and, for operations whose contract says `consumesDocumentQuota`, counts documents
 * against the monthly quota.
 */
import { defineAction, STRICT_REMOVE } from '../shared/contract.ts';
import type { Plan } from '../tenancy/tenancy.contract.ts';

/** Requests per minute, per credential, by the organization's plan (spec: Limits). */
export const PLAN_RATE_LIMITS: Record<Plan, number> = { free: 60, starter: 120, pro: 300, platform: 600, white_label: 1200 };

/** The plan limits with the operator's overrides (EINV_RATE_LIMITS). */
export function planRateLimits(overrides: Partial<Record<Plan, number>> = {}): Record<Plan, number> {
  return { ...PLAN_RATE_LIMITS, ...overrides };
}

/** Documents per month and organization by plan; `null` is unlimited (spec: Limits). */
export const PLAN_DOCUMENT_QUOTAS: Record<Plan, number | null> = { free: 50, starter: 500, pro: 5_000, platform: 50_000, white_label: null };

export interface OrganizationPlan {
  organizationId: string;
  plan: Plan;
  sandbox: boolean;
}

export const organizationPlan = defineAction<{ organizationId: string }, OrganizationPlan>('limits', 'organizationPlan', {
  params: { organizationId: { type: 'string', min: 1, max: 255 } },
});

export interface QuotaUsage {
  organizationId: string;
  /** `YYYY-MM` (UTC). */
  period: string;
  used: number;
  /** null: unlimited (white-label plan, or a sandbox organization). */
  limit: number | null;
}

export const consumeDocumentQuota = defineAction<{ organizationId: string; count?: number }, QuotaUsage>('limits', 'consumeDocumentQuota', {
  params: { ...STRICT_REMOVE, organizationId: { type: 'string', min: 1, max: 255 }, count: { type: 'number', integer: true, min: 1, max: 1000, optional: true } },
});

/** Gives back documents counted by a send that then failed (same period as the consumption). */
export const refundDocumentQuota = defineAction<{ organizationId: string; period: string; count: number }, { used: number }>('limits', 'refundDocumentQuota', {
  params: { organizationId: { type: 'string', min: 1, max: 255 }, period: { type: 'string', pattern: /^\d{4}-\d{2}$/ }, count: { type: 'number', integer: true, min: 1, max: 1000 } },
});

export const documentQuota = defineAction<{ organizationId: string }, QuotaUsage>('limits', 'documentQuota', {
  params: { organizationId: { type: 'string', min: 1, max: 255 } },
});
