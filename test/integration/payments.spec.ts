/**
 * Payments through the API, between two sandbox organizations exchanging invoices: recording
 * payments and the balance due, the lifecycle moves of the spec's table on both parties' sides
 * (and the documents that cannot move), payment profiles with the IBAN check, and the ISO 20022
 * pain.001.001.09 export: per-document errors, the sandbox placeholder, and a live file for several
 * invoices validated against the ISO XSD.
 */
import pg from 'pg';
import { issuers, type Issuers } from '../support/issuers.ts';
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';
import { makeLive } from '../support/live-key.ts';
import { pain001XsdErrors } from '../support/pain001-xsd.ts';
import { nextBusinessDay } from '../../services/payments/business-days.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
process.env.EINV_RATE_LIMITS = 'free=100000';

const seller = { name: 'Acme SPRL', vatNumber: 'BE0403170701', address: { street: 'Rue Neuve 1', city: 'Brussels', postalCode: '1000', country: 'BE' } };
const otherSeller = { name: 'Bäckerei Müller & Söhne', vatNumber: 'BE0202239951', address: { street: 'Rue Haute 5', city: 'Liège', postalCode: '4000', country: 'BE' } };
const buyerParty = { name: 'Client SA', vatNumber: 'FR40303265045', address: { street: '1 rue de Paris', city: 'Paris', postalCode: '75001', country: 'FR' } };

let t: TestApp;
let supplier: Issuers;
let buyer: Awaited<ReturnType<typeof bootstrap>>;
beforeAll(async () => {
  t = await startTestApp();
  [supplier, buyer] = [await issuers(t.baseUrl, [seller.vatNumber, otherSeller.vatNumber], 'supplier'), await bootstrap(t.baseUrl, { label: 'buyer' })];
});
afterAll(async () => { await t.stop(); });

let n = 0;
/** Sends a 242.00 EUR invoice (2 × 100 + 21 % VAT) to `to` and waits until its recipient has its copy. */
async function exchange(to: { apiKey: string; company: { peppolId: string } } = buyer, from = seller): Promise<{ out: string; inc: string }> {
  const number = `PAY-${Date.now()}-${++n}`;
  const res = await api(t.baseUrl, 'POST', '/v1/documents/send', {
    key: supplier.apiKey, headers: supplier.as(from.vatNumber),
    body: { type: 'invoice', format: 'json', to: to.company.peppolId, document: { number, issueDate: '2026-03-01', dueDate: '2026-04-01', buyerReference: 'PO', seller: from, buyer: buyerParty, lines: [{ description: 'Work', quantity: 2, unit: 'HUR', unitPrice: 100, vatRate: 21 }] } },
  });
  expect(res.status).toBe(201);
  const until = Date.now() + 15_000;
  for (;;) {
    const found = await api(t.baseUrl, 'POST', '/v1/documents/search', { key: to.apiKey, body: { filters: { number, direction: 'incoming' } } });
    const out = await api(t.baseUrl, 'GET', `/v1/documents/${res.body.id}`, { key: supplier.apiKey });
    if (found.body.data.length && out.body.deliveryStatus === 'delivered') return { out: res.body.id, inc: found.body.data[0].id };
    if (Date.now() > until) throw new Error('not delivered');
    await new Promise((r) => setTimeout(r, 100));
  }
}

const pay = (key: string, id: string, body: Record<string, unknown>) => api(t.baseUrl, 'POST', `/v1/payments/documents/${id}/pay`, { key, body });
const info = async (key: string, id: string) => (await api(t.baseUrl, 'GET', `/v1/payments/documents/${id}`, { key })).body;
const move = (key: string, id: string, body: Record<string, unknown>) => api(t.baseUrl, 'POST', `/v1/documents/${id}/lifecycle`, { key, body });
const lifecycle = async (key: string, id: string) => (await api(t.baseUrl, 'GET', `/v1/documents/${id}/lifecycle`, { key })).body;
const approve = async (id: string) => {
  expect((await move(buyer.apiKey, id, { status: 'under_review' })).status).toBe(200);
  expect((await move(buyer.apiKey, id, { status: 'approved' })).status).toBe(200);
};

