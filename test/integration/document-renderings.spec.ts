/**
 * Readable invoices and Factur-X over HTTP: every structured invoice has an HTML preview (served
 * under a CSP that lets nothing run), a PDF (drawn when it carries none) and a Factur-X; a document
 * with no structured invoice answers 404 in the envelope. A sender asks for Factur-X as the form
 * its invoice travels in to a French recipient: the PDF delivered is the one the sender reads back,
 * the recipient's copy is that hybrid, read as the same invoice; another recipient is refused.
 */
import { PDFDocument } from 'pdf-lib';
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';
import { issuers, type Issuers } from '../support/issuers.ts';
import { eventually } from '../support/webhook-receiver.ts';
import { pdfPagesText } from '../support/pdf-text.ts';
import { extractHybridPdf } from '../../mappings/index.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
process.env.EINV_DELIVERY_RETRY_MS = '20';
process.env.EINV_RATE_LIMITS = 'free=100000,platform=100000';

const SELLER_VAT = 'FR44732829320';
const BUYER_VAT = 'FR40303265045';
const seller = { name: 'Atelier SARL', vatNumber: SELLER_VAT, address: { street: '2 rue de Lyon', city: 'Lyon', postalCode: '69001', country: 'FR' } };
const buyer = { name: 'Client SA', vatNumber: BUYER_VAT, address: { street: '1 rue de Paris', city: 'Paris', postalCode: '75001', country: 'FR' } };

let t: TestApp;
let sellers: Issuers;
let buyers: Issuers;
let elsewhere: Awaited<ReturnType<typeof bootstrap>>;

beforeAll(async () => {
  t = await startTestApp();
  [sellers, buyers, elsewhere] = [await issuers(t.baseUrl, [SELLER_VAT], 'fr-seller'), await issuers(t.baseUrl, [BUYER_VAT], 'fr-buyer'), await bootstrap(t.baseUrl, { label: 'elsewhere' })];
}, 60_000);
afterAll(async () => { await t?.stop(); });

let n = 0;
const invoice = (number: string) => ({
  number, issueDate: '2026-03-01', dueDate: '2026-04-01', buyerReference: 'PO-7', seller, buyer, paymentTerms: 'Net 30 days',
  lines: [{ description: 'Design work', quantity: 3, unit: 'HUR', unitPrice: 80, vatRate: 20 }, { description: 'Printing', quantity: 1, unit: 'C62', unitPrice: 45.5, vatRate: 5.5 }],
});

const asSeller = { key: '', headers: {} as Record<string, string> };
async function send(extra: Record<string, unknown>, to = buyers.companies[BUYER_VAT]!.peppolId) {
  asSeller.key = sellers.apiKey;
  asSeller.headers = sellers.as(SELLER_VAT);
  const number = `RND-${Date.now()}-${++n}`;
  const res = await api<{ id: string; links: Record<string, string> }>(t.baseUrl, 'POST', '/v1/documents/send', { ...asSeller, body: { type: 'invoice', format: 'json', to, document: invoice(number), ...extra } });
  return { res, number };
}

