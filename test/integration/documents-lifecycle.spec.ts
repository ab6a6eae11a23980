/**
 * The French lifecycle through the API, between two sandbox organizations: the buyer moves its
 * incoming copy, the supplier its outgoing one, each step shows on both sides with lifecycle.updated.
 * Full path 200 → 204 → 205 → 211 → 212, dispute, suspension lifted by an action, refusal, partial
 * approval and repeated partial collections, illegal moves; document actions with document.updated.
 */
import { issuers, type Issuers } from '../support/issuers.ts';
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
process.env.EINV_RATE_LIMITS = 'free=100000';

let t: TestApp;
/** The supplier organization holds the two companies that issue this file's invoices. */
let supplier: Issuers;
let buyerOrg: Awaited<ReturnType<typeof bootstrap>>;
beforeAll(async () => {
  t = await startTestApp();
  [supplier, buyerOrg] = [await issuers(t.baseUrl, [seller.vatNumber, frenchSeller.vatNumber], 'supplier'), await bootstrap(t.baseUrl, { label: 'buyer' })];
});
afterAll(async () => { await t.stop(); });

const seller = { name: 'Acme SPRL', vatNumber: 'BE0403170701', address: { street: 'Rue Neuve 1', city: 'Brussels', postalCode: '1000', country: 'BE' } };
const buyer = { name: 'Client SA', vatNumber: 'FR40303265045', address: { street: '1 rue de Paris', city: 'Paris', postalCode: '75001', country: 'FR' } };
let n = 0;

/** A French seller: with the French buyer, a domestic French invoice under the e-invoicing reform. */
const frenchSeller = { name: 'Atelier SARL', vatNumber: 'FR44732829320', address: { street: '2 rue de Lyon', city: 'Lyon', postalCode: '69001', country: 'FR' } };

/** Sends an invoice from supplier to buyer and waits until the buyer has its copy. */
async function exchange(from: typeof seller = seller): Promise<{ out: string; inc: string }> {
  const number = `LC-${Date.now()}-${++n}`;
  const vatRate = from.address.country === 'FR' ? 20 : 21;
  const res = await api(t.baseUrl, 'POST', '/v1/documents/send', {
    key: supplier.apiKey, headers: supplier.as(from.vatNumber),
    body: { type: 'invoice', format: 'json', to: buyerOrg.company.peppolId, document: { number, issueDate: '2026-03-01', dueDate: '2026-04-01', buyerReference: 'PO', seller: from, buyer, lines: [{ description: 'Work', quantity: 2, unit: 'HUR', unitPrice: 100, vatRate }] } },
  });
  expect(res.status).toBe(201);
  const until = Date.now() + 15_000;
  for (;;) {
    const found = await api(t.baseUrl, 'POST', '/v1/documents/search', { key: buyerOrg.apiKey, body: { filters: { number, direction: 'incoming' } } });
    const out = await api(t.baseUrl, 'GET', `/v1/documents/${res.body.id}`, { key: supplier.apiKey });
    if (found.body.data.length && out.body.deliveryStatus === 'delivered') return { out: res.body.id, inc: found.body.data[0].id };
    if (Date.now() > until) throw new Error('not delivered');
    await new Promise((r) => setTimeout(r, 100));
  }
}

const move = (key: string, id: string, body: Record<string, unknown>) => api(t.baseUrl, 'POST', `/v1/documents/${id}/lifecycle`, { key, body });
const lifecycle = async (key: string, id: string) => (await api(t.baseUrl, 'GET', `/v1/documents/${id}/lifecycle`, { key })).body;
const codes = (lc: { history: Array<{ code: string }> }) => lc.history.map((h) => h.code);
const allowed = (lc: { allowedTransitions: Array<{ code: string }> }) => lc.allowedTransitions.map((a) => a.code);

