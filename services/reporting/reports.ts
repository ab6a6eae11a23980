/**
 * Building one month's report: the exchanges from documents, the pure builders of
 * mappings/peppol/reporting.ts, then the reporting rules (validation, on a worker). A report the
 * rules refuse, or exchanges the builders cannot count, never leave: UBL_VALIDATION_FAILED (422)
 * with what is wrong in `details`.
 */
import type { Context, ServiceBroker } from 'moleculer';
import { call } from '../shared/call.ts';
import { DomainError, type FieldIssue } from '../shared/errors.ts';
import { peppolReportingConfig } from '../shared/config.ts';
import { peppolExchanges } from '../documents/documents.contract.ts';
import { validatePeppolReport } from '../validation/validation.contract.ts';
import { buildEndUserStatisticsReport, buildTransactionStatisticsReport, type ReportingExchange } from '../../mappings/peppol/reporting.ts';
import { MappingError } from '../../mappings/errors.ts';
import type { ReportKind } from './reporting.contract.ts';

const BUILDERS: Record<ReportKind, (input: { month: string; reporterId: string; exchanges: readonly ReportingExchange[] }) => string> = {
  tsr: buildTransactionStatisticsReport,
  eusr: buildEndUserStatisticsReport,
};

/** Severities that make a report unfit to send. */
const FAILING = new Set(['fatal', 'error']);

export function seatIdOrFail(): string {
  const seatId = peppolReportingConfig().seatId;
  if (!seatId) throw new DomainError('INTERNAL_ERROR', 'Peppol Reporting needs this access point\'s seat id: set EINV_PEPPOL_SEAT_ID (the CN of its Peppol certificate)');
  return seatId;
}

export function monthExchanges(caller: Context | ServiceBroker, month: string, livemode: boolean): Promise<ReportingExchange[]> {
  return call(caller, peppolExchanges, { month, livemode });
}

/** The report's XML, checked; throws UBL_VALIDATION_FAILED (422) with the findings otherwise. */
export async function buildReport(caller: Context | ServiceBroker, kind: ReportKind, month: string, reporterId: string, exchanges: readonly ReportingExchange[]): Promise<string> {
  let xml: string;
  try {
    xml = BUILDERS[kind]({ month, reporterId, exchanges });
  } catch (err) {
    if (err instanceof MappingError) {
      throw new DomainError('UBL_VALIDATION_FAILED', `The ${kind.toUpperCase()} of ${month} cannot be built from the recorded exchanges: ${err.message}`, { details: err.details as FieldIssue[] });
    }
    throw err;
  }
  const findings = (await call(caller, validatePeppolReport, { xml })).filter((f) => FAILING.has(f.flag));
  if (findings.length > 0) {
    throw new DomainError('UBL_VALIDATION_FAILED', `The ${kind.toUpperCase()} of ${month} fails ${findings.length} Peppol Reporting rule(s)`, {
      details: findings.slice(0, 100).map((f) => ({ field: f.location, rule: f.rule, message: f.message })),
    });
  }
  return xml;
}

/** The month before `now`'s, YYYY-MM (UTC). */
export function previousMonth(now: Date): string {
  const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
  return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}
