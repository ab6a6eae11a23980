/**
 * Purchase orders end to end on two Peppol access points on 127.0.0.1: A is this platform (the
 * peppol-as4 connector), B the same connector under a host of its own (test/support/peppol-network.ts).
 * A company of A creates a purchase order from JSON; its UBL 2.1 Order is valid against the official
 * XSD and travels to B as Peppol BIS Order 3.0 (document type and order-only process); B sends an
 * order to a company of A, which reads it back as a purchase order; payments are recorded against
 * both; every bad input is a 4xx in the spec's envelope.
 */
import { randomInt } from 'node:crypto';
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';
import { startLoopbackPeppol, startRemoteAccessPoint, startRemoteSmp, type LoopbackPeppol, type RemoteAccessPoint, type RemoteSmp } from '../support/peppol-network.ts';
import { eventually } from '../support/webhook-receiver.ts';
import { randomGermanVat } from '../support/vat.ts';
import { xsdErrors } from '../unit/mappings/support/xsd.ts';
import peppolAs4 from '../../adapters/peppol-as4/peppol-as4.connector.ts';
import { ORDER_DOCUMENT_TYPE_ID, ORDER_PROCESS } from '../../mappings/identifiers/peppol-network.ts';
import { purchaseOrderFromJson, purchaseOrderToUbl, type PurchaseOrder } from '../../mappings/index.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
process.env.EINV_SMP_MODE = 'test';
process.env.EINV_DELIVERY_RETRY_MS = '100';
process.env.EINV_RATE_LIMITS = 'free=100000,pro=100000';

const SUPPLIER = '0088:5790000000011';

let net: LoopbackPeppol;
let t: TestApp;
let b: RemoteAccessPoint;
let bSmp: RemoteSmp;

beforeAll(async () => {
  net = await startLoopbackPeppol('einv-po-');
  t = await startTestApp();
  b = await startRemoteAccessPoint(net, net.pki.ap2, [
    { organizationId: 'org_b', companyId: 'cmp_b1', peppolId: SUPPLIER, name: 'B Supplies', country: 'DK', documentTypes: ['invoice', 'credit-note', 'purchase-order'] },
  ]);
  bSmp = await startRemoteSmp(net, net.pki.ap2, () => b.url);
  bSmp.publish(SUPPLIER, '/as4');
}, 60_000);

afterAll(async () => {
  await t?.stop();
  await b?.close();
  await bSmp?.close();
  await net?.close();
  for (const k of ['EINV_SMP_MODE', 'EINV_DELIVERY_RETRY_MS', 'EINV_RATE_LIMITS']) delete process.env[k];
});

interface PoView { id: string; type: string; direction: string; status: string; deliveryStatus: string; errorCode: string | null; number: string; totalAmount: number | null; links: Record<string, string>; order: PurchaseOrder | null }

const orderBody = (number: string) => ({
  to: SUPPLIER,
  document: {
    number, issueDate: '2026-03-02', currency: 'EUR', buyerReference: 'DEP-7', note: 'Gate 4, mornings only',
    seller: { name: 'B Supplies' },
    delivery: { address: { street: 'Lagerweg 2', city: 'Berlin', postalCode: '10117', country: 'DE' }, requestedBy: '2026-03-12' },
    lines: [
      { name: 'Copy paper A4', quantity: 10, unit: 'PK', unitPrice: 4.25, sellerItemId: 'SP-1', vatRate: 19 },
      { name: 'Toner', quantity: 2, unitPrice: 59.9, vatRate: 19 },
    ],
  },
});

async function settled(key: string, id: string): Promise<PoView> {
  return eventually(async () => {
    const doc = (await api<PoView>(t.baseUrl, 'GET', `/v1/purchase-orders/${id}`, { key })).body;
    return doc.deliveryStatus === 'delivered' || doc.status === 'rejected' ? doc : undefined;
  }, 20_000, `purchase order ${id} to be delivered`, 100);
}

