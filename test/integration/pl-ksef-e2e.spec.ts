/**
 * Poland end to end, through the API: a Polish company sends a JSON invoice to a Polish buyer
 * (9945:PL…); routing picks the pl-ksef connector (it names PL, so it wins over the sandbox network),
 * which clears it with the KSeF simulator on 127.0.0.1. The document carries the KSeF number, the
 * KOD I link and the UPO (GET /v1/documents/{id}, …/clearance/receipt), and `compliance.reported`
 * fires. An invoice KSeF refuses (an issue date later than the day KSeF takes it: 450) fails with
 * KSeF's code and `compliance.reported` failed; the corrected invoice with the same number clears.
 * An invoice another seller addressed to the company in KSeF arrives as `document.received`.
 * A credit note correcting the cleared invoice goes as a KOR naming it by its KSeF number.
 * `GET /v1/compliance/status?country=PL` names pl-ksef as the clearance connector.
 */
import { canonicalToFa3 } from '../../mappings/index.ts';
import { startTestApp, api, type TestApp } from '../support/app.ts';
import { issuers, type Issuers } from '../support/issuers.ts';
import { startKsefSimulator, type KsefSimulator } from '../support/ksef-simulator.ts';
import { BUYER_NIP, OTHER_NIP, SELLER_NIP, polishInvoice } from '../support/polish-invoice.ts';

const SELLER_VAT = `PL${SELLER_NIP}`;
const TOKEN = 'ksef-token-e2e-seller';
const VARS = ['EINV_CONNECTORS', 'EINV_CONNECTOR_PL_KSEF_BASE_URL', 'EINV_CONNECTOR_PL_KSEF_NIP', 'EINV_CONNECTOR_PL_KSEF_KSEF_TOKEN', 'EINV_CONNECTOR_PL_KSEF_PUBLIC_KEY', 'EINV_CONNECTOR_PL_KSEF_STATUS_POLL_MS', 'EINV_CONNECTOR_PL_KSEF_INBOX_POLL_MS', 'EINV_CONNECTOR_PL_KSEF_AUTH_POLL_MS'];

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
process.env.EINV_DELIVERY_RETRY_MS = '20';
process.env.EINV_RATE_LIMITS = 'free=100000';

let t: TestApp;
let ksef: KsefSimulator;
let pl: Issuers;

beforeAll(async () => {
  ksef = await startKsefSimulator({ processingDelayMs: 200 });
  ksef.tokens.set(TOKEN, SELLER_NIP);
  Object.assign(process.env, {
    EINV_CONNECTORS: 'sandbox-network,pl-ksef',
    EINV_CONNECTOR_PL_KSEF_BASE_URL: ksef.url,
    EINV_CONNECTOR_PL_KSEF_NIP: SELLER_NIP,
    EINV_CONNECTOR_PL_KSEF_KSEF_TOKEN: TOKEN,
    EINV_CONNECTOR_PL_KSEF_PUBLIC_KEY: ksef.certPem,
    EINV_CONNECTOR_PL_KSEF_STATUS_POLL_MS: '150',
    EINV_CONNECTOR_PL_KSEF_INBOX_POLL_MS: '300',
    EINV_CONNECTOR_PL_KSEF_AUTH_POLL_MS: '20',
  });
  t = await startTestApp();
  pl = await issuers(t.baseUrl, [SELLER_VAT], 'ksef');
});
afterAll(async () => {
  await t?.stop();
  await ksef?.close();
  for (const k of VARS) delete process.env[k];
});

const as = () => ({ key: pl.apiKey, headers: pl.as(SELLER_VAT) });
const today = () => new Date().toISOString().slice(0, 10);
const inDays = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);

