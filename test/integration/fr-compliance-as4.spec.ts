/**
 * France between two access points on 127.0.0.1 (the platform A, and the peppol-as4 connector under
 * a host of its own as B): a French-reform invoice's lifecycle travels as CDAR D22B messages over
 * Peppol (the French document type, the regulated process), never as Invoice Responses, and each
 * side's platform files the statuses the law reports with the PPF simulator.
 *
 * A → B: A's seller sends; A files 200; B's buyer answers 204, 205, 211 as CDAR, which move A's copy
 * (lifecycle.updated); A's seller records 212, filed too. B → A: A's buyer approves (its CDAR reaches
 * B's seller) and another invoice is refused (CDAR 210 to B, and 210 filed by A, the buyer's side).
 */
import { randomInt } from 'node:crypto';
import { startTestApp, api, bootstrap, type TestApp } from '../support/app.ts';
import { startLoopbackPeppol, startRemoteAccessPoint, startRemoteSmp, type LoopbackPeppol, type RemoteAccessPoint, type RemoteSmp } from '../support/peppol-network.ts';
import { frPpfEnv, startPpfSimulator, type PpfSimulator } from '../support/ppf-simulator.ts';
import { eventually } from '../support/webhook-receiver.ts';
import peppolAs4 from '../../adapters/peppol-as4/peppol-as4.connector.ts';
import type { LifecycleResponse, OutboundMessage } from '../../adapters/sdk/index.ts';
import { lifecycleToCdar, readCdar, type CanonicalInvoice } from '../../mappings/index.ts';
import { validate } from '../../services/validation/engine/index.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
process.env.EINV_SMP_MODE = 'test';
process.env.EINV_DELIVERY_RETRY_MS = '100';
process.env.EINV_RATE_LIMITS = 'free=100000,pro=100000';

const B_BUYER = '0225:303265045';
const B_SELLER = '0225:552081317';

let net: LoopbackPeppol;
let ppf: PpfSimulator;
let t: TestApp;
let b: RemoteAccessPoint;
let bSmp: RemoteSmp;
let org: { key: string };
let seller: { id: string; peppolId: string };
let buyer: { id: string; peppolId: string };

const party = (name: string, vatNumber: string, city: string) => ({ name, vatNumber, address: { street: '1 rue de la Paix', city, postalCode: '75002', country: 'FR' } });
const A_SELLER = party('Atelier SARL', 'FR44732829320', 'Lyon');
const A_BUYER = party('Client SA', 'FR40303265045', 'Paris');
const frenchInvoice = (number: string, from: ReturnType<typeof party>, to: ReturnType<typeof party>) => ({
  number, issueDate: '2026-03-01', dueDate: '2026-04-01', buyerReference: 'PO-7', seller: from, buyer: to,
  lines: [{ description: 'Travaux', quantity: 2, unit: 'HUR', unitPrice: 100, vatRate: 20 }],
});

beforeAll(async () => {
  net = await startLoopbackPeppol('einv-fr-as4-');
  ppf = await startPpfSimulator();
  Object.assign(process.env, {
    EINV_CONNECTORS: 'sandbox-network,peppol-as4,fr-ppf',
    ...frPpfEnv(ppf),
  });
  t = await startTestApp();
  b = await startRemoteAccessPoint(net, net.pki.ap2, [
    { organizationId: 'org_b', companyId: 'cmp_b_buyer', peppolId: B_BUYER, name: 'Client SA', country: 'FR', documentTypes: ['invoice', 'credit-note'] },
    { organizationId: 'org_b', companyId: 'cmp_b_seller', peppolId: B_SELLER, name: 'EDF', country: 'FR', documentTypes: ['invoice', 'credit-note'] },
  ]);
  bSmp = await startRemoteSmp(net, net.pki.ap2, () => b.url);
  for (const participant of [B_BUYER, B_SELLER]) bSmp.publish(participant, '/as4');

  const owner = await bootstrap(t.baseUrl, { label: 'fr-as4', keyType: 'platform' });
  org = { key: owner.apiKey };
  const company = async (vatNumber: string) => {
    const created = (await api<{ id: string; peppolId: string }>(t.baseUrl, 'POST', '/v1/companies', { key: org.key, body: { vatNumber } })).body;
    expect((await api(t.baseUrl, 'POST', `/v1/companies/${created.id}/register`, { key: org.key })).status).toBe(200);
    net.sml.register(created.peppolId, `${t.baseUrl}/smp`);
    return created;
  };
  seller = await company(A_SELLER.vatNumber);
  buyer = await company(A_BUYER.vatNumber);
}, 90_000);