async function bytes(key: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; type: string | null; headers: Headers; body: Buffer }> {
  const res = await fetch(`${t.baseUrl}${path}`, { headers: { authorization: `Bearer ${key}`, ...headers } });
  return { status: res.status, type: res.headers.get('content-type'), headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

it('a structured invoice: HTML preview under a strict CSP, a drawn PDF and a Factur-X, each showing the invoice', async () => {
  const { res, number } = await send({});
  expect(res.status).toBe(201);
  const id = res.body.id;
  expect(res.body.links).toMatchObject({ pdf: `/v1/documents/${id}/pdf`, preview: `/v1/documents/${id}/preview`, facturx: `/v1/documents/${id}/facturx` });

  const preview = await api(t.baseUrl, 'GET', res.body.links.preview!, asSeller);
  expect(preview.status).toBe(200);
  expect(preview.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(preview.headers.get('content-security-policy')).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+'/);
  expect(preview.headers.get('x-content-type-options')).toBe('nosniff');
  expect(preview.text).not.toMatch(/<script/i);
  for (const expected of [number, 'Atelier SARL', 'Client SA', 'Design work', 'Printing', 'EUR 240.00', 'EUR 45.50', 'EUR 285.50', 'EUR 50.50', 'EUR 336.00', 'Net 30 days']) expect(preview.text).toContain(expected);

  const pdf = await bytes(sellers.apiKey, res.body.links.pdf!, asSeller.headers);
  expect(pdf.status).toBe(200);
  expect(pdf.type).toBe('application/pdf');
  expect(pdf.headers.get('content-disposition')).toBe(`inline; filename="${number}.pdf"`);
  const text = (await pdfPagesText(pdf.body)).join('\n').replace(/\s+/g, ' ');
  for (const expected of [number, 'Atelier SARL', 'Client SA', 'Design work', 'Printing', 'Total with VAT EUR 336.00', 'Amount due EUR 336.00']) expect(text).toContain(expected);
  // Drawn again on the next call, the same bytes.
  expect((await bytes(sellers.apiKey, res.body.links.pdf!, asSeller.headers)).body.equals(pdf.body)).toBe(true);

  const fx = await bytes(sellers.apiKey, res.body.links.facturx!, asSeller.headers);
  expect(fx.type).toBe('application/pdf');
  const hybrid = await extractHybridPdf(fx.body);
  expect(hybrid).toMatchObject({ flavour: 'factur-x', profile: 'EN 16931', relationship: 'Alternative', xmpIssues: [] });
  expect(hybrid.xml.toString('utf8')).toContain(`<ram:ID>${number}</ram:ID>`);
  expect((await bytes(sellers.apiKey, res.body.links.facturx!, asSeller.headers)).body.equals(fx.body)).toBe(true);
}, 60_000);

it('outputFormat=factur-x to a French recipient: the Factur-X travels, the recipient\'s copy is that hybrid, the same invoice', async () => {
  const { res, number } = await send({ outputFormat: 'factur-x' });
  expect(res.status).toBe(201);
  const id = res.body.id;
  const delivered = await eventually(async () => {
    const doc = await api(t.baseUrl, 'GET', `/v1/documents/${id}`, asSeller);
    return doc.body.deliveryStatus === 'delivered' ? doc.body : undefined;
  }, 20_000, 'the delivery');
  expect(delivered).toMatchObject({ format: 'json', number });

  // The sender's record: the original stays the UBL rendered from its JSON; xml is the CII delivered; pdf and facturx the PDF delivered.
  const fx = await bytes(sellers.apiKey, `/v1/documents/${id}/facturx`, asSeller.headers);
  expect((await bytes(sellers.apiKey, `/v1/documents/${id}/pdf`, asSeller.headers)).body.equals(fx.body)).toBe(true);
  const original = await api(t.baseUrl, 'GET', `/v1/documents/${id}/original`, asSeller);
  expect(original.text).toContain('<Invoice');
  const xml = await api(t.baseUrl, 'GET', `/v1/documents/${id}/xml`, asSeller);
  expect(xml.text).toContain('CrossIndustryInvoice');
  const hybrid = await extractHybridPdf(fx.body);
  expect(hybrid).toMatchObject({ flavour: 'factur-x', profile: 'EN 16931', xmpIssues: [] });
  expect(hybrid.xml.toString('utf8')).toBe(xml.text);
  const loaded = await PDFDocument.load(fx.body, { updateMetadata: false });
  expect(loaded.getTitle()).toBe(`Invoice ${number}`);

  // The recipient received the hybrid itself: its original and PDF are those bytes, read as the same invoice.
  const incoming = await eventually(async () => {
    const list = await api<{ data: Array<{ id: string; number: string; format: string; links: Record<string, string> }> }>(t.baseUrl, 'GET', '/v1/documents?direction=incoming', { key: buyers.apiKey, headers: buyers.as(BUYER_VAT) });
    return list.body.data.find((d) => d.number === number);
  }, 20_000, 'the recipient\'s copy');
  const theirs = await bytes(buyers.apiKey, `/v1/documents/${incoming.id}/original`, buyers.as(BUYER_VAT));
  expect(theirs.type).toBe('application/pdf');
  expect(theirs.body.equals(fx.body)).toBe(true);
  expect((await bytes(buyers.apiKey, incoming.links.pdf!, buyers.as(BUYER_VAT))).body.equals(fx.body)).toBe(true);
  const [mine, received] = [
    (await api(t.baseUrl, 'GET', `/v1/documents/${id}/json`, asSeller)).body,
    (await api(t.baseUrl, 'GET', `/v1/documents/${incoming.id}/json`, { key: buyers.apiKey, headers: buyers.as(BUYER_VAT) })).body,
  ];
  for (const field of ['number', 'issueDate', 'dueDate', 'currency', 'seller', 'buyer', 'vatBreakdown', 'totals', 'paymentTerms'] as const) expect(received[field]).toEqual(mine[field]);
  expect(received.lines.map((l: { netAmount: string; item: { name: string } }) => [l.item.name, l.netAmount])).toEqual(mine.lines.map((l: { netAmount: string; item: { name: string } }) => [l.item.name, l.netAmount]));
}, 60_000);

it('outputFormat=factur-x is refused for a recipient that is not French, and for a raw deposit', async () => {
  const { res } = await send({ outputFormat: 'factur-x' }, elsewhere.company.peppolId);
  expectEnvelope(res, 400, 'INVALID_REQUEST');
  expect((res.body as unknown as { error: { details: unknown[] } }).error.details[0]).toMatchObject({ field: 'outputFormat', rule: 'factur-x' });
  const raw = await api(t.baseUrl, 'POST', '/v1/documents/send', { key: sellers.apiKey, headers: sellers.as(SELLER_VAT), body: { type: 'invoice', format: 'raw', file: { content: Buffer.from('hello').toString('base64') }, outputFormat: 'factur-x' } });
  expectEnvelope(raw, 400, 'INVALID_REQUEST');
  expect(raw.body.error.details[0]).toMatchObject({ field: 'outputFormat' });
  const bad = await api(t.baseUrl, 'POST', '/v1/documents/send', { key: sellers.apiKey, headers: sellers.as(SELLER_VAT), body: { type: 'invoice', format: 'json', to: 'x', document: {}, outputFormat: 'pdf' } });
  expectEnvelope(bad, 400, 'INVALID_ENUM');
}, 60_000);

it('a document with no structured invoice has no preview, PDF or Factur-X: 404 in the envelope', async () => {
  const raw = await api<{ id: string; links: Record<string, string> }>(t.baseUrl, 'POST', '/v1/documents/send', { key: sellers.apiKey, headers: sellers.as(SELLER_VAT), body: { type: 'invoice', format: 'raw', file: { content: Buffer.from('just text').toString('base64'), contentType: 'text/plain' } } });
  expect(raw.status).toBe(201);
  expect(raw.body.links.preview).toBeUndefined();
  expect(raw.body.links.pdf).toBeUndefined();
  for (const part of ['preview', 'pdf', 'facturx']) {
    expectEnvelope(await api(t.baseUrl, 'GET', `/v1/documents/${raw.body.id}/${part}`, { key: sellers.apiKey, headers: sellers.as(SELLER_VAT) }), 404, 'RESOURCE_NOT_FOUND');
    expectEnvelope(await api(t.baseUrl, 'GET', `/v1/documents/doc_nothere/${part}`, { key: sellers.apiKey, headers: sellers.as(SELLER_VAT) }), 404, 'DOCUMENT_NOT_FOUND');
  }
}, 60_000);
