import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * One Peppol report of one month and mode as the scheduler submitted it (or tried to): what makes
 * the submission once per month. A claim (`claimedUntil`) keeps two replicas from posting the same
 * report at once; a failed POST leaves `submittedAt` null, and the next tick tries again.
 */
export const PeppolReportSubmission = defineEntity({
  name: 'PeppolReportSubmission',
  tableName: 'peppol_report_submissions',
  properties: {
    /** YYYY-MM */
    month: p.string().length(7).primary(),
    livemode: p.boolean().primary(),
    /** tsr or eusr */
    report: p.string().length(4).primary(),
    attempts: p.integer().default(0),
    claimedUntil: p.datetime().nullable(),
    submittedAt: p.datetime().nullable(),
    /** The answer of the receiving endpoint (HTTP status) when it took the report. */
    responseStatus: p.integer().nullable(),
    lastError: p.text().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});
export type PeppolReportSubmission = InferEntity<typeof PeppolReportSubmission>;