async function lifecycleEvents(key: string, documentId: string) {
  const until = Date.now() + 10_000;
  let last: Array<{ data: Record<string, any> }> = [];
  while (Date.now() < until) {
    const res = await api(t.baseUrl, 'GET', '/v1/events?type=lifecycle.updated&limit=100', { key });
    last = res.body.data.filter((e: { data: { documentId: string } }) => e.data.documentId === documentId);
    if (last.length) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  return last;
}

it('runs the full French lifecycle 200 → 204 → 205 → 211 → 212 across both parties', async () => {
  const { out, inc } = await exchange();
  const start = await lifecycle(buyerOrg.apiKey, inc);
  expect(start).toMatchObject({ documentId: inc, currentCode: '203', party: 'buyer', status: 'received' });
  expect(codes(start)).toEqual(['200', '201', '202', '203']);
  expect(allowed(start)).toEqual(['204', '205', '206', '207', '208', '210', '211']);
  const supplierStart = await lifecycle(supplier.apiKey, out);
  expect(supplierStart).toMatchObject({ currentCode: '203', party: 'supplier', status: 'sent' });
  expect(allowed(supplierStart)).toEqual(['212']);

  expect((await move(buyerOrg.apiKey, inc, { status: 'under_review' })).body).toMatchObject({ currentCode: '204', status: 'under_review' });
  expect((await move(buyerOrg.apiKey, inc, { status: 'approved' })).body).toMatchObject({ currentCode: '205', status: 'approved' });
  const paid = await move(buyerOrg.apiKey, inc, { status: 'paid', paymentDate: '2026-04-01', paymentReference: 'SEPA-123', paymentAmount: 242 });
  expect(paid.body).toMatchObject({ currentCode: '211', status: 'paid' });
  expect(paid.body.history.at(-1)).toMatchObject({ code: '211', emittedBy: 'buyer', paymentReference: 'SEPA-123', amounts: { MPA: '242.00' } });

  // The supplier sees the buyer's steps and records the collection.
  const mirrored = await lifecycle(supplier.apiKey, out);
  expect(codes(mirrored)).toEqual(['200', '201', '202', '203', '204', '205', '211']);
  const collected = await move(supplier.apiKey, out, { status: 'paid', paymentDate: '2026-04-03', paymentAmount: 242, paymentCurrency: 'EUR' });
  expect(collected.status).toBe(200);
  expect(collected.body).toMatchObject({ currentCode: '212', status: 'paid', allowedTransitions: [] });
  expect(collected.body.history.at(-1)).toMatchObject({ code: '212', emittedBy: 'supplier', amounts: { MEN: '242.00' }, paymentCurrency: 'EUR' });
  expect((await lifecycle(buyerOrg.apiKey, inc)).currentCode).toBe('212');
  expect((await api(t.baseUrl, 'GET', `/v1/documents/${inc}`, { key: buyerOrg.apiKey })).body).toMatchObject({ status: 'paid', lifecycleCode: '212' });

  // Terminal: nothing moves any more.
  const after = await move(buyerOrg.apiKey, inc, { status: 'under_review' });
  expectEnvelope(after, 409, 'INVALID_TRANSITION');
  expect(after.body.error.allowedTransitions).toEqual([]);

  // lifecycle.updated only for the moves the spec's table gives it (201–203 fire document.* events),
  // and no French framework on this Belgian seller's invoice.
  const events = await lifecycleEvents(buyerOrg.apiKey, inc);
  expect(events.map((e) => [e.data.previousStatus, e.data.currentStatus]).sort()).toEqual([['203', '204'], ['204', '205'], ['205', '211'], ['211', '212']]);
  const supplierEvents = await lifecycleEvents(supplier.apiKey, out);
  expect(supplierEvents.map((e) => e.data.currentStatus).sort()).toEqual(['204', '205', '211', '212']);
  expect(supplierEvents.every((e) => e.data.compliance === null)).toBe(true);
});

it('events follow the spec\'s table: a Belgian invoice gives document.sent and document.delivered, no French codes; a French one its deposit (200) under fr-ctc', async () => {
  const typesFor = async (key: string, documentId: string) => {
    const res = await api(t.baseUrl, 'GET', '/v1/events?limit=100', { key });
    return res.body.data.filter((e: { data: { documentId?: string } }) => e.data.documentId === documentId);
  };
  const belgian = await exchange();
  const sent = await typesFor(supplier.apiKey, belgian.out);
  expect(sent.map((e: { type: string }) => e.type).sort()).toEqual(['document.delivered', 'document.sent']);
  expect((await typesFor(buyerOrg.apiKey, belgian.inc)).map((e: { type: string }) => e.type)).toEqual(['document.received']);

  const french = await exchange(frenchSeller);
  const frenchEvents = await typesFor(supplier.apiKey, french.out);
  expect(frenchEvents.map((e: { type: string }) => e.type).sort()).toEqual(['document.delivered', 'document.sent', 'lifecycle.updated']);
  const deposit = frenchEvents.find((e: { type: string }) => e.type === 'lifecycle.updated');
  expect(deposit.data).toMatchObject({ previousStatus: null, currentStatus: '200', compliance: { framework: 'fr-ctc', code: '200', country: 'FR', reportedToTaxAuthority: true } });
  await move(buyerOrg.apiKey, french.inc, { status: 'under_review' });
  const [acknowledged] = await lifecycleEvents(buyerOrg.apiKey, french.inc);
  expect(acknowledged!.data).toMatchObject({ currentStatus: '204', compliance: { framework: 'fr-ctc', code: '204', reportedToTaxAuthority: false } });
});

it('dispute: 207 needs a reason, then approval resolves it', async () => {
  const { inc } = await exchange();
  await move(buyerOrg.apiKey, inc, { status: 'under_review' });
  const noReason = await move(buyerOrg.apiKey, inc, { status: 'disputed' });
  expectEnvelope(noReason, 400, 'MISSING_FIELD');
  expect(noReason.body.error.details[0].field).toBe('reason');
  expect((await move(buyerOrg.apiKey, inc, { status: 'disputed', reason: 'Quantity is 1, not 2' })).body).toMatchObject({ currentCode: '207', status: 'disputed' });
  const lc = await lifecycle(buyerOrg.apiKey, inc);
  expect(lc.history.at(-1)).toMatchObject({ code: '207', reason: 'Quantity is 1, not 2' });
  expect(allowed(lc)).toEqual(['205', '206', '210', '211']);
  expect((await move(buyerOrg.apiKey, inc, { status: 'approved' })).body.currentCode).toBe('205');
});

it('suspension: 208 until the supplier completes it with a linked document (209), then acknowledged again', async () => {
  const { out, inc } = await exchange();
  await move(buyerOrg.apiKey, inc, { status: 'under_review' });
  expect((await move(buyerOrg.apiKey, inc, { status: 'disputed', reasonCode: 'suspended', reason: 'Purchase order number missing' })).body).toMatchObject({ currentCode: '208', status: 'disputed' });
  // Suspended: the buyer cannot approve; only the supplier's completion moves it.
  const blocked = await move(buyerOrg.apiKey, inc, { status: 'approved' });
  expectEnvelope(blocked, 409, 'INVALID_TRANSITION');
  expect(blocked.body.error.allowedTransitions).toEqual([]);
  expect(allowed(await lifecycle(supplier.apiKey, out))).toEqual(['209']);
  const buyerTries = await api(t.baseUrl, 'POST', `/v1/documents/${inc}/actions`, { key: buyerOrg.apiKey, body: { action: 'link', relatedDocumentId: inc } });
  expectEnvelope(buyerTries, 409, 'INVALID_TRANSITION');

  const { out: completing } = await exchange();
  const linked = await api(t.baseUrl, 'POST', `/v1/documents/${out}/actions`, { key: supplier.apiKey, body: { action: 'link', relatedDocumentId: completing } });
  expect(linked.status).toBe(200);
  expect(linked.body).toMatchObject({ lifecycleCode: '209', relatedDocumentIds: [completing] });
  const buyerSide = await lifecycle(buyerOrg.apiKey, inc);
  expect(buyerSide.history.at(-1)).toMatchObject({ code: '209', emittedBy: 'supplier', relatedDocumentId: completing });
  expect(allowed(buyerSide)).toContain('204');
  expect((await move(buyerOrg.apiKey, inc, { status: 'under_review' })).body.currentCode).toBe('204');
  expect((await move(buyerOrg.apiKey, inc, { status: 'approved' })).body.currentCode).toBe('205');
});

it('refusal: 210 needs reasonCode and reason, and is terminal for both parties', async () => {
  const { out, inc } = await exchange();
  expectEnvelope(await move(buyerOrg.apiKey, inc, { status: 'rejected', reason: 'Not our order' }), 400, 'MISSING_FIELD');
  const refused = await move(buyerOrg.apiKey, inc, { status: 'rejected', reasonCode: 'DESTINATAIRE_ERRONE', reason: 'Not our order' });
  expect(refused.body).toMatchObject({ currentCode: '210', status: 'rejected', allowedTransitions: [] });
  expect(refused.body.history.at(-1)).toMatchObject({ code: '210', reasonCode: 'DESTINATAIRE_ERRONE', reason: 'Not our order' });
  const collect = await move(supplier.apiKey, out, { status: 'paid', paymentDate: '2026-04-03', paymentAmount: 242, paymentCurrency: 'EUR' });
  expectEnvelope(collect, 409, 'INVALID_TRANSITION');
  expect(collect.body.error).toMatchObject({ currentCode: '210', allowedTransitions: [] });
});

it('partial approval (206 selected by remainingAmount) and repeated partial collections (212)', async () => {
  const { out, inc } = await exchange();
  // 242.00 with VAT (200.00 net + 21 %); 60.50 with VAT (50.00 net) not approved.
  const partial = await move(buyerOrg.apiKey, inc, { status: 'approved', remainingAmount: 60.5, note: 'Half an hour disputed' });
  expect(partial.body).toMatchObject({ currentCode: '206', status: 'approved' });
  expect(partial.body.history.at(-1)).toMatchObject({ code: '206', note: 'Half an hour disputed', amounts: { MAP: '150.00', MAPTTC: '181.50', MNA: '50.00', MNATTC: '60.50' } });

  const first = await move(supplier.apiKey, out, { status: 'partially_paid', paymentDate: '2026-04-05', paymentAmount: 100, paymentCurrency: 'EUR', remainingAmount: 100 });
  expect(first.body).toMatchObject({ currentCode: '212', status: 'partially_paid', allowedTransitions: [{ code: '212' }] });
  const second = await move(supplier.apiKey, out, { status: 'partially_paid', paymentDate: '2026-04-06', paymentAmount: 50, paymentCurrency: 'EUR', remainingAmount: 50 });
  expect(second.body).toMatchObject({ currentCode: '212', status: 'partially_paid' });
  const last = await move(supplier.apiKey, out, { status: 'paid', paymentDate: '2026-04-07', paymentAmount: 50, paymentCurrency: 'EUR' });
  expect(last.body).toMatchObject({ currentCode: '212', status: 'paid', allowedTransitions: [] });
  expect(codes(last.body).filter((c: string) => c === '212')).toHaveLength(3);
  expectEnvelope(await move(supplier.apiKey, out, { status: 'partially_paid', paymentDate: '2026-04-08', paymentAmount: 1, paymentCurrency: 'EUR', remainingAmount: 0 }), 409, 'INVALID_TRANSITION');
});

it('the party decides: a buyer paid is 211, the supplier cannot acknowledge, a partial collection is the supplier\'s', async () => {
  const { out, inc } = await exchange();
  const notYours = await move(supplier.apiKey, out, { status: 'under_review' });
  expectEnvelope(notYours, 409, 'INVALID_TRANSITION');
  expect(notYours.body.error.allowedTransitions.map((a: { code: string }) => a.code)).toEqual(['212']);
  expectEnvelope(await move(buyerOrg.apiKey, inc, { status: 'partially_paid', remainingAmount: 10 }), 409, 'INVALID_TRANSITION');
  expectEnvelope(await move(supplier.apiKey, out, { status: 'paid', paymentDate: '2026-04-03', paymentCurrency: 'EUR' }), 400, 'MISSING_FIELD');
  expect((await move(buyerOrg.apiKey, inc, { status: 'paid', paymentDate: '2026-04-01', paymentReference: 'TX' })).body.currentCode).toBe('211');
  expectEnvelope(await move(buyerOrg.apiKey, inc, { status: 'shipped' }), 400, 'INVALID_ENUM');
  expectEnvelope(await move(buyerOrg.apiKey, 'doc_unknown', { status: 'under_review' }), 404, 'DOCUMENT_NOT_FOUND');
});

it('actions: mark read, archive and notes emit document.updated with a field diff; bad actions are refused', async () => {
  const { inc } = await exchange();
  const act = (body: Record<string, unknown>) => api(t.baseUrl, 'POST', `/v1/documents/${inc}/actions`, { key: buyerOrg.apiKey, body });
  expect((await act({ action: 'mark-read' })).body).toMatchObject({ read: true });
  expect((await act({ action: 'archive' })).body).toMatchObject({ archived: true });
  const noted = await act({ action: 'add-note', note: 'Checked by accounting' });
  expect(noted.body.notes).toEqual([{ id: expect.stringMatching(/^note_/), text: 'Checked by accounting', at: expect.any(String) }]);
  expectEnvelope(await act({ action: 'link' }), 400, 'MISSING_FIELD');
  expectEnvelope(await act({ action: 'link', relatedDocumentId: 'doc_nope' }), 404, 'DOCUMENT_NOT_FOUND');
  expectEnvelope(await act({ action: 'delete' }), 400, 'INVALID_ENUM');

  const until = Date.now() + 10_000;
  let changes: Array<Record<string, unknown>> = [];
  while (Date.now() < until && changes.length < 3) {
    const res = await api(t.baseUrl, 'GET', '/v1/events?type=document.updated&limit=100', { key: buyerOrg.apiKey });
    changes = res.body.data.filter((e: { data: { documentId: string } }) => e.data.documentId === inc).map((e: { data: { changes: Record<string, unknown> } }) => e.data.changes);
    if (changes.length < 3) await new Promise((r) => setTimeout(r, 100));
  }
  expect(changes).toEqual(expect.arrayContaining([{ read: { from: false, to: true } }, { archived: { from: false, to: true } }, { notes: { added: expect.objectContaining({ text: 'Checked by accounting' }) } }]));
  // Searchable by the new flags.
  const found = await api(t.baseUrl, 'POST', '/v1/documents/search', { key: buyerOrg.apiKey, body: { filters: { read: true, archived: true } } });
  expect(found.body.data.map((d: { id: string }) => d.id)).toEqual([inc]);
});

it('a document without a French lifecycle (raw deposit) answers 409 with no allowed transitions', async () => {
  const raw = await api(t.baseUrl, 'POST', '/v1/documents/send', { key: supplier.apiKey, headers: supplier.as(seller.vatNumber), body: { type: 'invoice', format: 'raw', file: { content: Buffer.from('scan').toString('base64') } } });
  expect((await lifecycle(supplier.apiKey, raw.body.id)).allowedTransitions).toEqual([]);
  expectEnvelope(await move(supplier.apiKey, raw.body.id, { status: 'paid', paymentDate: '2026-01-01', paymentAmount: 1, paymentCurrency: 'EUR' }), 409, 'INVALID_TRANSITION');
});

it('buyer and supplier moving the same invoice at once: no deadlock, no 500, both copies agree', async () => {
  for (let i = 0; i < 4; i++) {
    const { out, inc } = await exchange();
    const [buyerMove, supplierMove] = await Promise.all([
      move(buyerOrg.apiKey, inc, { status: 'under_review' }),
      move(supplier.apiKey, out, { status: 'paid', paymentDate: '2026-04-03', paymentAmount: 242, paymentCurrency: 'EUR' }),
    ]);
    expect([200, 409]).toContain(buyerMove.status);
    expect(supplierMove.status).toBe(200);
    expect(codes(await lifecycle(buyerOrg.apiKey, inc))).toEqual(codes(await lifecycle(supplier.apiKey, out)));
    expect((await lifecycle(supplier.apiKey, out)).currentCode).toBe('212');
  }
});