describe('recording payments', () => {
  it('a document nothing was paid on has an empty payments array and its whole total due', async () => {
    const { out } = await exchange();
    expect(await info(supplier.apiKey, out)).toEqual({ objectId: out, objectType: 'invoice', organizationId: supplier.organizationId, payments: [], balanceDue: 242, totalPaid: 0, currency: 'EUR' });
  });

  it('supplier: recorded before approval without a move, then approved → partially_paid → paid as the payments reach the total', async () => {
    const { out, inc } = await exchange();
    const early = await pay(supplier.apiKey, out, { amount: 50, date: '2026-03-10', method: 'SEPA', reference: 'RF18539007547034', note: 'advance' });
    expect(early.status).toBe(201);
    expect(early.body).toMatchObject({ objectId: out, objectType: 'invoice', organizationId: supplier.organizationId, amount: 50, currency: 'EUR', paidAt: '2026-03-10T00:00:00.000Z', method: 'SEPA', reference: 'RF18539007547034', note: 'advance', status: 'recorded', lifecycleStatus: null });
    expect(early.body.id).toMatch(/^pay_/);
    expect((await lifecycle(supplier.apiKey, out)).status).toBe('sent');

    await approve(inc);
    const partial = await pay(supplier.apiKey, out, { amount: 100, paidAt: '2026-04-01T10:00:00+02:00', method: 'wire' });
    expect(partial.body).toMatchObject({ lifecycleStatus: 'partially_paid', paidAt: '2026-04-01T08:00:00.000Z' });
    const afterPartial = await lifecycle(supplier.apiKey, out);
    expect(afterPartial).toMatchObject({ status: 'partially_paid', currentCode: '212' });
    expect(afterPartial.history.at(-1)).toMatchObject({ code: '212', partial: true, emittedBy: 'supplier', amounts: { MEN: '100.00', RAP: '92.00' }, paymentCurrency: 'EUR', paymentDate: '2026-04-01' });
    // The buyer's copy follows.
    expect((await lifecycle(buyer.apiKey, inc)).status).toBe('partially_paid');

    const rest = await pay(supplier.apiKey, out, { amount: 92, date: '2026-04-15' });
    expect(rest.body.lifecycleStatus).toBe('paid');
    expect(await lifecycle(supplier.apiKey, out)).toMatchObject({ status: 'paid', currentCode: '212', allowedTransitions: [] });

    const paid = await info(supplier.apiKey, out);
    expect(paid).toMatchObject({ balanceDue: 0, totalPaid: 242, currency: 'EUR' });
    expect(paid.payments.map((p: { amount: number; lifecycleStatus: string | null }) => [p.amount, p.lifecycleStatus])).toEqual([[50, null], [100, 'partially_paid'], [92, 'paid']]);

    // Paid is terminal: a further payment is still recorded, with no move, and the balance goes negative.
    const extra = await pay(supplier.apiKey, out, { amount: 1.5 });
    expect(extra.body).toMatchObject({ status: 'recorded', lifecycleStatus: null });
    expect(await info(supplier.apiKey, out)).toMatchObject({ balanceDue: -1.5, totalPaid: 243.5 });
  });

  it('disputed → paid when one payment covers the total', async () => {
    const { out, inc } = await exchange();
    expect((await move(buyer.apiKey, inc, { status: 'under_review' })).status).toBe(200);
    expect((await move(buyer.apiKey, inc, { status: 'disputed', reason: 'Quantity differs' })).body.status).toBe('disputed');
    const res = await pay(supplier.apiKey, out, { amount: 242, method: 'SEPA' });
    expect(res.body.lifecycleStatus).toBe('paid');
    expect((await lifecycle(buyer.apiKey, inc))).toMatchObject({ status: 'paid', currentCode: '212' });
  });

  it('disputed → partially_paid when it does not', async () => {
    const { out, inc } = await exchange();
    await move(buyer.apiKey, inc, { status: 'under_review' });
    await move(buyer.apiKey, inc, { status: 'disputed', reason: 'Late delivery' });
    expect((await pay(supplier.apiKey, out, { amount: 42 })).body.lifecycleStatus).toBe('partially_paid');
    expect((await lifecycle(supplier.apiKey, out)).history.at(-1)).toMatchObject({ code: '212', partial: true, amounts: { MEN: '42.00', RAP: '200.00' } });
  });

  it('buyer: a partial payment is recorded without a move (no buyer-side partial status), the covering one moves to paid (211)', async () => {
    const { out, inc } = await exchange();
    await approve(inc);
    const first = await pay(buyer.apiKey, inc, { amount: 200, reference: 'TRF-1' });
    expect(first.body).toMatchObject({ lifecycleStatus: null, status: 'recorded' });
    expect((await lifecycle(buyer.apiKey, inc)).status).toBe('approved');
    const second = await pay(buyer.apiKey, inc, { amount: 42, reference: 'TRF-2', date: '2026-04-02' });
    expect(second.body.lifecycleStatus).toBe('paid');
    const lc = await lifecycle(buyer.apiKey, inc);
    expect(lc).toMatchObject({ status: 'paid', currentCode: '211' });
    expect(lc.history.at(-1)).toMatchObject({ code: '211', emittedBy: 'buyer', paymentReference: 'TRF-2', paymentDate: '2026-04-02', amounts: { MPA: '242.00' } });
    // Each party keeps its own payment records.
    expect((await info(buyer.apiKey, inc)).totalPaid).toBe(242);
    expect((await info(supplier.apiKey, out)).totalPaid).toBe(0);
  });

  it.each([
    ['received', async (_ids: { out: string; inc: string }) => undefined, 'received'],
    ['under_review', async (ids: { out: string; inc: string }) => { await move(buyer.apiKey, ids.inc, { status: 'under_review' }); }, 'under_review'],
  ])('a %s document cannot legally move: recorded, lifecycleStatus null, status unchanged', async (_name, prepare, status) => {
    const ids = await exchange();
    await prepare(ids);
    const res = await pay(buyer.apiKey, ids.inc, { amount: 242 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'recorded', lifecycleStatus: null });
    expect((await lifecycle(buyer.apiKey, ids.inc)).status).toBe(status);
    expect((await info(buyer.apiKey, ids.inc)).payments).toHaveLength(1);
  });

  it('a purchase order is paid too: no lifecycle, no total, so no balance', async () => {
    const po = await api(t.baseUrl, 'POST', '/v1/documents/send', { key: supplier.apiKey, headers: supplier.as(seller.vatNumber), body: { type: 'purchase-order', format: 'json', to: buyer.company.peppolId, document: { number: `PO-${Date.now()}`, issueDate: '2026-03-01', lines: [{ description: 'Paper', quantity: 10 }] } } });
    expect(po.status).toBe(201);
    const res = await pay(supplier.apiKey, po.body.id, { amount: 30, method: 'card' });
    expect(res.body).toMatchObject({ objectType: 'purchase-order', lifecycleStatus: null, amount: 30 });
    expect(await info(supplier.apiKey, po.body.id)).toMatchObject({ objectType: 'purchase-order', balanceDue: null, totalPaid: 30, payments: [expect.objectContaining({ method: 'card' })] });
  });

  it('refuses bad input with the spec\'s codes, and records nothing', async () => {
    const { out } = await exchange();
    expectEnvelope(await pay(supplier.apiKey, out, {}), 400, 'MISSING_FIELD');
    expectEnvelope(await pay(supplier.apiKey, out, { amount: 0 }), 400, 'INVALID_REQUEST');
    expectEnvelope(await pay(supplier.apiKey, out, { amount: -5 }), 400, 'INVALID_REQUEST');
    expectEnvelope(await pay(supplier.apiKey, out, { amount: 1.234 }), 400, 'INVALID_REQUEST');
    expectEnvelope(await pay(supplier.apiKey, out, { amount: 10, currency: 'EURO' }), 400, 'INVALID_CURRENCY');
    const other = await pay(supplier.apiKey, out, { amount: 10, currency: 'USD' });
    expectEnvelope(other, 400, 'INVALID_CURRENCY');
    expect(other.body.error.message).toMatch(/in EUR/);
    expectEnvelope(await pay(supplier.apiKey, out, { amount: 10, date: 'last tuesday' }), 400, 'INVALID_DATE');
    expectEnvelope(await pay(supplier.apiKey, out, { amount: 10, date: '2026-02-30' }), 400, 'INVALID_DATE');
    expectEnvelope(await pay(supplier.apiKey, out, { amount: 10, paidAt: '2026-04-01T10:00:00' }), 400, 'INVALID_DATE');
    expectEnvelope(await pay(supplier.apiKey, out, { amount: 10, method: 'bitcoin' }), 400, 'INVALID_ENUM');
    expectEnvelope(await pay(supplier.apiKey, 'doc_01JD7Z3V9Q1M2N3P4R5S6T7V8W', { amount: 10 }), 404, 'DOCUMENT_NOT_FOUND');
    // Another organization's document is not visible.
    expectEnvelope(await pay(buyer.apiKey, out, { amount: 10 }), 404, 'DOCUMENT_NOT_FOUND');
    expectEnvelope(await api(t.baseUrl, 'GET', `/v1/payments/documents/${out}`, { key: buyer.apiKey }), 404, 'DOCUMENT_NOT_FOUND');
    expect((await info(supplier.apiKey, out)).payments).toEqual([]);
  });
});

