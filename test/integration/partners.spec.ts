/**
 * Partners: added by VAT number or Peppol id and matched against the directory, listed, changed,
 * removed, with the documents exchanged with each (on every identifier they go by).
 */
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';

let t: TestApp;
let a: Awaited<ReturnType<typeof bootstrap>>;
let b: Awaited<ReturnType<typeof bootstrap>>;
beforeAll(async () => {
  t = await startTestApp();
  [a, b] = [await bootstrap(t.baseUrl, { label: 'ptn-a' }), await bootstrap(t.baseUrl, { label: 'ptn-b' })];
});
afterAll(async () => { await t.stop(); });

const add = (body: Record<string, unknown>, key = a.apiKey) => api(t.baseUrl, 'POST', '/v1/partners', { key, body });

it('a partner on this platform is matched by its VAT number: linked, named and placed from the directory', async () => {
  const res = await add({ vatNumber: b.company.vatNumber, role: 'customer' });
  expect(res.status).toBe(201);
  expect(res.headers.get('location')).toBe(`/v1/partners/${res.body.id}`);
  expect(res.body).toMatchObject({
    id: expect.stringMatching(/^ptn_/), name: 'ptn-b Sandbox BV', country: 'BE', vatNumber: b.company.vatNumber, peppolId: b.company.peppolId, role: 'customer',
    onPlatform: true, partnerOrganizationId: b.organizationId, partnerCompanyId: b.company.id, enrichment: null,
  });
  // Round-trippable: the id reads it back.
  expect((await api(t.baseUrl, 'GET', `/v1/partners/${res.body.id}`, { key: a.apiKey })).body).toEqual(res.body);
  const again = await add({ peppolId: b.company.peppolId.toUpperCase(), role: 'supplier', name: 'dup' });
  expectEnvelope(again, 409, 'COMPANY_EXISTS');
  expect(again.body.error.existingId).toBe(res.body.id);
});

it('a partner elsewhere needs a name; French ones carry their SIREN and the identifiers they go by', async () => {
  expectEnvelope(await add({ vatNumber: 'FR12120027016', role: 'supplier' }), 400, 'MISSING_FIELD');
  expectEnvelope(await add({ role: 'supplier', name: 'No ids' }), 400, 'MISSING_FIELD');
  expectEnvelope(await add({ vatNumber: 'fr123', role: 'supplier', name: 'Bad' }), 400, 'INVALID_VAT_FORMAT');
  const fr = await add({ vatNumber: 'FR12120027016', role: 'supplier', name: 'INSEE' });
  expect(fr.status).toBe(201);
  expect(fr.body).toMatchObject({ onPlatform: false, country: 'FR', peppolId: '0009:120027016', enrichment: { siren: '120027016', peppolIds: expect.arrayContaining(['0009:120027016', '0225:120027016']) } });
});

it('lists with filters and pages, changes what may change, removes', async () => {
  const org = await bootstrap(t.baseUrl, { label: 'ptn-list' });
  const created = [];
  for (const [vat, role] of [['DE111111111', 'customer'], ['DE222222222', 'supplier'], ['NL333333333B01', 'both']] as const) {
    created.push((await add({ vatNumber: vat, role, name: `Partner ${vat}` }, org.apiKey)).body);
  }
  const list = (q: string) => api(t.baseUrl, 'GET', `/v1/partners${q}`, { key: org.apiKey });
  expect((await list('')).body.data.map((p: { vatNumber: string }) => p.vatNumber)).toEqual(['NL333333333B01', 'DE222222222', 'DE111111111']);
  expect((await list('?role=customer')).body.data.map((p: { role: string }) => p.role).sort()).toEqual(['both', 'customer']);
  expect((await list('?country=NL')).body.data).toHaveLength(1);
  expect((await list('?q=222222')).body.data).toHaveLength(1);
  const first = await list('?limit=2');
  expect(first.body.hasMore).toBe(true);
  expect((await list(`?limit=2&cursor=${encodeURIComponent(first.body.cursor)}`)).body.data.map((p: { vatNumber: string }) => p.vatNumber)).toEqual(['DE111111111']);

  const changed = await api(t.baseUrl, 'PATCH', `/v1/partners/${created[0].id}`, { key: org.apiKey, body: { name: 'Renamed GmbH', role: 'both', metadata: { erp: 'C-9' } } });
  expect(changed.body).toMatchObject({ name: 'Renamed GmbH', role: 'both', metadata: { erp: 'C-9' }, vatNumber: 'DE111111111' });
  // Identifiers are not changed by an update (unknown body fields are dropped, as everywhere in the API).
  expect((await api(t.baseUrl, 'PATCH', `/v1/partners/${created[0].id}`, { key: org.apiKey, body: { vatNumber: 'DE999999999' } })).body.vatNumber).toBe('DE111111111');
  expect((await api(t.baseUrl, 'DELETE', `/v1/partners/${created[1].id}`, { key: org.apiKey })).body).toEqual({ id: created[1].id, deleted: true });
  expectEnvelope(await api(t.baseUrl, 'GET', `/v1/partners/${created[1].id}`, { key: org.apiKey }), 404, 'RESOURCE_NOT_FOUND');
  // Another organization sees none of them.
  expectEnvelope(await api(t.baseUrl, 'GET', `/v1/partners/${created[0].id}`, { key: a.apiKey }), 404, 'RESOURCE_NOT_FOUND');
});

it('lists the documents exchanged with a partner, sent and received, on every identifier it goes by', async () => {
  const org = await bootstrap(t.baseUrl, { label: 'ptn-docs' });
  const partner = (await add({ vatNumber: b.company.vatNumber, role: 'both' }, org.apiKey)).body;
  const vat = `BE${b.company.peppolId.slice(5)}`;
  const send = (to: string, number: string) => api(t.baseUrl, 'POST', '/v1/documents/send', { key: org.apiKey, body: { type: 'purchase-order', format: 'json', to, document: { number, issueDate: '2026-03-01' } } });
  expect((await send(b.company.peppolId, 'PO-P-1')).status).toBe(201);
  expect((await send(`9925:${vat}`, 'PO-P-2')).status).toBe(201);
  expect((await send(a.company.peppolId, 'PO-OTHER')).status).toBe(201);
  const back = await api(t.baseUrl, 'POST', '/v1/documents/send', { key: b.apiKey, body: { type: 'quote', format: 'json', to: org.company.peppolId, document: { number: 'Q-BACK', issueDate: '2026-03-01' } } });
  expect(back.status).toBe(201);
  let numbers: string[] = [];
  for (let i = 0; i < 100 && numbers.length < 3; i++) {
    await new Promise((r) => setTimeout(r, 100));
    numbers = (await api(t.baseUrl, 'GET', `/v1/partners/${partner.id}/documents`, { key: org.apiKey })).body.data.map((d: { number: string }) => d.number);
  }
  expect(numbers.sort()).toEqual(['PO-P-1', 'PO-P-2', 'Q-BACK']);
});