describe('A company of A orders from B', () => {
  it('creates the order from JSON: a UBL 2.1 Order valid against its XSD, delivered to B as Peppol BIS Order 3.0, received there as a purchase order; paid against', async () => {
    const buyer = await bootstrap(t.baseUrl, { label: 'po-a1' });
    const number = `PO-A-${randomInt(1e9)}`;
    const created = await api<PoView>(t.baseUrl, 'POST', '/v1/purchase-orders', { key: buyer.apiKey, body: orderBody(number) });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`/v1/purchase-orders/${created.body.id}`);
    expect(created.body).toMatchObject({
      type: 'purchase-order', direction: 'outgoing', number, deliveryStatus: 'pending', totalAmount: 193.14,
      order: {
        number, currency: 'EUR', totals: { lineExtension: 162.3, tax: 30.84, payable: 193.14 },
        buyer: { name: expect.any(String), peppolId: buyer.company.peppolId, vatNumber: buyer.company.vatNumber },
        seller: { name: 'B Supplies', peppolId: SUPPLIER },
      },
    });

    // The record is the UBL Order, valid against the official UBL 2.1 Order schema.
    const xml = await (await fetch(`${t.baseUrl}/v1/documents/${created.body.id}/xml`, { headers: { authorization: `Bearer ${buyer.apiKey}` } })).text();
    expect(xml).toMatch(/^<\?xml[^>]*>\s*<Order xmlns="urn:oasis:names:specification:ubl:schema:xsd:Order-2"/);
    expect(xml).toContain('<cbc:CustomizationID>urn:fdc:peppol.eu:poacc:trns:order:3</cbc:CustomizationID>');
    expect(xsdErrors(xml)).toEqual([]);

    const delivered = await settled(buyer.apiKey, created.body.id);
    expect(delivered).toMatchObject({ deliveryStatus: 'delivered', errorCode: null, order: created.body.order });
    const atB = b.host.inboxed.find((d) => d.messageId === `${created.body.id}@einv`);
    expect(atB).toMatchObject({
      type: 'purchase-order', number, sender: { peppolId: buyer.company.peppolId },
      recipient: { companyId: 'cmp_b1', peppolId: SUPPLIER },
      // COUNTRY_C1: the buyer's country (the sender of an order).
      evidence: { details: { documentTypeId: ORDER_DOCUMENT_TYPE_ID, processId: ORDER_PROCESS.value, countryC1: buyer.company.vatNumber.slice(0, 2) } },
    });
    expect(atB!.payload.xml).toBe(xml);
    expect(atB!.payload.normalized).toEqual(created.body.order);

    // Listed with the buyer's purchase orders.
    const list = await api<{ data: Array<{ id: string; type: string }> }>(t.baseUrl, 'GET', '/v1/purchase-orders?direction=outgoing', { key: buyer.apiKey });
    expect(list.body.data.map((d) => d.id)).toContain(created.body.id);
    expect(list.body.data.every((d) => d.type === 'purchase-order')).toBe(true);

    // A payment against the order, and the balance against its payable amount.
    const paid = await api(t.baseUrl, 'POST', `/v1/payments/documents/${created.body.id}/pay`, { key: buyer.apiKey, body: { amount: 93.14, date: '2026-03-05', method: 'SEPA', reference: number } });
    expect(paid.status).toBe(201);
    expect(paid.body).toMatchObject({ objectId: created.body.id, objectType: 'purchase-order', amount: 93.14, lifecycleStatus: null });
    const info = await api(t.baseUrl, 'GET', `/v1/payments/documents/${created.body.id}`, { key: buyer.apiKey });
    expect(info.body).toMatchObject({ objectType: 'purchase-order', totalPaid: 93.14, balanceDue: 100, currency: 'EUR' });
  }, 60_000);
});

