/**
 * Company import (France): the three outcomes in the spec's priority order, idempotency on the
 * SIRET, the two log-only events, and the batch (input order, a failed item never fails the rest).
 */
import { randomInt } from 'node:crypto';
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';
import { isValidSiret } from '../../mappings/identifiers/siret.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';

let t: TestApp;
beforeAll(async () => { t = await startTestApp(); });
afterAll(async () => { await t.stop(); });

/** A random SIRET whose SIREN and SIRET check digits are right. */
function siret(): string {
  const digit = (prefix: string) => Array.from({ length: 10 }, (_, d) => `${prefix}${d}`).find((s) => luhnOk(s))!;
  const siren = digit(`${randomInt(10_000_000, 99_999_999)}`);
  const out = digit(`${siren}${String(randomInt(0, 9999)).padStart(4, '0')}`);
  if (!isValidSiret(out)) throw new Error(`generated ${out} is not valid`);
  return out;
}
function luhnOk(s: string): boolean {
  let sum = 0;
  for (let i = 0; i < s.length; i++) { let d = Number(s[s.length - 1 - i]); if (i % 2) { d *= 2; if (d > 9) d -= 9; } sum += d; }
  return sum % 10 === 0;
}

const events = async (key: string, type: string) => (await api(t.baseUrl, 'GET', `/v1/events?type=${type}`, { key })).body.data as Array<{ companyId: string; data: Record<string, unknown> }>;

describe('POST /v1/companies/import', () => {
  it('neither a backend company nor an organization: registered pending verification, company.import.pending logged', async () => {
    const org = await bootstrap(t.baseUrl, { keyType: 'platform' });
    const s = siret();
    const res = await api(t.baseUrl, 'POST', '/v1/companies/import', { key: org.apiKey, body: { siret: s, mode: 'portability', companyName: 'Dupont SARL', effectiveDate: '2026-12-01' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^comp_/), organizationId: org.organizationId, peppolId: `0009:${s.slice(0, 9)}`, siret: s, siren: s.slice(0, 9), country: 'FR',
      outcome: 'pending', status: 'pending_verification', registrationStatus: null, effectiveDate: '2026-12-01',
    });
    expect(await events(org.apiKey, 'company.import.pending')).toEqual([expect.objectContaining({ companyId: res.body.id, data: { companyId: res.body.id, peppolId: res.body.peppolId, siret: s, siren: s.slice(0, 9), country: 'FR' } })]);
    const company = await api(t.baseUrl, 'GET', `/v1/companies/${res.body.id}`, { key: org.apiKey });
    expect(company.body).toMatchObject({ name: 'Dupont SARL', status: 'pending_verification', registrationNumber: s.slice(0, 9) });

    // The same SIRET again is the same company; with the organization named it is provisioned and registered.
    const again = await api(t.baseUrl, 'POST', '/v1/companies/import', { key: org.apiKey, body: { siret: s } });
    expect(again.body).toMatchObject({ id: res.body.id, outcome: 'pending' });
    expect(await events(org.apiKey, 'company.import.pending')).toHaveLength(1);
    const provisioned = await api(t.baseUrl, 'POST', '/v1/companies/import', { key: org.apiKey, body: { siret: s, organizationId: org.organizationId } });
    expect(provisioned.body).toMatchObject({ id: res.body.id, outcome: 'provisioned', status: 'active', registrationStatus: 'active' });
    expect(await events(org.apiKey, 'company.imported')).toEqual([expect.objectContaining({ companyId: res.body.id })]);
  });

  it('a known organization: provisioned and registered at once, company.imported logged (and never sent to webhooks)', async () => {
    const org = await bootstrap(t.baseUrl, { keyType: 'platform' });
    const s = siret();
    const res = await api(t.baseUrl, 'POST', '/v1/companies/import', { key: org.apiKey, body: { siret: s, organizationId: org.organizationId, companyName: 'Martin SAS' } });
    expect(res.body).toMatchObject({ outcome: 'provisioned', status: 'active', registrationStatus: 'active', peppolId: `0009:${s.slice(0, 9)}` });
    expect(await events(org.apiKey, 'company.imported')).toEqual([expect.objectContaining({ companyId: res.body.id, data: expect.objectContaining({ siret: s, siren: s.slice(0, 9), country: 'FR' }) })]);
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/companies/import', { key: org.apiKey, body: { siret: siret(), organizationId: 'org_someone_else' } }), 403, 'ORGANIZATION_FORBIDDEN');
  });

  it('a backend company: linked, its own data kept; unknown ones 404; a bad SIRET 400', async () => {
    const org = await bootstrap(t.baseUrl, { keyType: 'platform' });
    const s = siret();
    const res = await api(t.baseUrl, 'POST', '/v1/companies/import', { key: org.apiKey, body: { siret: s, backendCompanyId: org.company.id, companyName: 'Ignored Name' } });
    expect(res.body).toMatchObject({ id: org.company.id, outcome: 'imported', status: 'active', registrationStatus: 'active', siret: s });
    const company = await api(t.baseUrl, 'GET', `/v1/companies/${org.company.id}`, { key: org.apiKey });
    expect(company.body.name).not.toBe('Ignored Name');
    expect(company.body.peppolId).toBe(org.company.peppolId);
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/companies/import', { key: org.apiKey, body: { siret: siret(), backendCompanyId: 'comp_nope' } }), 404, 'COMPANY_NOT_FOUND');
    const bad = `${s.slice(0, 13)}${(Number(s[13]) + 1) % 10}`;
    const refused = await api(t.baseUrl, 'POST', '/v1/companies/import', { key: org.apiKey, body: { siret: bad } });
    expectEnvelope(refused, 400, 'INVALID_REQUEST');
    expect(refused.body.error.details[0]).toMatchObject({ field: 'siret' });
  });
});

describe('POST /v1/companies/import/batch', () => {
  it('imports each item on its own, answers in input order, and a bad item fails alone', async () => {
    const org = await bootstrap(t.baseUrl, { keyType: 'platform' });
    const good = Array.from({ length: 12 }, () => siret());
    const items: Array<Record<string, unknown>> = good.map((s, i) => ({ siret: s, ...(i % 2 ? { organizationId: org.organizationId } : {}) }));
    items.splice(3, 0, { siret: '123' });
    items.splice(7, 0, { companyName: 'no siret' });
    items.push({ siret: good[0] }); // the same SIRET again: the same company
    const res = await api(t.baseUrl, 'POST', '/v1/companies/import/batch', { key: org.apiKey, body: { items } });
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: { index: number }) => r.index)).toEqual(items.map((_, i) => i));
    expect(res.body.results[3]).toMatchObject({ status: 'failed', companyId: null, error: { code: 'INVALID_REQUEST' } });
    expect(res.body.results[7]).toMatchObject({ status: 'failed', error: { code: 'MISSING_FIELD' } });
    const imported = res.body.results.filter((r: { status: string }) => r.status === 'imported');
    expect(imported).toHaveLength(13);
    expect(res.body.results.at(-1).companyId).toBe(res.body.results[0].companyId);
    expect(new Set(imported.map((r: { companyId: string }) => r.companyId)).size).toBe(12);
    for (const r of imported) expect(r.peppolId).toMatch(/^0009:\d{9}$/);

    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/companies/import/batch', { key: org.apiKey, body: { items: Array.from({ length: 501 }, () => ({ siret: good[0] })) } }), 400, 'INVALID_REQUEST');
  });
});
