/**
 * The directory: `verify` asks the networks the caller's mode reaches (the sandbox network for test
 * keys) and keeps answers a moment; `search` lists the participants this platform registered.
 */
import { randomInt } from 'node:crypto';
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';
import { randomGermanVat } from '../support/vat.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';

let t: TestApp;
let a: Awaited<ReturnType<typeof bootstrap>>;
let b: Awaited<ReturnType<typeof bootstrap>>;
beforeAll(async () => {
  t = await startTestApp();
  [a, b] = [await bootstrap(t.baseUrl, { label: 'dir-a' }), await bootstrap(t.baseUrl, { label: 'dir-b' })];
});
afterAll(async () => { await t.stop(); });

const verify = (peppolId: string, documentType: string) => api(t.baseUrl, 'POST', '/v1/directory/verify', { key: a.apiKey, body: { peppolId, documentType } });

describe('POST /v1/directory/verify', () => {
  it('answers from the network\'s discovery, then from its cache for a while', async () => {
    const first = await verify(b.company.peppolId, 'INVOICE');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      peppolId: b.company.peppolId, documentType: 'invoice', registered: true, canReceive: true, name: 'dir-b Sandbox BV', country: 'BE',
      network: 'sandbox-network', cached: false,
    });
    expect(first.body.documentTypes).toEqual(expect.arrayContaining(['invoice', 'credit-note']));
    const again = await verify(b.company.peppolId, 'invoice');
    expect(again.body).toMatchObject({ canReceive: true, cached: true, checkedAt: first.body.checkedAt });
  });

  it('says who is unknown and what a participant does not accept', async () => {
    expect((await verify('9999:sandbox-unknown', 'INVOICE')).body).toMatchObject({ registered: false, canReceive: false });
    expect((await verify('9999:sandbox-cannot-receive', 'INVOICE')).body).toMatchObject({ registered: true, canReceive: false, documentTypes: [] });
    expect((await verify('9999:sandbox-invoice-only', 'CREDIT_NOTE')).body).toMatchObject({ registered: true, canReceive: false, documentTypes: ['invoice'] });
    expect((await verify('9999:sandbox-invoice-only', 'INVOICE')).body).toMatchObject({ canReceive: true });
  });

  it('400 for a malformed Peppol id or an unknown document type', async () => {
    expectEnvelope(await verify('not-an-id', 'INVOICE'), 400, 'INVALID_REQUEST');
    const badType = await verify(b.company.peppolId, 'RECEIPT');
    expectEnvelope(badType, 400, 'INVALID_REQUEST');
    expect(badType.body.error.details[0]).toMatchObject({ field: 'documentType' });
  });
});

describe('GET /v1/directory/search', () => {
  it('lists the registered participants of the caller\'s mode, by name or Peppol id and country, page by page', async () => {
    const org = await bootstrap(t.baseUrl, { label: 'dir-platform', keyType: 'platform' });
    const tag = `Q${randomInt(100_000, 999_999)}`;
    const create = async (vatNumber: string, name: string) => (await api(t.baseUrl, 'POST', '/v1/companies', { key: org.apiKey, body: { vatNumber, name } })).body;
    const [registered, second, unregistered] = [
      await create(randomGermanVat(), `${tag} Alpha GmbH`),
      await create(`NL${randomInt(100_000_000, 999_999_999)}B01`, `${tag} Beta BV`),
      await create(randomGermanVat(), `${tag} Gamma GmbH`),
    ];
    for (const c of [registered, second]) expect((await api(t.baseUrl, 'POST', `/v1/companies/${c.id}/register`, { key: org.apiKey })).status).toBe(200);

    // Anyone in the same mode finds them (a directory is public); unregistered companies are not listed.
    const found = await api(t.baseUrl, 'GET', `/v1/directory/search?q=${tag}`, { key: a.apiKey });
    expect(found.status).toBe(200);
    expect(found.body.data.map((p: { peppolId: string }) => p.peppolId)).toEqual([registered.peppolId, second.peppolId]);
    expect(found.body.data[0]).toMatchObject({ name: `${tag} Alpha GmbH`, country: 'DE', documentTypes: expect.arrayContaining(['invoice']) });
    expect(found.body.data.map((p: { peppolId: string }) => p.peppolId)).not.toContain(unregistered.peppolId);

    expect((await api(t.baseUrl, 'GET', `/v1/directory/search?q=${tag}&country=NL`, { key: a.apiKey })).body.data.map((p: { name: string }) => p.name)).toEqual([`${tag} Beta BV`]);
    expect((await api(t.baseUrl, 'GET', `/v1/directory/search?q=${encodeURIComponent(registered.peppolId)}`, { key: a.apiKey })).body.data).toHaveLength(1);

    const firstPage = await api(t.baseUrl, 'GET', `/v1/directory/search?q=${tag}&limit=1`, { key: a.apiKey });
    expect(firstPage.body).toMatchObject({ hasMore: true, data: [{ peppolId: registered.peppolId }] });
    const next = await api(t.baseUrl, 'GET', `/v1/directory/search?q=${tag}&limit=1&cursor=${encodeURIComponent(firstPage.body.cursor)}`, { key: a.apiKey });
    expect(next.body).toMatchObject({ hasMore: false, data: [{ peppolId: second.peppolId }] });
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/directory/search?country=germany', { key: a.apiKey }), 400, 'INVALID_REQUEST');
  });
});

describe('one participant, several identifiers', () => {
  it('a Belgian company (0208) is found under its VAT number (9925) too, and documents sent that way reach it', async () => {
    const vat = `BE${b.company.peppolId.slice(5)}`;
    expect((await verify(`9925:${vat}`, 'INVOICE')).body).toMatchObject({ registered: true, canReceive: true, name: 'dir-b Sandbox BV' });
    const sent = await api(t.baseUrl, 'POST', '/v1/documents/send', {
      key: a.apiKey, body: { type: 'purchase-order', format: 'json', to: `9925:${vat}`, document: { number: `PO-9925-${Date.now()}`, issueDate: '2026-03-01' } },
    });
    expect(sent.status).toBe(201);
    // The echo keeps the caller's words; the copy lands in b's inbox.
    expect(sent.body.to).toMatchObject({ peppolId: `9925:${vat}` });
    let inbox: Array<{ number: string }> = [];
    for (let i = 0; i < 100 && !inbox.length; i++) {
      await new Promise((r) => setTimeout(r, 100));
      inbox = (await api(t.baseUrl, 'POST', '/v1/documents/search', { key: b.apiKey, body: { filters: { number: sent.body.number, direction: 'incoming' } } })).body.data;
    }
    expect(inbox).toHaveLength(1);
  });
});

it('the Peppol Directory source is off until one is configured: 503', async () => {
  expectEnvelope(await api(t.baseUrl, 'GET', '/v1/directory/search?source=peppol&q=acme', { key: a.apiKey }), 503, 'UPSTREAM_UNAVAILABLE');
});