describe('B orders from a company of A', () => {
  it('the platform stores the UBL Order for its company and reads it back as a purchase order', async () => {
    const org = await bootstrap(t.baseUrl, { label: 'po-y', keyType: 'platform' });
    const company = (await api<{ id: string; peppolId: string }>(t.baseUrl, 'POST', '/v1/companies', { key: org.apiKey, body: { vatNumber: randomGermanVat() } })).body;
    expect((await api(t.baseUrl, 'POST', `/v1/companies/${company.id}/register`, { key: org.apiKey })).status).toBe(200);
    net.sml.register(company.peppolId, `${t.baseUrl}/smp`);

    const number = `PO-B-${randomInt(1e9)}`;
    const order = purchaseOrderFromJson({
      number, issueDate: '2026-03-03', currency: 'DKK',
      buyer: { name: 'B Supplies', peppolId: SUPPLIER, address: { country: 'DK' } }, seller: { name: 'A Seller', peppolId: company.peppolId },
      lines: [{ name: 'Consulting', quantity: 8, unit: 'HUR', unitPrice: 950 }],
    }, { today: '2026-03-03' });
    const xml = purchaseOrderToUbl(order);
    const documentId = `b2a_${randomInt(1e9)}`;
    const sent = await peppolAs4.send!({
      documentId, livemode: false, type: 'purchase-order', number,
      sender: { peppolId: SUPPLIER, name: 'B Supplies', organizationId: 'org_b', companyId: 'cmp_b1' },
      recipient: { peppolId: company.peppolId },
      payload: { content: Buffer.from(xml).toString('base64'), contentType: 'application/xml', xml, syntax: 'ubl-2.1', normalized: order as unknown as Record<string, unknown> },
      attempt: 1,
    }, b.host);
    expect(sent).toMatchObject({ outcome: 'delivered', evidence: { counterpartAccessPoint: 'POP000001', details: { documentTypeId: ORDER_DOCUMENT_TYPE_ID, processId: ORDER_PROCESS.value } } });

    const h = { 'X-Service-Company': company.id };
    const incoming = await api<{ data: Array<{ id: string; number: string; direction: string }> }>(t.baseUrl, 'GET', '/v1/purchase-orders?direction=incoming', { key: org.apiKey, headers: h });
    const row = incoming.body.data.find((d) => d.number === number)!;
    expect(row).toMatchObject({ direction: 'incoming' });
    const view = await api<PoView>(t.baseUrl, 'GET', `/v1/purchase-orders/${row.id}`, { key: org.apiKey, headers: h });
    expect(view.status).toBe(200);
    expect(view.body).toMatchObject({ type: 'purchase-order', direction: 'incoming', status: 'received', order });
    const events = await api<{ data: Array<{ type: string; data: { documentId: string; type: string } }> }>(t.baseUrl, 'GET', '/v1/events?limit=20', { key: org.apiKey, headers: h });
    expect(events.body.data.find((e) => e.type === 'document.received' && e.data.documentId === row.id)?.data.type).toBe('purchase-order');
    // The seller records the buyer's prepayment against the order it received.
    const paid = await api(t.baseUrl, 'POST', `/v1/payments/documents/${row.id}/pay`, { key: org.apiKey, headers: h, body: { amount: 1000, currency: 'DKK', method: 'wire' } });
    expect(paid.status).toBe(201);
    expect((await api(t.baseUrl, 'GET', `/v1/payments/documents/${row.id}`, { key: org.apiKey, headers: h })).body).toMatchObject({ balanceDue: 6600, totalPaid: 1000, currency: 'DKK' });
  }, 60_000);
});

