/**
 * Peppol Reporting on the real app: the month's TSR and EUSR of this access point (operator only),
 * built from the exchanges' evidence across organizations, and their submission by the reporting
 * service's job to a receiver on 127.0.0.1, once per month, a failed POST retried.
 *
 * The exchanges are inserted through the documents service's own entity (a test helper writing
 * the rows a peppol-as4 send or receive leaves: connector, direction, participants, evidence),
 * not driven through two access points (test/integration/peppol-as4.spec.ts does that).
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';
import { databaseOf } from '../../services/shared/persistence/database.ts';
import { Document } from '../../services/documents/document.entity.ts';
import { readEndUserStatisticsReport, readTransactionStatisticsReport, TSR_DOCUMENT_TYPE_ID } from '../../mappings/peppol/reporting.ts';
import { BILLING_DOCUMENT_TYPES, BILLING_PROCESS } from '../../mappings/identifiers/peppol-network.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
process.env.EINV_PEPPOL_SEAT_ID = 'POP000001';
process.env.EINV_PEPPOL_REPORTING_MODE = 'test';
// The job runs here by its action; the cron itself never fires during the test.
process.env.EINV_PEPPOL_REPORTING_CRON = '0 0 1 1 *';

const INVOICE_TYPE = BILLING_DOCUMENT_TYPES.invoice;

let t: TestApp;
let receiver: Receiver;
let operator: Awaited<ReturnType<typeof bootstrap>>;
let tenant: Awaited<ReturnType<typeof bootstrap>>;
let failNext = 0;

interface Exchange {
  org: Awaited<ReturnType<typeof bootstrap>>;
  direction: 'outgoing' | 'incoming';
  at: string;
  sender: string;
  receiver: string;
  ap?: string;
  countryC1?: string;
  receipt?: boolean;
  livemode?: boolean;
  documentTypeId?: string;
}

async function insertExchange(e: Exchange): Promise<void> {
  const em = databaseOf(t.app.broker).em.fork() as EntityManager;
  em.create(Document, {
    id: `doc_${randomUUID().replace(/-/g, '')}`,
    organizationId: e.org.organizationId, companyId: e.org.company.id, livemode: e.livemode ?? false,
    direction: e.direction, type: 'invoice', format: 'ubl-xml', status: e.direction === 'outgoing' ? 'sent' : 'received',
    lifecycle: [], deliveryStatus: e.direction === 'outgoing' ? 'delivered' : 'received',
    connectorId: 'peppol-as4', connectorMessageId: randomUUID(),
    senderPeppolId: e.sender, receiverPeppolId: e.receiver,
    evidence: {
      messageId: randomUUID(), exchangedAt: e.at, counterpartAccessPoint: e.ap ?? 'POP000002',
      ...(e.receipt === false ? {} : { receipt: Buffer.from('<Receipt/>').toString('base64') }),
      details: { documentTypeId: e.documentTypeId ?? INVOICE_TYPE, processId: BILLING_PROCESS.value, ...(e.countryC1 ? { countryC1: e.countryC1 } : {}) },
    },
    notes: [], relatedDocumentIds: [],
  } as never);
  await em.flush();
}

beforeAll(async () => {
  receiver = await startReceiver(() => (failNext-- > 0 ? 503 : 200), '/reports');
  process.env.EINV_PEPPOL_REPORTING_URL = receiver.url;
  t = await startTestApp();
  operator = await bootstrap(t.baseUrl);
  tenant = await bootstrap(t.baseUrl);
  process.env.EINV_OPERATOR_ORGANIZATIONS = operator.organizationId;

  const far = '0088:5790000435975';
  // October 2026, test mode: the operator's company sends one, the tenant's company receives two (one twice from the same sender).
  await insertExchange({ org: operator, direction: 'outgoing', at: '2026-10-05T10:00:00.000Z', sender: operator.company.peppolId, receiver: '0208:0123456789', ap: 'POP000002' });
  await insertExchange({ org: tenant, direction: 'incoming', at: '2026-10-10T10:00:00.000Z', sender: far, receiver: tenant.company.peppolId, ap: 'POP000003', countryC1: 'DK' });
  await insertExchange({ org: tenant, direction: 'incoming', at: '2026-10-31T23:59:59.000Z', sender: far, receiver: tenant.company.peppolId, ap: 'POP000003', countryC1: 'DK' });
  // Not counted: no positive receipt; outside the month (both sides); live mode; a report itself.
  await insertExchange({ org: tenant, direction: 'incoming', at: '2026-10-11T10:00:00.000Z', sender: far, receiver: tenant.company.peppolId, receipt: false, countryC1: 'DK' });
  await insertExchange({ org: operator, direction: 'outgoing', at: '2026-09-30T23:59:59.000Z', sender: operator.company.peppolId, receiver: '0208:0123456789' });
  await insertExchange({ org: operator, direction: 'outgoing', at: '2026-11-01T00:00:00.000Z', sender: operator.company.peppolId, receiver: '0208:0123456789' });
  await insertExchange({ org: operator, direction: 'outgoing', at: '2026-10-06T00:00:00.000Z', sender: operator.company.peppolId, receiver: '0208:0123456789', livemode: true });
  await insertExchange({ org: operator, direction: 'outgoing', at: '2026-10-07T00:00:00.000Z', sender: operator.company.peppolId, receiver: '9925:be0848934496', documentTypeId: TSR_DOCUMENT_TYPE_ID });
  // July 2026: an exchange whose other access point is not a seat id: no report can count it.
  await insertExchange({ org: tenant, direction: 'incoming', at: '2026-07-10T10:00:00.000Z', sender: far, receiver: tenant.company.peppolId, ap: 'not-a-seat', countryC1: 'DK' });
}, 120_000);

afterAll(async () => {
  await t?.stop();
  await receiver?.close();
});

describe('GET /v1/peppol/reports/{month}/tsr and /eusr', () => {
  it('counts the month\'s exchanges of every organization in the caller\'s mode, as a valid TSR', async () => {
    const res = await api(t.baseUrl, 'GET', '/v1/peppol/reports/2026-10/tsr', { key: operator.apiKey });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/xml/);
    const tsr = readTransactionStatisticsReport(res.text);
    expect(tsr.reporterId).toBe('POP000001');
    expect(tsr.period).toEqual({ start: '2026-10-01', end: '2026-10-31' });
    expect(tsr.total).toEqual({ incoming: 2, outgoing: 1 });
    const perSp = tsr.subtotals.filter((s) => s.type === 'PerSP-DT-PR');
    expect(perSp.map((s) => [s.keys.find((k) => k.metaSchemeID === 'SP')?.value, s.incoming, s.outgoing]).sort()).toEqual([['POP000002', 0, 1], ['POP000003', 2, 0]]);
    // Incoming per country: C1 from the SBDH, C4 the receiving company's country (tenancy).
    const perCc = tsr.subtotals.filter((s) => s.type === 'PerSP-DT-PR-CC');
    expect(perCc).toHaveLength(1);
    expect(perCc[0]!.keys.find((k) => k.metaSchemeID === 'CC' && k.schemeID === 'SenderCountry')?.value).toBe('DK');
    expect(perCc[0]!.keys.find((k) => k.metaSchemeID === 'CC' && k.schemeID === 'ReceiverCountry')?.value).toMatch(/^[A-Z]{2}$/);
  });

  it('counts the distinct end users served, as a valid EUSR', async () => {
    const res = await api(t.baseUrl, 'GET', '/v1/peppol/reports/2026-10/eusr', { key: operator.apiKey });
    expect(res.status).toBe(200);
    const eusr = readEndUserStatisticsReport(res.text);
    expect(eusr.reporterId).toBe('POP000001');
    expect(eusr.fullSet).toEqual({ sending: 1, receiving: 1, sendingOrReceiving: 2 });
  });

  it('answers a month without exchanges with zero counts', async () => {
    const res = await api(t.baseUrl, 'GET', '/v1/peppol/reports/2026-01/tsr', { key: operator.apiKey });
    expect(res.status).toBe(200);
    expect(readTransactionStatisticsReport(res.text).total).toEqual({ incoming: 0, outgoing: 0 });
  });

  it('refuses a bad month with 400 INVALID_REQUEST', async () => {
    for (const month of ['2026-13', '2026-1', 'october']) {
      const res = await api(t.baseUrl, 'GET', `/v1/peppol/reports/${month}/eusr`, { key: operator.apiKey });
      expectEnvelope(res, 400, 'INVALID_REQUEST');
    }
  });

  it('is the operator\'s only: another organization gets 403', async () => {
    const res = await api(t.baseUrl, 'GET', '/v1/peppol/reports/2026-10/tsr', { key: tenant.apiKey });
    expectEnvelope(res, 403, 'ORGANIZATION_FORBIDDEN');
  });

  it('never returns a report it cannot build clean: 422 with the reason in details', async () => {
    const res = await api(t.baseUrl, 'GET', '/v1/peppol/reports/2026-07/tsr', { key: operator.apiKey });
    expectEnvelope(res, 422, 'UBL_VALIDATION_FAILED');
    expect(res.body.error.details[0].field).toMatch(/otherAccessPoint/);
  });
});

describe('the submission job', () => {
  it('POSTs the month\'s TSR and EUSR once, and not again for the same month', async () => {
    const first = await t.app.broker.call('reporting.submitReports', { month: '2026-10' }) as { results: Array<{ report: string; outcome: string }> };
    expect(first.results.map((r) => [r.report, r.outcome])).toEqual([['tsr', 'submitted'], ['eusr', 'submitted']]);
    expect(receiver.requests).toHaveLength(2);
    const [tsrPost, eusrPost] = receiver.requests;
    expect(tsrPost!.headers['content-type']).toMatch(/^application\/xml/);
    expect(tsrPost!.headers['x-peppol-report']).toBe('TSR');
    expect(tsrPost!.headers['x-peppol-report-month']).toBe('2026-10');
    expect(readTransactionStatisticsReport(tsrPost!.rawBody).total).toEqual({ incoming: 2, outgoing: 1 });
    expect(readEndUserStatisticsReport(eusrPost!.rawBody).fullSet.sendingOrReceiving).toBe(2);

    const again = await t.app.broker.call('reporting.submitReports', { month: '2026-10' }) as { results: Array<{ outcome: string }> };
    expect(again.results.map((r) => r.outcome)).toEqual(['already_submitted', 'already_submitted']);
    expect(receiver.requests).toHaveLength(2);
  });

  it('retries a failed POST on the next tick', async () => {
    failNext = 2;
    const failed = await t.app.broker.call('reporting.submitReports', { month: '2026-08' }) as { results: Array<{ report: string; outcome: string; error?: string }> };
    expect(failed.results.map((r) => r.outcome)).toEqual(['failed', 'failed']);
    expect(failed.results[0]!.error).toMatch(/503/);
    const before = receiver.requests.length;
    // The next tick (now for September) submits August's first.
    const next = await t.app.broker.call('reporting.submitReports', { month: '2026-09' }) as { results: Array<{ month: string; report: string; outcome: string }> };
    expect(next.results.map((r) => [r.month, r.report, r.outcome])).toEqual([
      ['2026-08', 'tsr', 'submitted'], ['2026-08', 'eusr', 'submitted'], ['2026-09', 'tsr', 'submitted'], ['2026-09', 'eusr', 'submitted'],
    ]);
    expect(receiver.requests.length - before).toBe(4);
    const rows = await (databaseOf(t.app.broker).em.fork() as EntityManager).execute<Array<{ month: string; report: string; attempts: number; submitted_at: Date | null }>>(
      'select month, report, attempts, submitted_at from peppol_report_submissions where month = ? order by report', ['2026-08']);
    expect(rows.map((r) => [r.report, r.attempts, r.submitted_at !== null])).toEqual([['eusr', 2, true], ['tsr', 2, true]]);
  });

  it('only logs when no endpoint is configured', async () => {
    const url = process.env.EINV_PEPPOL_REPORTING_URL;
    delete process.env.EINV_PEPPOL_REPORTING_URL;
    try {
      const out = await t.app.broker.call('reporting.submitReports', { month: '2026-06' });
      expect(out).toEqual({ configured: false, results: [] });
    } finally {
      process.env.EINV_PEPPOL_REPORTING_URL = url;
    }
  });
});
