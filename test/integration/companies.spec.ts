/**
 * Companies through the API on the sandbox registry (adapters/sandbox-network): creation enriched
 * from the registry, the Peppol id from the VAT prefix, lookups by id, `vat:` and `peppol:`, one
 * company per VAT number, the registry's refusals, registration and its publication event, and
 * removal with the documents kept readable.
 */
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';
import { randomGermanVat } from '../support/vat.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';

let t: TestApp;
beforeAll(async () => { t = await startTestApp(); });
afterAll(async () => { await t.stop(); });

/** A German VAT number (nine digits) that the sandbox registry knows as active. */
const activeVat = randomGermanVat;

async function platform() {
  return bootstrap(t.baseUrl, { keyType: 'platform' });
}

describe('POST /v1/companies', () => {
  it('creates a company from its VAT number alone: name and address from the registry, Peppol id from the VAT prefix', async () => {
    const org = await platform();
    const vatNumber = activeVat();
    const res = await api(t.baseUrl, 'POST', '/v1/companies', { key: org.apiKey, body: { vatNumber, metadata: { tenant: 't-1' } } });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(`/v1/companies/${res.body.id}`);
    expect(res.body).toMatchObject({
      organizationId: org.organizationId, name: `Sandbox Company ${vatNumber}`, legalName: `Sandbox Company ${vatNumber}`, country: 'DE', vatNumber,
      peppolId: `9930:${vatNumber}`, status: 'active', smpRegistered: false, dataProviderType: 'sandbox-network', isPublic: false,
      address: { street: '1 Sandbox Street', city: 'Sandbox City', postalCode: '1000', country: 'DE' }, metadata: { tenant: 't-1' },
    });
    expect(Date.parse(res.body.dataProviderSyncDate)).toBeGreaterThan(Date.now() - 60_000);

    for (const ref of [res.body.id, `vat:${vatNumber}`, `peppol:9930:${vatNumber}`]) {
      const got = await api(t.baseUrl, 'GET', `/v1/companies/${ref}`, { key: org.apiKey });
      expect({ ref, status: got.status, id: got.body.id }).toEqual({ ref, status: 200, id: res.body.id });
    }
    const list = await api(t.baseUrl, 'GET', '/v1/companies', { key: org.apiKey });
    expect(list.body.data.map((c: { id: string }) => c.id)).toContain(res.body.id);
  });

  it('keeps a given name and address; Belgian companies get the 0208 enterprise number', async () => {
    const org = await platform();
    const res = await api(t.baseUrl, 'POST', '/v1/companies', {
      key: org.apiKey, body: { vatNumber: 'BE0403170701', name: 'Acme SPRL', address: { street: 'Rue Neuve 1', city: 'Brussels', postalCode: '1000', country: 'BE' } },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'Acme SPRL', peppolId: '0208:0403170701', registrationNumber: '0403170701', address: { street: 'Rue Neuve 1', city: 'Brussels' } });
  });

  it('400 INVALID_VAT_FORMAT for a VAT number off the pattern or off its country\'s shape', async () => {
    const org = await platform();
    for (const vatNumber of ['be0403170701', 'BE 0403170701', 'BE12', '12345']) {
      const res = await api(t.baseUrl, 'POST', '/v1/companies', { key: org.apiKey, body: { vatNumber } });
      expectEnvelope(res, 400, 'INVALID_VAT_FORMAT');
    }
  });

  it('409 COMPANY_EXISTS with existingId for the same VAT number twice, also when both arrive at once', async () => {
    const org = await platform();
    const vatNumber = activeVat();
    const first = await api(t.baseUrl, 'POST', '/v1/companies', { key: org.apiKey, body: { vatNumber } });
    const again = await api(t.baseUrl, 'POST', '/v1/companies', { key: org.apiKey, body: { vatNumber } });
    expectEnvelope(again, 409, 'COMPANY_EXISTS');
    expect(again.body.error.existingId).toBe(first.body.id);

    const racing = activeVat();
    const both = await Promise.all([0, 1].map(() => api(t.baseUrl, 'POST', '/v1/companies', { key: org.apiKey, body: { vatNumber: racing } })));
    expect(both.map((r) => r.status).sort()).toEqual([201, 409]);
    const winner = both.find((r) => r.status === 201)!;
    expect(both.find((r) => r.status === 409)!.body.error.existingId).toBe(winner.body.id);
    // Another organization may hold the same VAT number.
    expect((await api(t.baseUrl, 'POST', '/v1/companies', { key: (await platform()).apiKey, body: { vatNumber } })).status).toBe(201);
  });

  it('422 VAT_NOT_FOUND and VAT_INACTIVE from the registry; a one-company key cannot create companies', async () => {
    const org = await platform();
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/companies', { key: org.apiKey, body: { vatNumber: 'DE123450000' } }), 422, 'VAT_NOT_FOUND');
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/companies', { key: org.apiKey, body: { vatNumber: 'DE123459999' } }), 422, 'VAT_INACTIVE');
    const personal = await bootstrap(t.baseUrl);
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/companies', { key: personal.apiKey, body: { vatNumber: activeVat() } }), 403, 'COMPANY_FORBIDDEN');
  });
});

