/**
 * A platform's `defaults.autoCompliance` for France: with FR false its tenants' French lifecycle
 * statuses are not filed with the tax platform (the PPF simulator on 127.0.0.1 receives nothing; the
 * step records `disabled`; no `compliance.reported`); another organization keeps reporting, and its
 * reports count in usage and statistics. The setting is read when the report would be filed, so
 * turning it back on applies to the next status.
 */
import { startTestApp, api, bootstrap, type TestApp } from '../support/app.ts';
import { issuers, type Issuers } from '../support/issuers.ts';
import { frPpfEnv, startPpfSimulator, type PpfSimulator } from '../support/ppf-simulator.ts';
import { eventually } from '../support/webhook-receiver.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
process.env.EINV_RATE_LIMITS = 'free=100000,platform=100000';

let t: TestApp;
let ppf: PpfSimulator;
let off: Issuers;
let on: Issuers;
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
  [off, on, buyerOrg] = [await issuers(t.baseUrl, [seller.vatNumber], 'fr-off'), await issuers(t.baseUrl, [seller.vatNumber], 'fr-on'), await bootstrap(t.baseUrl, { label: 'fr-buyer' })];
}, 60_000);

afterAll(async () => {
  await t?.stop();
  await ppf?.close();
  for (const k of Object.keys(process.env).filter((k) => k.startsWith('EINV_CONNECTOR'))) delete process.env[k];
});

let n = 0;
async function sendFrench(from: Issuers): Promise<{ id: string; number: string }> {
  const number = `FRA-${Date.now()}-${++n}`;
  const res = await api<{ id: string }>(t.baseUrl, 'POST', '/v1/documents/send', {
    key: from.apiKey, headers: from.as(seller.vatNumber),
    body: { type: 'invoice', format: 'json', to: buyerOrg.company.peppolId, document: { number, issueDate: '2026-03-01', dueDate: '2026-04-01', buyerReference: 'PO', seller, buyer, lines: [{ description: 'Work', quantity: 2, unit: 'HUR', unitPrice: 100, vatRate: 20 }] } },
  });
  if (res.status !== 201) throw new Error(`send → ${res.status} ${res.text}`);
  return { id: res.body.id, number };
}

interface Step { code: string; report?: { status: string; via: string; message?: string } }
const depositReport = async (org: Issuers, id: string) =>
  (await api<{ history: Step[] }>(t.baseUrl, 'GET', `/v1/documents/${id}/lifecycle`, { key: org.apiKey, headers: org.as(seller.vatNumber) })).body.history.find((h) => h.code === '200')?.report;
const reportsOf = async (org: Issuers, id: string) =>
  (await api<{ data: Array<{ data: { documentId: string } }> }>(t.baseUrl, 'GET', '/v1/events?type=compliance.reported&limit=100', { key: org.apiKey })).body.data.filter((e) => e.data.documentId === id);
const flowsFor = (number: string) => [...ppf.flows.values()].filter((f) => f.facts?.invoice.number === number);

it('autoCompliance FR false: the deposited status (200) of a French invoice is not filed with the PPF', async () => {
  const set = await api(t.baseUrl, 'PATCH', '/v1/platform/settings', { key: off.apiKey, body: { defaults: { autoCompliance: { FR: false } } } });
  expect(set.status).toBe(200);
  expect(set.body.defaults.autoCompliance).toEqual({ FR: false });

  const [quiet, loud] = [await sendFrench(off), await sendFrench(on)];
  // The other organization (no setting) files its 200 as before.
  await eventually(async () => (await depositReport(on, loud.id))?.status === 'reported' || undefined, 20_000, 'the reported 200 of the other organization');
  expect(flowsFor(loud.number).map((f) => f.facts!.code)).toEqual(['200']);
  // This one records that nothing was filed, and nothing reached the PPF.
  const report = await eventually(async () => depositReport(off, quiet.id), 20_000, 'the outcome of the 200 follow-up');
  expect(report).toMatchObject({ status: 'disabled', via: 'settings' });
  expect(flowsFor(quiet.number)).toEqual([]);
  expect(await reportsOf(off, quiet.id)).toEqual([]);

  // Reports count in usage and statistics: the reporting organization's one report, none for the other.
  const usageOn = (await api(t.baseUrl, 'GET', '/v1/platform/usage', { key: on.apiKey })).body;
  expect(usageOn.total).toEqual({ documentsSent: 1, documentsReceived: 0, complianceReports: 1 });
  expect(usageOn.byCompany).toEqual([expect.objectContaining({ companyId: on.companies[seller.vatNumber]!.id, sent: 1, complianceReports: 1 })]);
  expect((await api(t.baseUrl, 'GET', '/v1/stats', { key: on.apiKey })).body.complianceReports).toEqual({ reported: 1, failed: 0, total: 1 });
  expect((await api(t.baseUrl, 'GET', '/v1/platform/usage', { key: off.apiKey })).body.total).toEqual({ documentsSent: 1, documentsReceived: 0, complianceReports: 0 });

  // Turned back on: the next French invoice is filed.
  await api(t.baseUrl, 'PATCH', '/v1/platform/settings', { key: off.apiKey, body: { defaults: { autoCompliance: { FR: true } } } });
  const again = await sendFrench(off);
  await eventually(async () => (await depositReport(off, again.id))?.status === 'reported' || undefined, 20_000, 'the 200 filed once reporting is back on');
  expect(flowsFor(again.number).map((f) => f.facts!.code)).toEqual(['200']);
}, 90_000);
