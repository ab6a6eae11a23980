/**
 * Documents end to end over HTTP: two sandbox organizations exchange invoices through the sandbox
 * network in every input format; the receiver sees the three representations; delivery states and
 * events; every send error code; the deterministic failure scenarios of the sandbox network.
 */
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { issuers, reissued } from '../support/issuers.ts';
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';
import { corpusDir } from '../support/corpus.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
process.env.EINV_DELIVERY_RETRY_MS = '20';
process.env.EINV_RATE_LIMITS = 'free=100000';
const CORPUS = corpusDir();
const HYBRID_PDF = 'mustangproject/validator/src/test/resources/validXRechnung.pdf';

let t: TestApp;
let a: Awaited<ReturnType<typeof bootstrap>>;
let b: Awaited<ReturnType<typeof bootstrap>>;
beforeAll(async () => {
  t = await startTestApp();
  [a, b] = [await bootstrap(t.baseUrl, { label: 'alice' }), await bootstrap(t.baseUrl, { label: 'bob' })];
});
afterAll(async () => { await t.stop(); });

let counter = 0;
const seller = { name: 'Acme SPRL', vatNumber: 'BE0403170701', address: { street: 'Rue Neuve 1', city: 'Brussels', postalCode: '1000', country: 'BE' } };
const buyer = { name: 'Client SA', vatNumber: 'FR40303265045', address: { street: '1 rue de Paris', city: 'Paris', postalCode: '75001', country: 'FR' } };
/** The fixture seller as the given sandbox company: its own VAT number. */
const sellerOf = (org: { company: { vatNumber: string } }) => ({ ...seller, vatNumber: org.company.vatNumber });
export const invoiceBody = (number = `INV-${Date.now()}-${++counter}`, extra: Record<string, unknown> = {}) => ({
  // Issued by alice (a), who sends most of this file's invoices; other senders pass their own seller.
  number, issueDate: '2026-03-01', dueDate: '2026-04-01', buyerReference: 'PO-9', seller: sellerOf(a), buyer,
  lines: [{ description: 'Consulting', quantity: 2, unit: 'HUR', unitPrice: 100, vatRate: 21 }], ...extra,
});