describe('payment profiles', () => {
  it('registers a bank account (IBAN mod-97, BIC) and terms per company, once per company', async () => {
    const org = await bootstrap(t.baseUrl, { label: 'profiles' });
    const put = (body: Record<string, unknown>) => api(t.baseUrl, 'PUT', '/v1/payments/profiles', { key: org.apiKey, body });
    const own = await put({ companyId: org.company.id, bankAccount: { iban: 'be68 5390 0754 7034', bic: 'gebabebb' }, terms: { netDays: 30, discountPercent: 2, discountDays: 10 } });
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ companyId: org.company.id, peppolId: org.company.peppolId.toLowerCase(), bankAccount: { iban: 'BE68539007547034', bic: 'GEBABEBB' }, terms: { netDays: 30, discountPercent: 2, discountDays: 10, note: null } });
    const again = await put({ companyId: org.company.id, terms: { netDays: 45 } });
    expect(again.body).toMatchObject({ id: own.body.id, bankAccount: { iban: 'BE68539007547034' }, terms: { netDays: 45 } });

    const supplierProfile = await put({ vatNumber: 'DE123456789', name: 'Lieferant GmbH', bankAccount: { iban: 'DE89370400440532013000' } });
    expect(supplierProfile.body).toMatchObject({ companyId: null, peppolId: '9930:de123456789', name: 'Lieferant GmbH', bankAccount: { bic: null } });
    const listed = await api(t.baseUrl, 'GET', '/v1/payments/profiles', { key: org.apiKey });
    expect(listed.body.data.map((p: { id: string }) => p.id)).toEqual([supplierProfile.body.id, own.body.id]);
    expect((await api(t.baseUrl, 'GET', `/v1/payments/profiles/${own.body.id}`, { key: org.apiKey })).body.id).toBe(own.body.id);
    expect((await api(t.baseUrl, 'DELETE', `/v1/payments/profiles/${supplierProfile.body.id}`, { key: org.apiKey })).body).toEqual({ id: supplierProfile.body.id, deleted: true });
    expectEnvelope(await api(t.baseUrl, 'GET', `/v1/payments/profiles/${supplierProfile.body.id}`, { key: org.apiKey }), 404, 'RESOURCE_NOT_FOUND');
  });

  it('400 INVALID_IBAN on a failed checksum, and clear errors for the rest', async () => {
    const put = (body: Record<string, unknown>) => api(t.baseUrl, 'PUT', '/v1/payments/profiles', { key: buyer.apiKey, body });
    const bad = await put({ companyId: buyer.company.id, bankAccount: { iban: 'BE68539007547035' } });
    expectEnvelope(bad, 400, 'INVALID_IBAN');
    expect(bad.body.error.details[0]).toMatchObject({ field: 'bankAccount.iban', rule: 'mod97' });
    expectEnvelope(await put({ companyId: buyer.company.id, bankAccount: { iban: 'not an iban' } }), 400, 'INVALID_IBAN');
    expectEnvelope(await put({ companyId: buyer.company.id, bankAccount: { iban: 'BE68539007547034', bic: 'GEBA' } }), 400, 'INVALID_REQUEST');
    expectEnvelope(await put({ bankAccount: { iban: 'BE68539007547034' } }), 400, 'MISSING_FIELD');
    expectEnvelope(await put({ vatNumber: 'be 0403', name: 'x' }), 400, 'INVALID_VAT_FORMAT');
    expectEnvelope(await put({ peppolId: 'nonsense', name: 'x' }), 400, 'INVALID_REQUEST');
    expectEnvelope(await put({ peppolId: '0208:0403170701' }), 400, 'MISSING_FIELD');
    expectEnvelope(await put({ companyId: 'comp_01JD7Z3V9Q1M2N3P4R5S6T7V8W', name: 'x' }), 404, 'COMPANY_NOT_FOUND');
  });
});

