/**
 * France end to end: a domestic French invoice sent through the sandbox network between two
 * organizations of this platform, moved 200 → 204 → 205 → 211 → 212. Each party's platform files
 * the statuses the law reports (200 and 212 by the seller's, 210 by the buyer's) with the PPF
 * simulator on 127.0.0.1 through the fr-ppf connector, as CDAR D22B messages that pass the XSD and
 * our BR-FR-CDV rules; `compliance.reported` says so, the step records the PPF's reference, and the
 * PPF's own rejection (00025) comes back as `compliance.reported` failed with its code. Statuses the
 * law does not report are not filed. Every step's CDAR can be read back from the API.
 */
import { startTestApp, api, bootstrap, type TestApp } from '../support/app.ts';
import { issuers, type Issuers } from '../support/issuers.ts';
import { frPpfEnv, startPpfSimulator, type PpfSimulator } from '../support/ppf-simulator.ts';
import { eventually } from '../support/webhook-receiver.ts';
import { validate } from '../../services/validation/engine/index.ts';
import { readCdar } from '../../mappings/index.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
process.env.EINV_RATE_LIMITS = 'free=100000';

let t: TestApp;
let ppf: PpfSimulator;
let supplier: Issuers;
let buyerOrg: Awaited<ReturnType<typeof bootstrap>>;

const seller = { name: 'Atelier SARL', vatNumber: 'FR44732829320', address: { street: '2 rue de Lyon', city: 'Lyon', postalCode: '69001', country: 'FR' } };
const buyer = { name: 'Client SA', vatNumber: 'FR40303265045', address: { street: '1 rue de Paris', city: 'Paris', postalCode: '75001', country: 'FR' } };

beforeAll(async () => {
  ppf = await startPpfSimulator();
  Object.assign(process.env, {
    EINV_CONNECTORS: 'sandbox-network,fr-ppf',
    ...frPpfEnv(ppf),
  });
  t = await startTestApp();
  [supplier, buyerOrg] = [await issuers(t.baseUrl, [seller.vatNumber], 'fr-supplier'), await bootstrap(t.baseUrl, { label: 'fr-buyer' })];
}, 60_000);

afterAll(async () => {
  await t?.stop();
  await ppf?.close();
  for (const k of Object.keys(process.env).filter((k) => k.startsWith('EINV_CONNECTOR'))) delete process.env[k];
});

let n = 0;
async function exchange(number = `FR-${Date.now()}-${++n}`): Promise<{ out: string; inc: string; number: string }> {
  const res = await api<{ id: string }>(t.baseUrl, 'POST', '/v1/documents/send', {
    key: supplier.apiKey, headers: supplier.as(seller.vatNumber),
    body: { type: 'invoice', format: 'json', to: buyerOrg.company.peppolId, document: { number, issueDate: '2026-03-01', dueDate: '2026-04-01', buyerReference: 'PO', seller, buyer, lines: [{ description: 'Work', quantity: 2, unit: 'HUR', unitPrice: 100, vatRate: 20 }] } },
  });
  if (res.status !== 201) throw new Error(`send → ${res.status} ${res.text}`);
  const inc = await eventually(async () => {
    const found = await api<{ data: Array<{ id: string }> }>(t.baseUrl, 'POST', '/v1/documents/search', { key: buyerOrg.apiKey, body: { filters: { number, direction: 'incoming' } } });
    return found.body.data[0]?.id;
  }, 15_000, `the buyer's copy of ${number}`);
  return { out: res.body.id, inc, number };
}

const move = async (key: string, id: string, body: Record<string, unknown>) => {
  const res = await api(t.baseUrl, 'POST', `/v1/documents/${id}/lifecycle`, { key, body });
  if (res.status !== 200) throw new Error(`lifecycle ${JSON.stringify(body)} → ${res.status} ${res.text}`);
};

interface ComplianceEvent { type: string; data: { documentId: string; reportedTo: string; status: string; lifecycleCode: string; networkReportId?: string; errorCode?: string } }
const complianceEvents = async (key: string, documentId: string): Promise<ComplianceEvent['data'][]> =>
  (await api<{ data: ComplianceEvent[] }>(t.baseUrl, 'GET', '/v1/events?type=compliance.reported&limit=100', { key })).body.data.filter((e) => e.data.documentId === documentId).map((e) => e.data);