describe('bad input: a clear 4xx in the envelope, nothing sent', () => {
  let key: string;
  let peppolId: string;
  beforeAll(async () => {
    const a = await bootstrap(t.baseUrl, { label: 'po-bad' });
    key = a.apiKey;
    peppolId = a.company.peppolId;
  });
  const post = (body: unknown) => api(t.baseUrl, 'POST', '/v1/purchase-orders', { key, body });
  const base = () => orderBody(`PO-BAD-${randomInt(1e9)}`);

  it.each([
    ['no document', { to: SUPPLIER }, 400, 'MISSING_FIELD', 'document'],
    ['no lines', { to: SUPPLIER, document: { number: 'X', seller: { name: 'S' } } }, 400, 'MISSING_FIELD', 'document.lines'],
    ['no supplier at all', { document: { number: 'X', seller: { name: 'S' }, lines: [{ name: 'x', quantity: 1 }] } }, 400, 'MISSING_FIELD', 'to'],
    ['no seller name', { to: SUPPLIER, document: { number: 'X', lines: [{ name: 'x', quantity: 1 }] } }, 400, 'MISSING_FIELD', 'document.seller.name'],
    ['a currency that is not ISO 4217', { ...base(), document: { ...base().document, currency: 'EURO' } }, 400, 'INVALID_CURRENCY', 'document.currency'],
    ['an impossible date', { ...base(), document: { ...base().document, issueDate: '2026-02-30' } }, 400, 'INVALID_DATE', 'document.issueDate'],
    ['a negative price', { ...base(), document: { ...base().document, lines: [{ name: 'x', quantity: 1, unitPrice: -1 }] } }, 400, 'INVALID_REQUEST', 'document.lines[0].unitPrice'],
    ['a seller other than the recipient', { ...base(), document: { ...base().document, seller: { name: 'S', peppolId: '0088:5790000000028' } } }, 400, 'INVALID_REQUEST', 'document.seller.peppolId'],
    ['a buyer other than the sending company', { ...base(), document: { ...base().document, buyer: { name: 'Else', peppolId: '0088:5790000000035' } } }, 422, 'ISSUER_MISMATCH', 'document.buyer.peppolId'],
    ['a supplier on no network', { ...base(), to: '0088:5790000000097', document: { ...base().document } }, 422, 'RECIPIENT_NOT_FOUND', 'to'],
  ])('%s', async (_name, body, status, code, field) => {
    const res = await post(body);
    expectEnvelope(res, status, code);
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('a UBL Order sent through /v1/documents/send is judged by the UBL 2.1 Order schema; other XML is not a purchase order', async () => {
    const order = purchaseOrderFromJson({ number: 'PO-XSD', buyer: { name: 'B', peppolId }, seller: { name: 'S', peppolId: SUPPLIER }, lines: [{ name: 'x', quantity: 1 }] }, { today: '2026-03-01' });
    const broken = purchaseOrderToUbl(order).replace(/<cbc:IssueDate>[^<]*<\/cbc:IssueDate>/, '<cbc:IssueDate>soon</cbc:IssueDate>');
    const invalid = await api(t.baseUrl, 'POST', '/v1/documents/send', { key, body: { type: 'purchase-order', format: 'ubl-xml', to: SUPPLIER, xml: broken } });
    expectEnvelope(invalid, 422, 'UBL_VALIDATION_FAILED');
    expect(JSON.stringify(invalid.body.error)).toContain('IssueDate');
    const notAnOrder = await api(t.baseUrl, 'POST', '/v1/documents/send', { key, body: { type: 'purchase-order', format: 'ubl-xml', to: SUPPLIER, xml: '<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>' } });
    expectEnvelope(notAnOrder, 400, 'INVALID_REQUEST');
  });

  it('an id that is not a purchase order, or no document at all: 404', async () => {
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/purchase-orders/doc_01JD7Z3V9Q1M2N3P4R5S6T7V8W', { key }), 404, 'DOCUMENT_NOT_FOUND');
    const raw = await api<{ id: string }>(t.baseUrl, 'POST', '/v1/documents/send', { key, body: { type: 'invoice', format: 'raw', file: { content: Buffer.from('hello').toString('base64') } } });
    expect(raw.status).toBe(201);
    expectEnvelope(await api(t.baseUrl, 'GET', `/v1/purchase-orders/${raw.body.id}`, { key }), 404, 'DOCUMENT_NOT_FOUND');
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/purchase-orders?direction=sideways', { key }), 400, 'INVALID_ENUM');
  });
});
