import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * Documents an organization has sent in one calendar month (UTC, `period` = `YYYY-MM`). Counted
 * with one atomic upsert that refuses to pass the plan's quota.
 */
export const DocumentQuotaUsage = defineEntity({
  name: 'DocumentQuotaUsage',
  tableName: 'document_quota_usage',
  properties: {
    organizationId: p.string().primary(),
    period: p.string().length(7).primary(),
    used: p.integer().default(0),
    updatedAt: p.datetime(),
  },
});
export type DocumentQuotaUsage = InferEntity<typeof DocumentQuotaUsage>;
