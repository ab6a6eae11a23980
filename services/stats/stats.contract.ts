/**
 * stats: `GET /v1/stats`, the organization's usage statistics for a month, assembled from the
 * owning services' counts (documents, webhooks, events, request log), each read by an index.
 */
import { defineAction, STRICT_REMOVE } from '../shared/contract.ts';
import { PERIOD_PARAMS, periodSchema, type UsagePeriod } from '../shared/usage-period.ts';

export interface UsageStats {
  period: UsagePeriod;
  organizationId: string;
  /** A credential bound to one company sees that company's statistics; null: the organization's. */
  companyId: string | null;
  documents: {
    sent: number;
    received: number;
    byType: Record<string, { sent: number; received: number }>;
    byStatus: Record<string, number>;
    byDeliveryStatus: Record<string, number>;
  };
  validationFailures: {
    /** Sends and validations refused by the rules (422 UBL_VALIDATION_FAILED answers). */
    refused: number;
    /** Documents received whose rules' verdict on arrival was invalid. */
    receivedInvalid: number;
    total: number;
  };
  webhooks: { succeeded: number; failed: number; pending: number; successRate: number | null };
  complianceReports: { reported: number; failed: number; total: number };
}

const counts = { type: 'object', additionalProperties: { type: 'integer' } };
const sentReceived = { type: 'object', required: ['sent', 'received'], properties: { sent: { type: 'integer' }, received: { type: 'integer' } } };

export const stats = defineAction<{ period?: 'month'; month?: string }, UsageStats>('stats', 'stats', {
  params: { ...STRICT_REMOVE, ...PERIOD_PARAMS },
  http: {
    method: 'GET', path: '/v1/stats', access: 'stats', tag: 'Statistics',
    summary: 'Usage statistics of a month (UTC): documents sent and received (by type, API status and delivery status), validation failures (sends refused with UBL_VALIDATION_FAILED, documents received invalid), webhook deliveries (succeeded, failed, pending, success rate over finished ones; test events left out) and compliance reports (reported, failed). `period=month` is the current month; `month=YYYY-MM` picks another. An organization-wide credential sees the organization; one bound to a company (a personal or tenant key, or a platform key with X-Service-Company) sees that company, except for refused sends, which are counted per organization',
    response: {
      type: 'object', required: ['period', 'organizationId', 'companyId', 'documents', 'validationFailures', 'webhooks', 'complianceReports'],
      properties: {
        period: periodSchema,
        organizationId: { type: 'string' },
        companyId: { type: ['string', 'null'] },
        documents: {
          type: 'object', required: ['sent', 'received', 'byType', 'byStatus', 'byDeliveryStatus'],
          properties: {
            sent: { type: 'integer' }, received: { type: 'integer' },
            byType: { type: 'object', additionalProperties: sentReceived, examples: [{ invoice: { sent: 3, received: 1 } }] },
            byStatus: { ...counts, description: 'API lifecycle status → documents' },
            byDeliveryStatus: { ...counts, description: 'Outgoing documents by delivery status (pending, delivered, failed, stored)' },
          },
        },
        validationFailures: {
          type: 'object', required: ['refused', 'receivedInvalid', 'total'],
          properties: { refused: { type: 'integer' }, receivedInvalid: { type: 'integer' }, total: { type: 'integer' } },
        },
        webhooks: {
          type: 'object', required: ['succeeded', 'failed', 'pending', 'successRate'],
          properties: { succeeded: { type: 'integer' }, failed: { type: 'integer' }, pending: { type: 'integer' }, successRate: { type: ['number', 'null'], minimum: 0, maximum: 1, description: 'succeeded / (succeeded + failed); null when none finished' } },
        },
        complianceReports: {
          type: 'object', required: ['reported', 'failed', 'total'],
          properties: { reported: { type: 'integer' }, failed: { type: 'integer' }, total: { type: 'integer' } },
        },
      },
    },
  },
});