describe('ISO 20022 export', () => {
  const exportFile = (key: string, body: Record<string, unknown>) => api(t.baseUrl, 'POST', '/v1/payments/export/iso20022', { key, body });

  it('names each document that cannot be paid, with its reason, and exports nothing', async () => {
    const org = await bootstrap(t.baseUrl, { label: 'export-errors' });
    const [a, b, c] = [await exchange(org), await exchange(org), await exchange(org)];
    await pay(org.apiKey, b.inc, { amount: 242 });
    // Only the debtor account is registered: the sellers have none.
    await api(t.baseUrl, 'PUT', '/v1/payments/profiles', { key: org.apiKey, body: { companyId: org.company.id, bankAccount: { iban: 'FR1420041010050500013M02606' } } });
    const res = await exportFile(org.apiKey, { documentIds: [a.inc, b.inc, c.out, 'doc_01JD7Z3V9Q1M2N3P4R5S6T7V8W'] });
    expectEnvelope(res, 400, 'INVALID_REQUEST');
    expect(res.body.error.details.map((d: { field: string; rule: string }) => [d.field, d.rule])).toEqual([
      ['documentIds[0]', 'NO_CREDITOR_ACCOUNT'], ['documentIds[1]', 'NO_BALANCE'], ['documentIds[2]', 'DOCUMENT_NOT_FOUND'], ['documentIds[3]', 'DOCUMENT_NOT_FOUND'],
    ]);
    expect(res.body.error.documents.map((d: { documentId: string }) => d.documentId)).toEqual([a.inc, b.inc, c.out, 'doc_01JD7Z3V9Q1M2N3P4R5S6T7V8W']);
    expect(res.body.error.details[0].message).toMatch(/no bank account is registered for its seller .+ \(0208:0403170701\); PUT \/v1\/payments\/profiles/);
    // The supplier's own outgoing invoice is not paid by credit transfer from its side.
    const outgoing = await exportFile(supplier.apiKey, { documentIds: [c.out] });
    expectEnvelope(outgoing, 400, 'INVALID_REQUEST');
    expect(outgoing.body.error.details[0].rule).toBe('NOT_PAYABLE');
  });

  it('a missing paying-company account is named too', async () => {
    const org = await bootstrap(t.baseUrl, { label: 'export-no-debtor' });
    const a = await exchange(org);
    await api(t.baseUrl, 'PUT', '/v1/payments/profiles', { key: org.apiKey, body: { vatNumber: seller.vatNumber, name: seller.name, bankAccount: { iban: 'BE68539007547034' } } });
    const res = await exportFile(org.apiKey, { documentIds: [a.inc] });
    expectEnvelope(res, 400, 'INVALID_REQUEST');
    expect(res.body.error.details[0]).toMatchObject({ field: 'documentIds[0]', rule: 'NO_DEBTOR_ACCOUNT' });
  });

  it('refuses a non-EUR currency, a past or impossible execution date, an empty list', async () => {
    expectEnvelope(await exportFile(buyer.apiKey, { documentIds: ['doc_x'], currency: 'USD' }), 400, 'INVALID_CURRENCY');
    expectEnvelope(await exportFile(buyer.apiKey, { documentIds: ['doc_x'], currency: 'EU' }), 400, 'INVALID_CURRENCY');
    expectEnvelope(await exportFile(buyer.apiKey, { documentIds: ['doc_x'], executionDate: '2020-01-02' }), 400, 'INVALID_DATE');
    expectEnvelope(await exportFile(buyer.apiKey, { documentIds: ['doc_x'], executionDate: '2030-02-30' }), 400, 'INVALID_DATE');
    expectEnvelope(await exportFile(buyer.apiKey, { documentIds: [] }), 400, 'INVALID_REQUEST');
    expectEnvelope(await exportFile(buyer.apiKey, {}), 400, 'MISSING_FIELD');
  });

  /** An organization with three received invoices from two sellers, every account registered, one invoice partly paid. */
  async function payableInvoices(label: string) {
    const org = await bootstrap(t.baseUrl, { label });
    const ids = [await exchange(org, seller), await exchange(org, otherSeller), await exchange(org, seller)].map((x) => x.inc);
    await pay(org.apiKey, ids[2]!, { amount: 42 });
    const put = (body: Record<string, unknown>) => api(t.baseUrl, 'PUT', '/v1/payments/profiles', { key: org.apiKey, body });
    expect((await put({ companyId: org.company.id, name: 'Client SA', bankAccount: { iban: 'FR1420041010050500013M02606', bic: 'PSSTFRPPPAR' } })).status).toBe(200);
    expect((await put({ vatNumber: seller.vatNumber, name: seller.name, bankAccount: { iban: 'BE68539007547034', bic: 'GEBABEBB' } })).status).toBe(200);
    expect((await put({ vatNumber: otherSeller.vatNumber, name: otherSeller.name, bankAccount: { iban: 'BE71096123456769' } })).status).toBe(200);
    return { org, ids };
  }

  it('sandbox keys get the placeholder: transactionCount 0, no payable file', async () => {
    const { org, ids } = await payableInvoices('export-sandbox');
    const res = await exportFile(org.apiKey, { documentIds: ids });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ organizationId: org.organizationId, format: 'pain.001.001.09', contentType: 'application/xml', transactionCount: 0, totalAmount: 0, currency: 'EUR', executionDate: nextBusinessDay(new Date()) });
    expect(res.body.filename).toMatch(/^sandbox-placeholder-/);
    const xml = Buffer.from(res.body.content, 'base64').toString('utf8');
    expect(xml).toMatch(/Sandbox placeholder/);
    expect(xml).not.toMatch(/CdtTrfTxInf/);
  });

  it('live: one pain.001.001.09 file for several invoices that validates against the ISO XSD, with the balances due', async () => {
    const { org, ids } = await payableInvoices('export-live');
    // No API mints live data in tests: the organization's key, documents and payment rows go live behind the service's back.
    const client = new pg.Client({ connectionString: t.databaseUrl });
    await client.connect();
    try {
      for (const table of ['documents', 'payments', 'payment_profiles']) await client.query(`update ${table} set livemode = true where organization_id = $1`, [org.organizationId]);
    } finally {
      await client.end();
    }
    await makeLive(t.databaseUrl, org.apiKey);

    const res = await exportFile(org.apiKey, { documentIds: ids, executionDate: '2030-04-23' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ format: 'pain.001.001.09', transactionCount: 3, totalAmount: 684, currency: 'EUR', executionDate: '2030-04-23', contentType: 'application/xml' });
    expect(res.body.filename).toBe(`pain.001.001.09-${res.body.messageId}.xml`);
    const xml = Buffer.from(res.body.content, 'base64').toString('utf8');
    expect(pain001XsdErrors(xml)).toEqual([]);
    expect(xml).toContain(`<MsgId>${res.body.messageId}</MsgId>`);
    expect(xml).toContain('<CtrlSum>684.00</CtrlSum>');
    expect(xml).toContain('<ReqdExctnDt>\n        <Dt>2030-04-23</Dt>');
    expect(xml.match(/<InstdAmt Ccy="EUR">[^<]+</g)).toEqual(['<InstdAmt Ccy="EUR">242.00<', '<InstdAmt Ccy="EUR">242.00<', '<InstdAmt Ccy="EUR">200.00<']);
    expect(xml).toContain('<Nm>Backerei Muller + Sohne</Nm>');
    expect(xml).toContain('<IBAN>BE71096123456769</IBAN>');
    expect(xml).toContain('<DbtrAcct>\n        <Id>\n          <IBAN>FR1420041010050500013M02606</IBAN>');
    expect(xml.match(/<ChrgBr>SLEV<\/ChrgBr>/g)).toHaveLength(1);

    // Default execution date: the next TARGET business day.
    const byDefault = await exportFile(org.apiKey, { documentIds: [ids[0]] });
    expect(byDefault.body).toMatchObject({ transactionCount: 1, totalAmount: 242, executionDate: nextBusinessDay(new Date()) });
    expect(pain001XsdErrors(Buffer.from(byDefault.body.content, 'base64').toString('utf8'))).toEqual([]);
  });
});
