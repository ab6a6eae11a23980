/**
 * reporting: Peppol Reporting of this access point. The monthly Transaction Statistics Report
 * (TSR 1.0) and End User Statistics Report (EUSR 1.1), built from the exchanges' evidence
 * (documents.peppolExchanges) and checked by the reporting rules before anyone gets them; the
 * scheduler submits the previous month's pair once (table `peppol_report_submissions`).
 */
import { defineAction, STRICT_REMOVE } from '../shared/contract.ts';

export const REPORT_KINDS = ['tsr', 'eusr'] as const;
export type ReportKind = (typeof REPORT_KINDS)[number];

const MONTH = { type: 'string', pattern: /^[0-9]{4}-(0[1-9]|1[0-2])$/, messages: { stringPattern: 'month must be a YYYY-MM month' } } as const;

export interface ReportParams {
  month: string;
}

const reportHttp = (kind: ReportKind, name: string) => ({
  method: 'GET' as const, path: `/v1/peppol/reports/:month/${kind}`, access: 'platform' as const, tag: 'Peppol reporting',
  summary: `This access point's ${name} of the month (YYYY-MM, UTC), over the Peppol exchanges of every organization in the caller's mode, checked by the Peppol Reporting rules`,
  description: 'Only for the operator of the deployment: a platform-scope credential of an organization listed in EINV_OPERATOR_ORGANIZATIONS '
    + '(others: 403 ORGANIZATION_FORBIDDEN). The reporter is EINV_PEPPOL_SEAT_ID. A report the rules refuse is not returned: '
    + '422 UBL_VALIDATION_FAILED with the findings in `details` (rule, XPath, message).',
  responseMediaType: 'application/xml',
  errors: { 422: 'UBL_VALIDATION_FAILED' },
  response: { type: 'string', description: `${name} XML` },
});

export const transactionStatisticsReport = defineAction<ReportParams, string>('reporting', 'transactionStatisticsReport', {
  params: { ...STRICT_REMOVE, month: MONTH },
  http: reportHttp('tsr', 'Transaction Statistics Report (TSR 1.0)'),
});

export const endUserStatisticsReport = defineAction<ReportParams, string>('reporting', 'endUserStatisticsReport', {
  params: { ...STRICT_REMOVE, month: MONTH },
  http: reportHttp('eusr', 'End User Statistics Report (EUSR 1.1)'),
});

export interface SubmissionOutcome {
  month: string;
  report: ReportKind;
  /** submitted now; already submitted before (or being submitted by another replica); failed (retried on the next tick). */
  outcome: 'submitted' | 'already_submitted' | 'failed';
  error?: string;
}

/**
 * Internal (also the cron tick): submits the reports of `month` (default: the previous month, UTC)
 * and retries any earlier month whose submission failed; not configured (no EINV_PEPPOL_REPORTING_URL): nothing.
 */
export const submitReports = defineAction<{ month?: string }, { configured: boolean; results: SubmissionOutcome[] }>('reporting', 'submitReports', {
  params: { month: { ...MONTH, optional: true } },
});