afterAll(async () => {
  await t?.stop();
  await b?.close();
  await bSmp?.close();
  await ppf?.close();
  await net?.close();
  for (const k of Object.keys(process.env).filter((k) => k.startsWith('EINV_CONNECTOR_FR_PPF'))) delete process.env[k];
  for (const k of ['EINV_SMP_MODE', 'EINV_DELIVERY_RETRY_MS', 'EINV_RATE_LIMITS']) delete process.env[k];
});

const as = (company: { id: string }) => ({ 'x-service-company': company.id });
interface Lifecycle { status: string; currentCode: string; history: Array<{ code: string; emittedBy: string; via?: string; response?: { status: string; via: string } }> }
const lifecycleOf = async (company: { id: string }, id: string) => (await api<Lifecycle>(t.baseUrl, 'GET', `/v1/documents/${id}/lifecycle`, { key: org.key, headers: as(company) })).body;
const reportedCodes = async (company: { id: string }, documentId: string) => {
  const events = await api<{ data: Array<{ data: { documentId: string; lifecycleCode: string; status: string } }> }>(t.baseUrl, 'GET', '/v1/events?type=compliance.reported&limit=100', { key: org.key, headers: as(company) });
  return events.body.data.filter((e) => e.data.documentId === documentId).map((e) => `${e.data.lifecycleCode}:${e.data.status}`).sort();
};

it("A → B: A files 200; B's buyer answers 204, 205, 211 as CDAR over Peppol and A's copy follows; A's 212 is filed", async () => {
  const number = `FR-AS4-${randomInt(1e9)}`;
  const sent = await api<{ id: string }>(t.baseUrl, 'POST', '/v1/documents/send', { key: org.key, headers: as(seller), body: { type: 'invoice', format: 'json', to: B_BUYER, document: frenchInvoice(number, A_SELLER, A_BUYER) } });
  expect(sent.status).toBe(201);
  const arrived = await eventually(async () => b.host.inboxed.find((d) => d.number === number), 20_000, 'the invoice at B');
  await eventually(async () => (await reportedCodes(seller, sent.body.id)).includes('200:reported') || undefined, 20_000, '200 filed');

  // B's buyer answers as a French platform does: the CDAR of each move, to the seller's participant.
  const invoice = arrived.payload.normalized as unknown as CanonicalInvoice;
  const answer = async (code: string, status: LifecycleResponse['status'], extra: Record<string, string> = {}) => {
    const at = new Date().toISOString();
    const xml = lifecycleToCdar({ messageId: `b-${number}-${code}`, issuedAt: at, invoice, step: { code, emittedBy: 'buyer', at, ...extra } });
    expect(validate(xml).findings).toEqual([]);
    return peppolAs4.respond!({
      responseId: `b-${number}-${code}`, livemode: false, code, status, at, statusMessage: { syntax: 'cdar-d22b', xml },
      document: { documentId: 'doc_at_b', type: 'invoice', number, issueDate: '2026-03-01', evidence: null, sender: { peppolId: seller.peppolId, name: A_SELLER.name }, recipient: { peppolId: B_BUYER, name: 'Client SA', organizationId: 'org_b', companyId: 'cmp_b_buyer' } },
    }, b.host);
  };
  for (const [code, status, extra] of [['204', 'under_review', {}], ['205', 'approved', {}], ['211', 'paid', { paymentDate: '2026-04-01' }]] as const) {
    expect(await answer(code, status, extra)).toMatchObject({ outcome: 'sent' });
    expect(await lifecycleOf(seller, sent.body.id)).toMatchObject({ currentCode: code });
  }
  expect((await lifecycleOf(seller, sent.body.id)).history.slice(-3).map((h) => [h.code, h.emittedBy, h.via])).toEqual([['204', 'buyer', 'peppol-as4'], ['205', 'buyer', 'peppol-as4'], ['211', 'buyer', 'peppol-as4']]);

  const collected = await api(t.baseUrl, 'POST', `/v1/documents/${sent.body.id}/lifecycle`, { key: org.key, headers: as(seller), body: { status: 'paid', paymentDate: '2026-04-02', paymentAmount: 240, paymentCurrency: 'EUR' } });
  expect(collected.status).toBe(200);
  expect(await eventually(async () => { const c = await reportedCodes(seller, sent.body.id); return c.length === 2 ? c : undefined; }, 20_000, '212 filed')).toEqual(['200:reported', '212:reported']);
  const filed = [...ppf.flows.values()].filter((f) => f.facts?.invoice.number === number);
  expect(filed.map((f) => f.facts!.code).sort()).toEqual(['200', '212']);
  for (const f of filed) expect(validate(f.xml).findings).toEqual([]);
}, 90_000);