const invoiceJson = (number: string, issueDate: string) => ({
  number, issueDate, dueDate: inDays(14), currency: 'PLN', buyerReference: 'ZAM/2026/11',
  seller: { name: 'Sprzedawca Sp. z o.o.', vatNumber: SELLER_VAT, address: { street: 'ul. Świętokrzyska 12', city: 'Warszawa', postalCode: '00-916', country: 'PL' } },
  buyer: { name: 'Nabywca S.A.', vatNumber: `PL${BUYER_NIP}`, address: { street: 'ul. Długa 5', city: 'Gdańsk', postalCode: '80-827', country: 'PL' } },
  lines: [{ description: 'Usługi doradcze', quantity: 10, unit: 'HUR', unitPrice: 100, vatRate: 23 }, { description: 'Catering', quantity: 4, unitPrice: 50, vatRate: 8 }],
});

const send = (number: string, issueDate: string) => api(t.baseUrl, 'POST', '/v1/documents/send', {
  ...as(), body: { type: 'invoice', format: 'json', to: `9945:PL${BUYER_NIP}`, document: invoiceJson(number, issueDate) },
});

async function settle(id: string, ms = 20_000) {
  const until = Date.now() + ms;
  for (;;) {
    const res = await api(t.baseUrl, 'GET', `/v1/documents/${id}`, as());
    if (res.body.deliveryStatus !== 'pending' || Date.now() > until) return res.body;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function events(type: string, match: (e: { data: Record<string, any> }) => boolean, ms = 10_000) {
  const until = Date.now() + ms;
  for (;;) {
    const res = await api(t.baseUrl, 'GET', `/v1/events?type=${type}&limit=100`, { key: pl.apiKey });
    const found = (res.body.data as Array<{ data: Record<string, any> }>).filter(match);
    if (found.length || Date.now() > until) return found;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('Poland: clearance with KSeF through the API', () => {
  it('GET /v1/compliance/status names pl-ksef as the connector that clears Polish invoices', async () => {
    const res = await api(t.baseUrl, 'GET', '/v1/compliance/status?country=PL', { key: pl.apiKey });
    expect(res.status).toBe(200);
    const support = res.body.countries[0].support;
    expect(support.models).toEqual(expect.arrayContaining([expect.objectContaining({ model: 'clearance', supported: true, connectors: ['pl-ksef'] })]));
  });

  it('a JSON invoice from a Polish company is cleared: KSeF number, KOD I and UPO on the document, compliance.reported; its credit note clears as a KOR naming it by KSeF number', async () => {
    const number = `FV/E2E/${Date.now()}`;
    const res = await send(number, today());
    expect({ status: res.status, body: res.status === 201 ? undefined : res.body }).toEqual({ status: 201, body: undefined });
    const done = await settle(res.body.id);
    expect(done).toMatchObject({ deliveryStatus: 'delivered', errorCode: null });
    const cleared = [...ksef.invoices.values()].find((i) => i.invoiceNumber === number)!;
    expect(cleared.status?.code).toBe(200);
    expect(cleared.xml).toContain(`<P_2>${number}</P_2>`);
    const hash64url = Buffer.from(cleared.invoiceHash, 'base64').toString('base64url');
    const [y, m, d] = today().split('-');
    expect(done.clearance).toMatchObject({
      authority: 'KSeF', status: 'cleared', authorityId: cleared.ksefNumber,
      qr: `https://qr-test.ksef.mf.gov.pl/invoice/${SELLER_NIP}/${d}-${m}-${y}/${hash64url}`,
      details: expect.objectContaining({ invoiceHash: cleared.invoiceHash }),
    });
    expect(done.links.clearanceReceipt).toBe(`/v1/documents/${res.body.id}/clearance/receipt`);
    const upo = await api(t.baseUrl, 'GET', done.links.clearanceReceipt, as());
    expect(upo.status).toBe(200);
    expect(upo.text).toContain(`<NumerKSeFDokumentu>${cleared.ksefNumber}</NumerKSeFDokumentu>`);

    const reported = await events('compliance.reported', (e) => e.data.documentId === res.body.id);
    expect(reported[0]?.data).toMatchObject({ reportedTo: 'KSeF', status: 'reported', connectorId: 'pl-ksef', authorityId: cleared.ksefNumber, clearance: 'cleared' });

    // Its correction (a JSON credit note naming it): a KOR naming the original by the KSeF number KSeF gave it.
    const creditNumber = `KOR/E2E/${Date.now()}`;
    const credit = await api(t.baseUrl, 'POST', '/v1/documents/send', {
      ...as(), body: { type: 'credit-note', format: 'json', to: `9945:PL${BUYER_NIP}`, document: { ...invoiceJson(creditNumber, today()), dueDate: undefined, billingReference: number, billingReferenceDate: today(), lines: [{ description: 'Usługi doradcze (zwrot)', quantity: 1, unit: 'HUR', unitPrice: 100, vatRate: 23 }] } },
    });
    expect({ status: credit.status, body: credit.status === 201 ? undefined : credit.body }).toEqual({ status: 201, body: undefined });
    const creditDone = await settle(credit.body.id);
    expect(creditDone).toMatchObject({ deliveryStatus: 'delivered', clearance: { authority: 'KSeF', status: 'cleared' } });
    const kor = [...ksef.invoices.values()].find((i) => i.invoiceNumber === creditNumber)!;
    expect(kor.xml).toContain('<RodzajFaktury>KOR</RodzajFaktury>');
    expect(kor.xml).toContain(`<NrFaKorygowanej>${number}</NrFaKorygowanej><NrKSeF>1</NrKSeF><NrKSeFFaKorygowanej>${cleared.ksefNumber}</NrKSeFFaKorygowanej>`);
    expect(kor.xml).toContain('<P_13_1>-100.00</P_13_1><P_14_1>-23.00</P_14_1>');
  });

  it('an invoice KSeF refuses fails with KSeF\'s code (compliance.reported failed); the corrected one with the same number clears', async () => {
    const number = `FV/E2E/REJ/${Date.now()}`;
    const first = await send(number, inDays(5));
    expect(first.status).toBe(201);
    const failed = await settle(first.body.id);
    expect(failed).toMatchObject({ deliveryStatus: 'failed', errorCode: 'KSEF:450' });
    expect(failed.errorMessage).toContain('P_1');
    // (The clearance core stores no clearance on a rejection: the view names the connector as authority.)
    expect(failed.clearance).toMatchObject({ status: 'rejected', authorityId: null });
    const report = await events('compliance.reported', (e) => e.data.documentId === first.body.id);
    expect(report[0]?.data).toMatchObject({ reportedTo: 'KSeF', status: 'failed', errorCode: 'KSEF:450' });

    const corrected = await send(number, today());
    expect(corrected.status).toBe(201);
    const done = await settle(corrected.body.id);
    expect(done).toMatchObject({ deliveryStatus: 'delivered', clearance: { authority: 'KSeF', status: 'cleared', authorityId: expect.stringMatching(new RegExp(`^${SELLER_NIP}-`)) } });
  });

  it('an invoice another seller addressed to the company in KSeF arrives as document.received', async () => {
    const number = `DOST/${Date.now()}`;
    const stored = ksef.addIncoming(canonicalToFa3(polishInvoice({
      number, seller: { ...polishInvoice().seller, name: 'Dostawca Sp. z o.o.', vatId: `PL${OTHER_NIP}` }, buyer: { ...polishInvoice().buyer, name: 'Sprzedawca Sp. z o.o.', vatId: SELLER_VAT },
    }), { createdAt: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z') }));
    const received = await events('document.received', (e) => e.data.documentId !== undefined, 15_000);
    expect(received.length).toBeGreaterThan(0);
    const search = await api(t.baseUrl, 'POST', '/v1/documents/search', { ...as(), body: { filters: { direction: 'incoming', number } } });
    const doc = search.body.data?.[0];
    expect(doc).toMatchObject({ direction: 'incoming', type: 'invoice', number, currency: 'PLN', totalAmount: 1551, from: { peppolId: `9945:PL${OTHER_NIP}`, name: 'Dostawca Sp. z o.o.' } });
    expect(received.some((e) => e.data.documentId === doc.id)).toBe(true);
    const original = await api(t.baseUrl, 'GET', `/v1/documents/${doc.id}/original`, as());
    expect(original.text).toBe(stored.xml);
  });
});