/** The flows the PPF filed for one invoice, by status code. */
const flowsFor = (number: string) => [...ppf.flows.values()].filter((f) => f.facts?.invoice.number === number);

it('200 → 204 → 205 → 211 → 212: the seller\'s platform reports 200 and 212 to the PPF as valid CDAR, with compliance.reported; the buyer\'s moves are not reported', async () => {
  const { out, inc, number } = await exchange();
  await move(buyerOrg.apiKey, inc, { status: 'under_review' });
  await move(buyerOrg.apiKey, inc, { status: 'approved' });
  await move(buyerOrg.apiKey, inc, { status: 'paid', paymentDate: '2026-04-01', paymentReference: 'SEPA-1', paymentAmount: 240 });
  await move(supplier.apiKey, out, { status: 'paid', paymentDate: '2026-04-02', paymentAmount: 240, paymentCurrency: 'EUR' });

  const reported = await eventually(async () => {
    const events = await complianceEvents(supplier.apiKey, out);
    return events.length >= 2 ? events : undefined;
  }, 20_000, 'compliance.reported for 200 and 212');
  expect(reported.map((e) => [e.lifecycleCode, e.status, e.reportedTo]).sort()).toEqual([['200', 'reported', 'PPF'], ['212', 'reported', 'PPF']]);
  const flows = flowsFor(number);
  expect(flows.map((f) => f.facts!.code).sort()).toEqual(['200', '212']);
  for (const flow of flows) {
    expect(flow.acknowledgement.status).toBe('Ok');
    // What was filed passes the CDAR XSD and our BR-FR-CDV rules.
    expect(validate(flow.xml).findings).toEqual([]);
  }
  expect(readCdar(flows.find((f) => f.facts!.code === '212')!.xml).amounts).toMatchObject({ MEN: '240.00' });
  // The step keeps the PPF's reference; the buyer (no reported move) filed nothing.
  const history = (await api<{ history: Array<{ code: string; report?: { status: string; via: string; messageId?: string } }> }>(t.baseUrl, 'GET', `/v1/documents/${out}/lifecycle`, { key: supplier.apiKey })).body.history;
  expect(history.find((h) => h.code === '212')!.report).toMatchObject({ status: 'reported', via: 'fr-ppf', messageId: reported.find((e) => e.lifecycleCode === '212')!.networkReportId });
  expect(history.find((h) => h.code === '204')!.report).toBeUndefined();
  expect(await complianceEvents(buyerOrg.apiKey, inc)).toEqual([]);

  // Every step's CDAR reads back from the API, the buyer's approval as the buyer's message.
  const approval = history.findIndex((h) => h.code === '205');
  const cdar = await fetch(`${t.baseUrl}/v1/documents/${out}/lifecycle/${approval}/cdar`, { headers: { authorization: `Bearer ${supplier.apiKey}`, ...supplier.as(seller.vatNumber) } });
  expect(cdar.status).toBe(200);
  expect(cdar.headers.get('content-type')).toMatch(/^application\/xml/);
  expect(readCdar(await cdar.text())).toMatchObject({ code: '205', invoice: { number } });
}, 60_000);

it('the buyer\'s refusal (210) is reported by the buyer\'s platform', async () => {
  const { inc, number } = await exchange();
  await move(buyerOrg.apiKey, inc, { status: 'rejected', reasonCode: 'TX_TVA_ERR', reason: 'Wrong VAT rate' });
  const events = await eventually(async () => {
    const e = await complianceEvents(buyerOrg.apiKey, inc);
    return e.length ? e : undefined;
  }, 20_000, 'compliance.reported for 210');
  expect(events).toEqual([expect.objectContaining({ lifecycleCode: '210', status: 'reported', reportedTo: 'PPF' })]);
  expect(flowsFor(number).map((f) => f.facts!.code).sort()).toEqual(['200', '210']);
}, 60_000);

it('the PPF refuses an invoice number outside its format: compliance.reported failed with PPF:00025', async () => {
  const { out } = await exchange(`FR ${Date.now()} #1`);
  const failed = await eventually(async () => (await complianceEvents(supplier.apiKey, out)).find((e) => e.lifecycleCode === '200'), 20_000, 'the PPF\'s verdict on 200');
  expect(failed).toMatchObject({ status: 'failed', errorCode: 'PPF:00025' });
}, 60_000);