describe('registration and removal', () => {
  it('register: active at once, published by the sandbox network, company.smp_registered in the event log', async () => {
    const org = await platform();
    const created = await api(t.baseUrl, 'POST', '/v1/companies', { key: org.apiKey, body: { vatNumber: activeVat() } });
    const reg = await api(t.baseUrl, 'POST', `/v1/companies/${created.body.id}/register`, { key: org.apiKey });
    expect(reg.status).toBe(200);
    expect(reg.body).toMatchObject({ companyId: created.body.id, registrationStatus: 'active', peppolId: created.body.peppolId });
    let company = created.body;
    for (let i = 0; i < 100 && !company.smpRegistered; i++) {
      await new Promise((r) => setTimeout(r, 100));
      company = (await api(t.baseUrl, 'GET', `/v1/companies/${created.body.id}`, { key: org.apiKey })).body;
    }
    expect(company.smpRegistered).toBe(true);
    const events = await api(t.baseUrl, 'GET', '/v1/events?type=company.smp_registered', { key: org.apiKey });
    expect(events.body.data).toEqual([expect.objectContaining({ type: 'company.smp_registered', companyId: created.body.id, data: { companyId: created.body.id, peppolId: created.body.peppolId } })]);
    // Registering again changes nothing and sends no second event.
    expect((await api(t.baseUrl, 'POST', `/v1/companies/${created.body.id}/register`, { key: org.apiKey })).body).toMatchObject({ registrationStatus: 'active', smpRegistered: true });
    await new Promise((r) => setTimeout(r, 300));
    expect((await api(t.baseUrl, 'GET', '/v1/events?type=company.smp_registered', { key: org.apiKey })).body.data).toHaveLength(1);
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/companies/comp_nope/register', { key: org.apiKey }), 404, 'COMPANY_NOT_FOUND');
  });

  it('DELETE: gone from lookups, its keys revoked, its documents still readable until the retention date', async () => {
    const org = await platform();
    const created = await api(t.baseUrl, 'POST', '/v1/companies', { key: org.apiKey, body: { vatNumber: activeVat() } });
    const personal = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: org.apiKey, body: { name: 'its own', keyType: 'personal', companyId: created.body.id } });
    expect(personal.status).toBe(201);
    const sent = await api(t.baseUrl, 'POST', '/v1/documents/send', {
      key: org.apiKey, headers: { 'x-service-company': created.body.id },
      body: { type: 'purchase-order', format: 'json', to: org.company.id, document: { number: 'PO-DEL-1', issueDate: '2026-03-01' } },
    });
    expect(sent.status).toBe(201);

    const removed = await api(t.baseUrl, 'DELETE', `/v1/companies/${created.body.id}`, { key: org.apiKey });
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ id: created.body.id, deleted: true });
    const years = (Date.parse(removed.body.retainUntil) - Date.now()) / (365.25 * 86_400_000);
    expect(years).toBeGreaterThan(9.9);
    expect(years).toBeLessThan(10.1);

    expectEnvelope(await api(t.baseUrl, 'GET', `/v1/companies/${created.body.id}`, { key: org.apiKey }), 404, 'COMPANY_NOT_FOUND');
    expectEnvelope(await api(t.baseUrl, 'GET', `/v1/companies/vat:${created.body.vatNumber}`, { key: org.apiKey }), 404, 'COMPANY_NOT_FOUND');
    expect((await api(t.baseUrl, 'GET', '/v1/companies', { key: org.apiKey })).body.data.map((c: { id: string }) => c.id)).not.toContain(created.body.id);
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/me/company', { key: org.apiKey, headers: { 'x-service-company': created.body.id } }), 403, 'COMPANY_FORBIDDEN');
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/me', { key: personal.body.key }), 401, 'REVOKED_KEY');
    const doc = await api(t.baseUrl, 'GET', `/v1/documents/${sent.body.id}`, { key: org.apiKey });
    expect(doc.status).toBe(200);
    expect(doc.body.number).toBe('PO-DEL-1');
    // Its VAT number is free again in the organization.
    expect((await api(t.baseUrl, 'POST', '/v1/companies', { key: org.apiKey, body: { vatNumber: created.body.vatNumber } })).status).toBe(201);
    expectEnvelope(await api(t.baseUrl, 'DELETE', `/v1/companies/${created.body.id}`, { key: org.apiKey }), 404, 'COMPANY_NOT_FOUND');
  });
});
