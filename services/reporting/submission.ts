/**
 * Submission of the monthly reports (the cron tick of services/reporting): the previous month's TSR
 * and EUSR, each once, to EINV_PEPPOL_REPORTING_URL: an HTTP(S) URL is POSTed to; `peppol:` (or
 * `peppol:<participant>`) sends them over the Peppol network itself, as the network expects, through
 * the peppol-as4 connector to OpenPeppol's participant (9925:be0848934496 unless named). A short
 * statement claims a report (`peppol_report_submissions`, a lease against a second replica), the
 * submission runs outside any transaction, another short statement records the outcome; a failed one
 * leaves the report unsubmitted and the next tick tries it again, whatever its month.
 */
import type { ServiceBroker } from 'moleculer';
import { call } from '../shared/call.ts';
import { adapterContracts } from '../connectors/adapters.contract.ts';
import type { EntityManager } from '@mikro-orm/postgresql';
import { databaseOf } from '../shared/persistence/database.ts';
import { peppolReportingConfig } from '../shared/config.ts';
import { systemClock } from '../shared/clock.ts';
import type { ReportingExchange } from '../../mappings/peppol/reporting.ts';
import { REPORT_KINDS, type ReportKind, type SubmissionOutcome } from './reporting.contract.ts';
import { buildReport, monthExchanges, previousMonth, seatIdOrFail } from './reports.ts';

/** How long a claim keeps other replicas off one report (longer than building and posting it). */
const CLAIM_SECONDS = 300;

async function claim(em: EntityManager, month: string, livemode: boolean, report: ReportKind): Promise<boolean> {
  const rows = await em.execute<unknown[]>(
    `insert into peppol_report_submissions (month, livemode, report, attempts, claimed_until, created_at, updated_at)
       values (?, ?, ?, 1, now() + make_interval(secs => ?), now(), now())
     on conflict (month, livemode, report) do update set attempts = peppol_report_submissions.attempts + 1,
       claimed_until = excluded.claimed_until, updated_at = now()
       where peppol_report_submissions.submitted_at is null
         and (peppol_report_submissions.claimed_until is null or peppol_report_submissions.claimed_until < now())
     returning month`,
    [month, livemode, report, CLAIM_SECONDS],
  );
  return rows.length > 0;
}

async function record(em: EntityManager, month: string, livemode: boolean, report: ReportKind, outcome: { status?: number; error?: string }): Promise<void> {
  await em.execute(
    `update peppol_report_submissions set claimed_until = null, updated_at = now(),
        submitted_at = case when ?::text is null then now() else null end, response_status = ?, last_error = ?
      where month = ? and livemode = ? and report = ?`,
    [outcome.error ?? null, outcome.status ?? null, outcome.error ?? null, month, livemode, report],
  );
}

async function post(url: string, xml: string, headers: Record<string, string>, timeoutMs: number): Promise<number> {
  const res = await fetch(url, {
    method: 'POST', body: xml, redirect: 'error', signal: AbortSignal.timeout(timeoutMs),
    headers: { 'content-type': 'application/xml; charset=utf-8', ...headers },
  });
  await res.body?.cancel().catch(() => undefined);
  if (res.status < 200 || res.status >= 300) throw new Error(`the reporting endpoint answered ${res.status}`);
  return res.status;
}

/** The Peppol connector that files the reports over the network itself. */
const PEPPOL_CONNECTOR = 'peppol-as4';

/** Files one report over Peppol AS4; answers the receiver's message id, throws what went wrong. */
async function fileOverPeppol(broker: ServiceBroker, target: string, reportId: string, livemode: boolean, reporterId: string, xml: string, timeoutMs: number): Promise<string> {
  const recipient = target.slice('peppol:'.length).trim();
  const result = await call(broker, adapterContracts(PEPPOL_CONNECTOR).report, {
    reportId, livemode, kind: 'network-statistics', country: '*', ...(recipient ? { recipient } : {}),
    reporter: { peppolId: null, name: reporterId, organizationId: '', companyId: '' }, documentIds: [],
    payload: { content: Buffer.from(xml).toString('base64'), contentType: 'application/xml', xml },
  }, { timeout: timeoutMs, retries: 0 });
  if (result.outcome !== 'accepted') throw new Error(`${result.outcome === 'rejected' ? result.errorCode : 'transient'}: ${result.errorMessage}`);
  return result.networkReportId;
}

export async function submitReports(broker: ServiceBroker, month?: string): Promise<{ configured: boolean; results: SubmissionOutcome[] }> {
  const config = peppolReportingConfig();
  if (!config.url) {
    broker.logger.info('Peppol Reporting is not configured (EINV_PEPPOL_REPORTING_URL is unset): no report submitted');
    return { configured: false, results: [] };
  }
  const livemode = config.mode === 'live';
  const em = databaseOf(broker).em.fork() as EntityManager;
  const target = month ?? previousMonth(systemClock.now());
  // Earlier months whose submission failed are tried again first.
  const pending = await em.execute<Array<{ month: string }>>(
    'select distinct month from peppol_report_submissions where livemode = ? and submitted_at is null and month < ? order by month',
    [livemode, target],
  );
  const results: SubmissionOutcome[] = [];
  for (const m of [...pending.map((r) => r.month), target]) {
    let exchanges: ReportingExchange[] | undefined;
    for (const report of REPORT_KINDS) {
      if (!(await claim(em, m, livemode, report))) {
        results.push({ month: m, report, outcome: 'already_submitted' });
        continue;
      }
      try {
        const reporterId = seatIdOrFail();
        exchanges ??= await monthExchanges(broker, m, livemode);
        const xml = await buildReport(broker, report, m, reporterId, exchanges);
        if (config.url.startsWith('peppol:')) {
          const messageId = await fileOverPeppol(broker, config.url, `${m}:${report}:${livemode ? 'live' : 'test'}`, livemode, reporterId, xml, config.timeoutMs);
          await record(em, m, livemode, report, {});
          broker.logger.info(`Peppol Reporting: ${report.toUpperCase()} of ${m} filed over Peppol (${messageId})`);
        } else {
          const status = await post(config.url, xml, { 'x-peppol-report': report.toUpperCase(), 'x-peppol-report-month': m, 'x-peppol-reporter': reporterId }, config.timeoutMs);
          await record(em, m, livemode, report, { status });
          broker.logger.info(`Peppol Reporting: ${report.toUpperCase()} of ${m} submitted (${status})`);
        }
        results.push({ month: m, report, outcome: 'submitted' });
      } catch (err) {
        const error = (err as Error).message || String(err);
        await record(em, m, livemode, report, { error });
        broker.logger.warn(`Peppol Reporting: ${report.toUpperCase()} of ${m} not submitted, retried on the next tick: ${error}`);
        results.push({ month: m, report, outcome: 'failed', error });
      }
    }
  }
  return { configured: true, results };
}