async function settle(key: string, id: string, ms = 15_000) {
  const until = Date.now() + ms;
  for (;;) {
    const res = await api(t.baseUrl, 'GET', `/v1/documents/${id}`, { key });
    if (res.body.deliveryStatus !== 'pending' || Date.now() > until) return res.body;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function eventsOf(key: string, type: string) {
  const until = Date.now() + 10_000;
  for (;;) {
    const res = await api(t.baseUrl, 'GET', `/v1/events?type=${type}&limit=100`, { key });
    if (res.body.data.length || Date.now() > until) return res.body.data as Array<{ type: string; data: Record<string, any> }>;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function incomingFor(key: string, number: string) {
  const until = Date.now() + 10_000;
  for (;;) {
    const res = await api(t.baseUrl, 'POST', '/v1/documents/search', { key, body: { filters: { direction: 'incoming', number } } });
    if (res.body.data?.length || Date.now() > until) return res.body.data?.[0];
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('exchange between two sandbox organizations', () => {
  it('delivers a JSON invoice: 201 shape, pending → delivered, received with original, UBL and JSON, events on both sides', async () => {
    const number = `JSON-${Date.now()}`;
    const res = await api(t.baseUrl, 'POST', '/v1/documents/send', { key: a.apiKey, body: { type: 'invoice', format: 'json', from: a.company.id, to: b.company.peppolId, document: invoiceBody(number) } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ id: expect.stringMatching(/^doc_/), type: 'invoice', direction: 'outgoing', status: 'sent', deliveryStatus: 'pending', to: { peppolId: b.company.peppolId, name: 'bob Sandbox BV' } });
    expect(res.body.fileId).toBeUndefined();
    expect(res.headers.get('location')).toBe(`/v1/documents/${res.body.id}`);

    const done = await settle(a.apiKey, res.body.id);
    expect(done).toMatchObject({ deliveryStatus: 'delivered', lifecycleCode: '203', errorCode: null });
    expect(done.sentAt).toBeTruthy();
    expect(done.deliveredAt).toBeTruthy();

    const incoming = await incomingFor(b.apiKey, number);
    expect(incoming).toMatchObject({ direction: 'incoming', type: 'invoice', status: 'received', deliveryStatus: 'received', from: { peppolId: a.company.peppolId, name: 'alice Sandbox BV' }, totalAmount: 242 });
    expect(incoming.links).toEqual(expect.objectContaining({ original: `/v1/documents/${incoming.id}/original`, xml: `/v1/documents/${incoming.id}/xml`, json: `/v1/documents/${incoming.id}/json` }));
    // No PDF travelled: the PDF link is the invoice drawn (test/integration/document-renderings.spec.ts).
    expect(incoming.links.pdf).toBe(`/v1/documents/${incoming.id}/pdf`);
    const original = await api(t.baseUrl, 'GET', incoming.links.original, { key: b.apiKey });
    expect(original.status).toBe(200);
    expect(original.headers.get('content-type')).toMatch(/^application\/xml/);
    expect(original.text).toContain(`<cbc:ID>${number}</cbc:ID>`);
    const xml = await api(t.baseUrl, 'GET', incoming.links.xml, { key: b.apiKey });
    expect(xml.text).toMatch(/^<\?xml|<Invoice/);
    const json = await api(t.baseUrl, 'GET', incoming.links.json, { key: b.apiKey });
    expect(json.body).toMatchObject({ number, currency: 'EUR', seller: { name: 'Acme SPRL' } });
    const drawn = await fetch(`${t.baseUrl}/v1/documents/${incoming.id}/pdf`, { headers: { authorization: `Bearer ${b.apiKey}` } });
    expect(drawn.headers.get('content-type')).toBe('application/pdf');
    expect(Buffer.from(await drawn.arrayBuffer()).subarray(0, 5).toString('latin1')).toBe('%PDF-');
    // The sender cannot read the receiver's copy, and the other way round.
    expectEnvelope(await api(t.baseUrl, 'GET', `/v1/documents/${incoming.id}`, { key: a.apiKey }), 404, 'DOCUMENT_NOT_FOUND');

    const sent = (await eventsOf(a.apiKey, 'document.sent')).find((e) => e.data.documentId === res.body.id);
    expect(sent?.data).toMatchObject({ documentId: res.body.id, type: 'invoice', sentAt: expect.any(String) });
    const delivered = (await eventsOf(a.apiKey, 'document.delivered')).find((e) => e.data.documentId === res.body.id);
    expect(delivered?.data).toMatchObject({ documentId: res.body.id, deliveredAt: expect.any(String) });
    const received = (await eventsOf(b.apiKey, 'document.received')).find((e) => e.data.documentId === incoming.id);
    expect(received?.data).toEqual({ documentId: incoming.id, type: 'invoice', number, direction: 'incoming', sender: { peppolId: a.company.peppolId, name: 'alice Sandbox BV' }, receiver: { peppolId: b.company.peppolId, name: 'bob Sandbox BV' } });
  });
});

const read = (path: string) => readFileSync(`${CORPUS}/${path}`);
/** A corpus invoice with a number of our own (each send is a new invoice of its seller). */
function withNumber(xml: string, number: string, syntax: 'ubl' | 'cii'): string {
  return syntax === 'ubl'
    ? xml.replace(/(<\/cbc:CustomizationID>[\s\S]*?<cbc:ID>)[^<]+(<\/cbc:ID>)/, `$1${number}$2`)
    : xml.replace(/(<rsm:ExchangedDocument>\s*<ram:ID>)[^<]+(<\/ram:ID>)/, `$1${number}$2`);
}

describe('every input format reaches the other organization with its three representations', () => {
  it('ubl-xml to a company id: the caller bytes are the original', async () => {
    const number = `UBL-${Date.now()}`;
    const xml = reissued(withNumber(read('peppol-bis-invoice-3/rules/examples/base-example.xml').toString('utf8'), number, 'ubl'), a.company);
    const res = await api(t.baseUrl, 'POST', '/v1/documents/send', { key: a.apiKey, body: { type: 'invoice', format: 'ubl-xml', to: b.company.id, xml } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ direction: 'outgoing', deliveryStatus: 'pending', to: { companyId: b.company.id, peppolId: b.company.peppolId } });
    expect(await settle(a.apiKey, res.body.id)).toMatchObject({ deliveryStatus: 'delivered', number });
    const incoming = await incomingFor(b.apiKey, number);
    expect((await api(t.baseUrl, 'GET', incoming.links.original, { key: b.apiKey })).text).toBe(xml);
    expect((await api(t.baseUrl, 'GET', incoming.links.xml, { key: b.apiKey })).text).toBe(xml);
    expect((await api(t.baseUrl, 'GET', incoming.links.json, { key: b.apiKey })).body).toMatchObject({ number, kind: 'invoice' });
  });

  it('cii-xml', async () => {
    const number = `CII-${Date.now()}`;
    const xml = reissued(withNumber(read('eInvoicing-EN16931/cii/examples/CII_example1.xml').toString('utf8'), number, 'cii'), a.company);
    const res = await api(t.baseUrl, 'POST', '/v1/documents/send', { key: a.apiKey, body: { type: 'invoice', format: 'cii-xml', to: b.company.peppolId, xml } });
    expect(res.status).toBe(201);
    expect(await settle(a.apiKey, res.body.id)).toMatchObject({ deliveryStatus: 'delivered' });
    const incoming = await incomingFor(b.apiKey, number);
    expect(incoming.format).toBe('cii-xml');
    expect((await api(t.baseUrl, 'GET', incoming.links.xml, { key: b.apiKey })).text).toBe(xml);
    expect((await api(t.baseUrl, 'GET', incoming.links.json, { key: b.apiKey })).body.number).toBe(number);
  });

  it('auto: UBL bytes detected, and a hybrid PDF whose original and /pdf are the PDF itself', async () => {
    const number = `AUTO-${Date.now()}`;
    const xml = reissued(withNumber(read('peppol-bis-invoice-3/rules/examples/base-example.xml').toString('utf8'), number, 'ubl'), a.company);
    const res = await api(t.baseUrl, 'POST', '/v1/documents/send', { key: a.apiKey, body: { type: 'invoice', format: 'auto', to: b.company.peppolId, file: { content: Buffer.from(xml).toString('base64') } } });
    expect(res.status).toBe(201);
    expect(await settle(a.apiKey, res.body.id)).toMatchObject({ deliveryStatus: 'delivered' });
    expect((await incomingFor(b.apiKey, number)).links.xml).toBeDefined();

    // The hybrid PDF is issued by Bei Spiel GmbH (DE136695976): sent by that company.
    const pdf = read(HYBRID_PDF);
    const beiSpiel = await issuers(t.baseUrl, ['DE136695976'], 'bei-spiel');
    const sentPdf = await api(t.baseUrl, 'POST', '/v1/documents/send', { key: beiSpiel.apiKey, headers: beiSpiel.as('DE136695976'), body: { type: 'invoice', format: 'auto', to: b.company.peppolId, file: { content: pdf.toString('base64'), filename: 'invoice.pdf' } } });
    expect(sentPdf.status).toBe(201);
    const done = await settle(beiSpiel.apiKey, sentPdf.body.id);
    expect(done).toMatchObject({ deliveryStatus: 'delivered' });
    const incoming = await incomingFor(b.apiKey, done.number);
    expect(incoming.links.pdf).toBe(`/v1/documents/${incoming.id}/pdf`);
    const original = await api(t.baseUrl, 'GET', incoming.links.pdf, { key: b.apiKey });
    expect(original.headers.get('content-type')).toBe('application/pdf');
    expect(Buffer.from(await (await fetch(`${t.baseUrl}${incoming.links.original}`, { headers: { authorization: `Bearer ${b.apiKey}` } })).arrayBuffer()).equals(pdf)).toBe(true);
    expect((await api(t.baseUrl, 'GET', incoming.links.xml, { key: b.apiKey })).text).toContain('CrossIndustryInvoice');
  });

  it('raw: stored as is with fileId and storedFormat (gzip stays gzip), never routed; the raw-body form takes contentType and filename from the query', async () => {
    const gz = gzipSync(Buffer.from('hello archive'));
    const res = await api(t.baseUrl, 'POST', '/v1/documents/send', { key: a.apiKey, body: { type: 'invoice', format: 'raw', file: { content: gz.toString('base64'), contentType: 'application/octet-stream', filename: 'a.gz' } } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ direction: 'outgoing', status: 'stored', deliveryStatus: 'stored', fileId: expect.stringMatching(/^file_/), storedFormat: 'gzip' });
    const bytes = Buffer.from(await (await fetch(`${t.baseUrl}/v1/documents/${res.body.id}/original`, { headers: { authorization: `Bearer ${a.apiKey}` } })).arrayBuffer());
    expect(bytes.equals(gz)).toBe(true);

    const pdf = Buffer.from('%PDF-1.4\n%âãÏÓ\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n', 'latin1');
    const form = await api(t.baseUrl, 'POST', '/v1/documents/send?type=invoice&contentType=application/octet-stream&filename=scan.pdf', { key: a.apiKey, rawBody: pdf, headers: { 'content-type': 'application/octet-stream' } });
    expect(form.status).toBe(201);
    expect(form.body).toMatchObject({ format: 'raw', deliveryStatus: 'stored', storedFormat: 'pdf', fileId: expect.stringMatching(/^file_/) });
    const back = await fetch(`${t.baseUrl}/v1/documents/${form.body.id}/original`, { headers: { authorization: `Bearer ${a.apiKey}` } });
    // The declared octet-stream is corrected from the bytes; the filename comes back.
    expect(back.headers.get('content-type')).toBe('application/pdf');
    expect(back.headers.get('content-disposition')).toContain('scan.pdf');
    expect(Buffer.from(await back.arrayBuffer()).equals(pdf)).toBe(true);

    // A gzip-encoded raw body is decompressed before it is stored.
    const encoded = await api(t.baseUrl, 'POST', '/v1/documents/send?type=invoice&filename=note.txt', { key: a.apiKey, rawBody: gzipSync(Buffer.from('plain text deposit')), headers: { 'content-type': 'text/plain', 'content-encoding': 'gzip' } });
    expect(encoded.status).toBe(201);
    expect(encoded.body.storedFormat).toBe('raw');
    expect((await api(t.baseUrl, 'GET', `/v1/documents/${encoded.body.id}/original`, { key: a.apiKey })).text).toBe('plain text deposit');
  });

  it('other document types travel as JSON; an event has no recipient and is only stored', async () => {
    const number = `PO-${Date.now()}`;
    const po = await api(t.baseUrl, 'POST', '/v1/documents/send', { key: a.apiKey, body: { type: 'purchase-order', format: 'json', to: b.company.peppolId, document: { number, lines: [{ description: 'Paper', quantity: 10 }] } } });
    expect(po.status).toBe(201);
    expect(await settle(a.apiKey, po.body.id)).toMatchObject({ deliveryStatus: 'delivered', lifecycleCode: null });
    const incoming = await incomingFor(b.apiKey, number);
    expect(incoming).toMatchObject({ type: 'purchase-order' });
    expect((await api(t.baseUrl, 'GET', incoming.links.json, { key: b.apiKey })).body).toMatchObject({ type: 'purchase-order', number });

    const ev = await api(t.baseUrl, 'POST', '/v1/documents/send', { key: a.apiKey, body: { type: 'event', format: 'json', document: { number: 'EVT-1' } } });
    expect(ev.status).toBe(201);
    expect(ev.body).toMatchObject({ type: 'event', deliveryStatus: 'stored', to: {} });
  });

  it('every document type reaches the other organization', async () => {
    const types = ['invoice', 'credit-note', 'debit-note', 'purchase-order', 'purchase-request', 'sales-order', 'quote', 'goods-receipt'];
    const sent: Array<[string, string, string]> = [];
    for (const type of types) {
      const number = `${type.toUpperCase()}-${Date.now()}`;
      const billing = ['invoice', 'credit-note', 'debit-note'].includes(type);
      // A credit note carries no due date here (UBL writes BT-9 of a credit note only with payment instructions).
      const document = billing ? invoiceBody(number, { billingReference: 'INV-0', billingReferenceDate: '2026-01-15', ...(type === 'credit-note' ? { dueDate: undefined } : {}) }) : { number, issueDate: '2026-03-01' };
      const res = await api(t.baseUrl, 'POST', '/v1/documents/send', { key: a.apiKey, body: { type, format: 'json', to: b.company.peppolId, document } });
      expect({ type, status: res.status, body: res.status === 201 ? undefined : res.body }).toEqual({ type, status: 201, body: undefined });
      sent.push([type, number, res.body.id]);
    }
    for (const [type, number, id] of sent) {
      expect(await settle(a.apiKey, id)).toMatchObject({ type, deliveryStatus: 'delivered' });
      expect(await incomingFor(b.apiKey, number)).toMatchObject({ type, direction: 'incoming' });
    }
  });

  it('addresses a French reception point: the suffix travels in metadata.recipientRouting and the to echo; French rules apply', async () => {
    // A sandbox company registered under a SIREN (what a French company import creates).
    const fr = await bootstrap(t.baseUrl, { label: 'fr' });
    const siren = '732829320';
    await t.app.orm!.em.fork().getConnection().execute(`update companies set registration_number = ?, peppol_id = ? where id = ?`, [siren, `0009:${siren}`, fr.company.id]);
    const to = `${siren}_73282932000074_SERVICE-AP`;
    const number = `PO-FR-${Date.now()}`;
    const res = await api(t.baseUrl, 'POST', '/v1/documents/send', { key: a.apiKey, body: { type: 'purchase-order', format: 'json', to, document: { number } } });
    expect(res.status).toBe(201);
    expect(res.body.to).toMatchObject({ peppolId: `0009:${siren}`, addressingIdentifier: '73282932000074', addressingSuffix: 'SERVICE-AP' });
    expect(res.body.metadata.recipientRouting).toEqual({ addressingIdentifier: '73282932000074', addressingSuffix: 'SERVICE-AP' });
    expect(await settle(a.apiKey, res.body.id)).toMatchObject({ deliveryStatus: 'delivered' });
    expect(await incomingFor(fr.apiKey, number)).toMatchObject({ type: 'purchase-order', direction: 'incoming' });
    // An invoice to a French recipient is validated with the French rules too (a Belgian 21 % invoice is not a French one).
    const inv = await api(t.baseUrl, 'POST', '/v1/documents/send', { key: a.apiKey, body: { type: 'invoice', format: 'json', to, document: invoiceBody() } });
    expectEnvelope(inv, 422, 'UBL_VALIDATION_FAILED');
    expect(inv.body.error.details.map((d: { rule: string }) => d.rule)).toEqual(expect.arrayContaining(['BR-FR-16_BT-152']));
  });

});

it('the sandbox network runs as adapter.sandbox-network, whose circuit breaker readiness reports', async () => {
  const res = await api(t.baseUrl, 'GET', '/health/readiness');
  expect(res.body.circuits['adapter.sandbox-network']).toMatchObject({ state: 'closed' });
});

it('a batch takes exactly 100 documents (raw deposits here), all created, in input order', async () => {
  const documents = Array.from({ length: 100 }, (_, i) => ({ type: 'invoice', format: 'raw', file: { content: Buffer.from(`scan ${i}`).toString('base64'), filename: `scan-${i}.txt` } }));
  const res = await api(t.baseUrl, 'POST', '/v1/documents/send/batch', { key: a.apiKey, body: { documents } });
  expect(res.status).toBe(200);
  expect(res.body.results).toHaveLength(100);
  expect(res.body.results.every((r: { index: number; status: string }, i: number) => r.index === i && r.status === 'created')).toBe(true);
  const last = res.body.results[99].document;
  expect((await api(t.baseUrl, 'GET', `/v1/documents/${last.id}/original`, { key: a.apiKey })).text).toBe('scan 99');
});

it('platform keys send for the company named in X-Service-Company; scopes guard each route', async () => {
  const plat = await bootstrap(t.baseUrl, { label: 'platform', keyType: 'platform' });
  const body = { type: 'invoice', format: 'json', to: b.company.peppolId, document: invoiceBody(undefined, { seller: sellerOf(plat) }) };
  expectEnvelope(await api(t.baseUrl, 'POST', '/v1/documents/send', { key: plat.apiKey, body }), 403, 'COMPANY_REQUIRED');
  const res = await api(t.baseUrl, 'POST', '/v1/documents/send', { key: plat.apiKey, body, headers: { 'x-service-company': plat.company.id } });
  expect(res.status).toBe(201);
  expect(res.body.companyId).toBe(plat.company.id);
  expect((await api(t.baseUrl, 'GET', `/v1/documents/${res.body.id}`, { key: plat.apiKey })).status).toBe(200);

  const reader = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: a.apiKey, body: { name: 'reader', scopes: ['documents.read'] } });
  expectEnvelope(await api(t.baseUrl, 'POST', '/v1/documents/send', { key: reader.body.key, body }), 403, 'INSUFFICIENT_SCOPE');
  expectEnvelope(await api(t.baseUrl, 'POST', '/v1/documents/search', { key: reader.body.key, body: {} }), 403, 'INSUFFICIENT_SCOPE');
  expectEnvelope(await api(t.baseUrl, 'POST', `/v1/documents/${res.body.id}/lifecycle`, { key: reader.body.key, body: { status: 'under_review' } }), 403, 'INSUFFICIENT_SCOPE');
  expect((await api(t.baseUrl, 'GET', '/v1/documents', { key: reader.body.key })).status).toBe(200);
});

describe('send errors', () => {
  it('422 ISSUER_MISMATCH when the document names another company as its seller, in the caller\'s own terms; nothing is stored', async () => {
    const number = `IMP-${Date.now()}`;
    // The corpus invoice as it is: its seller is SupplierOfficialName Ltd (GB1232434, 0088:9482348239847239874), not alice.
    const xml = withNumber(read('peppol-bis-invoice-3/rules/examples/base-example.xml').toString('utf8'), number, 'ubl');
    const ubl = await api(t.baseUrl, 'POST', '/v1/documents/send', { key: a.apiKey, body: { type: 'invoice', format: 'ubl-xml', to: b.company.id, xml } });
    expectEnvelope(ubl, 422, 'ISSUER_MISMATCH');
    expect(ubl.body.error.details).toEqual([expect.objectContaining({ field: 'cac:AccountingSupplierParty', rule: 'issuer' })]);
    expect(ubl.body.error.message).toContain('VAT GB1232434');
    expect(ubl.body.error.message).toContain(a.company.vatNumber);
    expect((await api(t.baseUrl, 'POST', '/v1/documents/search', { key: a.apiKey, body: { filters: { number } } })).body.data).toEqual([]);

    const json = await api(t.baseUrl, 'POST', '/v1/documents/send', { key: a.apiKey, body: { type: 'invoice', format: 'json', to: b.company.id, document: invoiceBody(undefined, { seller: sellerOf(b) }) } });
    expectEnvelope(json, 422, 'ISSUER_MISMATCH');
    expect(json.body.error.details[0]).toMatchObject({ field: 'document.seller' });

    const cii = withNumber(read('eInvoicing-EN16931/cii/examples/CII_example1.xml').toString('utf8'), `${number}-C`, 'cii');
    const ciiRes = await api(t.baseUrl, 'POST', '/v1/documents/send', { key: a.apiKey, body: { type: 'invoice', format: 'cii-xml', to: b.company.id, xml: cii } });
    expectEnvelope(ciiRes, 422, 'ISSUER_MISMATCH');
    expect(ciiRes.body.error.details[0]).toMatchObject({ field: 'ram:SellerTradeParty' });
  });

  it('self-billing: the buyer issues, so it is the sending company (named as document.seller in a self-billed JSON send)', async () => {
    const asIssuer = await api(t.baseUrl, 'POST', '/v1/documents/send', { key: a.apiKey, body: { type: 'invoice', format: 'json', selfBilled: true, to: b.company.id, document: invoiceBody(undefined, { seller: sellerOf(a), buyer: { ...sellerOf(b), name: 'Bob Supplier BV' } }) } });
    expect(asIssuer.status).toBe(201);
    const notIssuer = await api(t.baseUrl, 'POST', '/v1/documents/send', { key: a.apiKey, body: { type: 'invoice', format: 'json', selfBilled: true, to: b.company.id, document: invoiceBody(undefined, { seller: sellerOf(b), buyer: sellerOf(a) }) } });
    expectEnvelope(notIssuer, 422, 'ISSUER_MISMATCH');
    expect(notIssuer.body.error.details[0]).toMatchObject({ field: 'document.seller' });
  });

  it('422 RECIPIENT_NOT_FOUND for a participant registered nowhere', async () => {
    for (const to of ['9999:sandbox-unknown', '0208:0999999999']) {
      const res = await api(t.baseUrl, 'POST', '/v1/documents/send', { key: a.apiKey, body: { type: 'invoice', format: 'json', to, document: invoiceBody() } });
      expectEnvelope(res, 422, 'RECIPIENT_NOT_FOUND');
    }
  });

  it('422 RECIPIENT_CANNOT_RECEIVE for a type the recipient does not take', async () => {
    const none = await api(t.baseUrl, 'POST', '/v1/documents/send', { key: a.apiKey, body: { type: 'invoice', format: 'json', to: '9999:sandbox-cannot-receive', document: invoiceBody() } });
    expectEnvelope(none, 422, 'RECIPIENT_CANNOT_RECEIVE');
    const po = await api(t.baseUrl, 'POST', '/v1/documents/send', { key: a.apiKey, body: { type: 'purchase-order', format: 'json', to: '9999:sandbox-invoice-only', document: { number: 'PO-X' } } });
    expectEnvelope(po, 422, 'RECIPIENT_CANNOT_RECEIVE');
    expect(po.body.error.documentTypes).toEqual(['invoice']);
  });

  it('422 UBL_VALIDATION_FAILED with the fatal findings as details and the full findings alongside', async () => {
    const doc = invoiceBody(undefined, { lines: [{ description: 'Service', quantity: 1, unitPrice: 50, vatCategory: 'S', vatRate: 21 }, { description: 'Training', quantity: 1, unitPrice: 10, vatCategory: 'E', vatRate: 0, vatExemptionReason: 'Exempt' }] });
    const res = await api(t.baseUrl, 'POST', '/v1/documents/send', { key: a.apiKey, body: { type: 'invoice', format: 'json', to: b.company.peppolId, document: doc } });
    expectEnvelope(res, 422, 'UBL_VALIDATION_FAILED');
    expect(res.body.error.details.map((d: { rule: string }) => d.rule).sort()).toEqual(['BR-E-01', 'BR-S-08']);
    // A JSON send's findings speak JSON: the field of the body (the breakdown comes from the lines), the XPath beside it.
    expect(res.body.error.details[0]).toEqual({ field: 'document.lines', rule: expect.any(String), message: expect.any(String) });
    expect(res.body.error.findings[0]).toMatchObject({ path: 'document.lines', location: expect.stringMatching(/^\//), jsonHint: expect.stringContaining('vatCategory') });
    expect(res.body.error.findings.length).toBeGreaterThanOrEqual(2);
    // Nothing was stored.
    const list = await api(t.baseUrl, 'POST', '/v1/documents/search', { key: a.apiKey, body: { filters: { number: doc.number } } });
    expect(list.body.data).toEqual([]);
  });

  it('400s: subtype on a non-invoice, missing recipient, unknown format, XML not matching its format; 403 from a company that is not the caller', async () => {
    const sub = await api(t.baseUrl, 'POST', '/v1/documents/send', { key: a.apiKey, body: { type: 'credit-note', documentSubtype: 'PREPAYMENT_INVOICE', format: 'json', to: b.company.peppolId, document: invoiceBody() } });
    expectEnvelope(sub, 400, 'INVALID_REQUEST');
    expect(sub.body.error.details[0].field).toBe('documentSubtype');
    const noTo = await api(t.baseUrl, 'POST', '/v1/documents/send', { key: a.apiKey, body: { type: 'invoice', format: 'json', document: invoiceBody() } });
    expectEnvelope(noTo, 400, 'MISSING_FIELD');
    expect(noTo.body.error.details[0].field).toBe('to');
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/documents/send', { key: a.apiKey, body: { type: 'invoice', format: 'pdf', to: b.company.peppolId } }), 400, 'INVALID_ENUM');
    const cii = read('eInvoicing-EN16931/cii/examples/CII_example1.xml').toString('utf8');
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/documents/send', { key: a.apiKey, body: { type: 'invoice', format: 'ubl-xml', to: b.company.peppolId, xml: cii } }), 400, 'INVALID_REQUEST');
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/documents/send', { key: a.apiKey, body: { type: 'invoice', format: 'json', from: b.company.id, to: b.company.peppolId, document: invoiceBody() } }), 403, 'COMPANY_FORBIDDEN');
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/documents/send', { key: a.apiKey, body: { type: 'invoice', format: 'json', to: 'not an address', document: invoiceBody() } }), 400, 'INVALID_REQUEST');
  });

  it('a duplicate invoice number of the same seller is refused (409 DUPLICATE_DOCUMENT); an identical replay is the first answer', async () => {
    const body = { type: 'invoice', format: 'json', to: b.company.peppolId, document: invoiceBody(`DUP-${Date.now()}`) };
    const first = await api(t.baseUrl, 'POST', '/v1/documents/send', { key: a.apiKey, body });
    expect(first.status).toBe(201);
    // Same payload, no key: the key derived from the payload replays the first answer.
    const replay = await api(t.baseUrl, 'POST', '/v1/documents/send', { key: a.apiKey, body });
    expect(replay.status).toBe(201);
    expect(replay.body.id).toBe(first.body.id);
    // Same number, different content (or a new Idempotency-Key): never sent twice.
    const changed = await api(t.baseUrl, 'POST', '/v1/documents/send', { key: a.apiKey, body: { ...body, document: { ...body.document, note: 'second try' } } });
    expectEnvelope(changed, 409, 'DUPLICATE_DOCUMENT');
    expect(changed.body.error.existingId).toBe(first.body.id);
    const keyed = await api(t.baseUrl, 'POST', '/v1/documents/send', { key: a.apiKey, body, headers: { 'idempotency-key': `k-${Date.now()}` } });
    expectEnvelope(keyed, 409, 'DUPLICATE_DOCUMENT');
  });
});

describe('delivery states and the sandbox scenarios', () => {
  const sendTo = (to: string) => api(t.baseUrl, 'POST', '/v1/documents/send', { key: a.apiKey, body: { type: 'invoice', format: 'json', to, document: invoiceBody() } });

  it('access-point rejection: failed with AP_REJECTED, lifecycle 213 and document.failed', async () => {
    const res = await sendTo('9999:sandbox-ap-reject');
    expect(res.status).toBe(201);
    expect(res.body.deliveryStatus).toBe('pending');
    const done = await settle(a.apiKey, res.body.id);
    expect(done).toMatchObject({ deliveryStatus: 'failed', errorCode: 'AP_REJECTED', status: 'rejected', lifecycleCode: '213' });
    const failed = (await eventsOf(a.apiKey, 'document.failed')).find((e) => e.data.documentId === res.body.id);
    expect(failed?.data).toEqual({ documentId: res.body.id, errorCode: 'AP_REJECTED', errorMessage: expect.stringContaining('rejected') });
  });

  it('transient transport failures: re-sent 5 times then failed with TRANSPORT_FAILURE; fewer failures end delivered', async () => {
    const always = await sendTo('9999:sandbox-transient');
    const twice = await sendTo('9999:sandbox-transient-2');
    const done = await settle(a.apiKey, always.body.id, 25_000);
    expect(done).toMatchObject({ deliveryStatus: 'failed', errorCode: 'TRANSPORT_FAILURE' });
    expect(done.errorMessage).toContain('6 attempts');
    expect(await settle(a.apiKey, twice.body.id, 25_000)).toMatchObject({ deliveryStatus: 'delivered', errorCode: null });
    const failed = (await eventsOf(a.apiKey, 'document.failed')).find((e) => e.data.documentId === always.body.id);
    expect(failed?.data.errorCode).toBe('TRANSPORT_FAILURE');
  }, 60_000);

  it('delayed delivery: sent at once, delivered once the access point confirms', async () => {
    const res = await sendTo('9999:sandbox-delay-2');
    const until = Date.now() + 5_000;
    let doc = (await api(t.baseUrl, 'GET', `/v1/documents/${res.body.id}`, { key: a.apiKey })).body;
    while (!doc.sentAt && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 100));
      doc = (await api(t.baseUrl, 'GET', `/v1/documents/${res.body.id}`, { key: a.apiKey })).body;
    }
    expect(doc).toMatchObject({ deliveryStatus: 'pending', sentAt: expect.any(String), deliveredAt: null });
    expect(await settle(a.apiKey, res.body.id)).toMatchObject({ deliveryStatus: 'delivered', deliveredAt: expect.any(String) });
  });
});