describe("B → A: A's buyer answers in CDAR", () => {
  async function invoiceFromB(number: string): Promise<string> {
    const rendered = await api<{ renderedXml: string }>(t.baseUrl, 'POST', '/v1/documents/validate', { key: org.key, headers: as(seller), body: { format: 'json', type: 'invoice', document: frenchInvoice(number, party('EDF', 'FR03552081317', 'Paris'), A_BUYER) } });
    expect(rendered.status).toBe(200);
    const xml = rendered.body.renderedXml;
    const message: OutboundMessage = {
      documentId: `b2a_${randomInt(1e9)}`, livemode: false, type: 'invoice', number,
      sender: { peppolId: B_SELLER, name: 'EDF', organizationId: 'org_b', companyId: 'cmp_b_seller' }, recipient: { peppolId: buyer.peppolId },
      payload: { content: Buffer.from(xml).toString('base64'), contentType: 'application/xml', xml, syntax: 'ubl-2.1' }, attempt: 1,
    };
    expect(await peppolAs4.send!(message, b.host)).toMatchObject({ outcome: 'delivered' });
    const inbox = await api<{ data: Array<{ id: string; number: string }> }>(t.baseUrl, 'GET', '/v1/documents?direction=incoming&limit=100', { key: org.key, headers: as(buyer) });
    return inbox.body.data.find((d) => d.number === number)!.id;
  }
  const cdarAtB = (number: string, code: string) => eventually(async () => b.host.statusUpdates.find((u) => u.invoice?.number === number && u.lifecycle?.code === code), 20_000, `CDAR ${code} for ${number} at B`);

  it("an approval reaches B's seller as CDAR 205 (no Invoice Response), and the step says it was sent", async () => {
    const number = `FR-B2A-${randomInt(1e9)}`;
    const id = await invoiceFromB(number);
    expect((await api(t.baseUrl, 'POST', `/v1/documents/${id}/lifecycle`, { key: org.key, headers: as(buyer), body: { status: 'approved' } })).status).toBe(200);
    expect(await cdarAtB(number, '205')).toMatchObject({ status: 'answered', invoice: { sellerPeppolId: B_SELLER }, lifecycle: { status: 'approved', code: '205' }, evidence: { from: 'POP000001' } });
    const step = await eventually(async () => (await lifecycleOf(buyer, id)).history.find((h) => h.code === '205' && h.response), 10_000, 'the response on the step');
    expect(step.response).toMatchObject({ status: 'sent', via: 'peppol-as4' });
  }, 60_000);

  it('a refusal goes to B as CDAR 210 and is filed with the PPF by A, the buyer\'s platform', async () => {
    const number = `FR-B2A-${randomInt(1e9)}`;
    const id = await invoiceFromB(number);
    expect((await api(t.baseUrl, 'POST', `/v1/documents/${id}/lifecycle`, { key: org.key, headers: as(buyer), body: { status: 'rejected', reasonCode: 'TX_TVA_ERR', reason: 'Taux de TVA erroné' } })).status).toBe(200);
    const at = await cdarAtB(number, '210');
    expect(at).toMatchObject({ lifecycle: { status: 'rejected', reasonCode: 'TX_TVA_ERR' } });
    expect(await eventually(async () => { const c = await reportedCodes(buyer, id); return c.length ? c : undefined; }, 20_000, '210 filed')).toEqual(['210:reported']);
    expect(readCdar([...ppf.flows.values()].find((f) => f.facts?.invoice.number === number)!.xml)).toMatchObject({ code: '210', reasonCodes: ['TX_TVA_ERR'] });
  }, 60_000);
});
