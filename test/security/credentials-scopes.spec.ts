/**
 * Attack replay (issue 11, §4): scope escalation. A credential never mints a credential holding
 * more than it does: a `platform`-only key cannot create an admin (`*`) integration nor promote a
 * technical account, the token /oauth/token mints never resolves to more than the integration's
 * creator held, and a personal (one-company) key creates neither organization-wide keys nor keys
 * for another company or for none.
 */
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';
import { SCOPES } from '../../services/shared/contract.ts';
import { integration, machineToken, sql } from './support.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
delete process.env.EINV_JWT_JWKS_URL;
delete process.env.EINV_JWT_ISSUER;
process.env.EINV_OAUTH_KEY_SECRET = 'security-test signing-key secret';

let t: TestApp;
beforeAll(async () => { t = await startTestApp(); });
afterAll(async () => { await t.stop(); });

/** A key of the organization's own company holding only `scopes`, created by its bootstrap key. */
async function narrowKey(apiKey: string, scopes: string[]): Promise<string> {
  const res = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: apiKey, body: { name: 'narrow', scopes } });
  if (res.status !== 201) throw new Error(`narrow key: ${res.status} ${res.text}`);
  return res.body.key as string;
}

describe('integrations and technical accounts', () => {
  it('a platform-only key cannot create an admin integration (403 INSUFFICIENT_SCOPE), nor a member one it does not cover', async () => {
    const org = await bootstrap(t.baseUrl);
    const platformOnly = await narrowKey(org.apiKey, ['platform']);
    for (const role of ['admin', 'member', undefined]) {
      const res = await api(t.baseUrl, 'POST', '/v1/integrations', { key: platformOnly, body: { name: 'escalate', ...(role ? { role } : {}) } });
      expectEnvelope(res, 403, 'INSUFFICIENT_SCOPE');
      expect(res.body.error.details[0]).toMatchObject({ field: 'role', rule: 'subset' });
    }
    expect((await api(t.baseUrl, 'GET', '/v1/integrations', { key: org.apiKey })).body.data).toEqual([]);
  });

  it('the token /oauth/token mints never resolves to more than the key that created the integration held', async () => {
    const org = await bootstrap(t.baseUrl);
    // Everything but `*`: enough to create a `member` integration, not an `admin` one.
    const allButStar = SCOPES.filter((s) => s !== '*');
    const key = await narrowKey(org.apiKey, allButStar);
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/integrations', { key, body: { name: 'admin please', role: 'admin' } }), 403, 'INSUFFICIENT_SCOPE');
    const i = await integration(t, key, { name: 'bookkeeping', role: 'member' });
    const bearer = await machineToken(t, i);
    const headers = { 'x-service-organization-id': org.organizationId };
    const me = await api(t.baseUrl, 'GET', '/v1/me', { key: bearer, headers });
    expect(me.status).toBe(200);
    expect(me.body.scopes.length).toBeGreaterThan(0);
    for (const scope of me.body.scopes) expect(allButStar).toContain(scope);
    // So its token cannot mint a `*` key.
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/api-keys', { key: bearer, headers, body: { name: 'star', scopes: ['*'] } }), 403, 'INSUFFICIENT_SCOPE');
  });

  it('a key holding platform plus a few scopes can grant `member` only if it holds every member scope; PATCH to admin is refused likewise', async () => {
    const org = await bootstrap(t.baseUrl);
    const member = await integration(t, org.apiKey, { name: 'erp', role: 'member' });
    const platformOnly = await narrowKey(org.apiKey, ['platform', 'documents.read']);
    const promote = await api(t.baseUrl, 'PATCH', `/v1/technical-accounts/${member.technicalAccountId}`, { key: platformOnly, body: { role: 'admin' } });
    expectEnvelope(promote, 403, 'INSUFFICIENT_SCOPE');
    const listed = await api(t.baseUrl, 'GET', '/v1/technical-accounts', { key: org.apiKey });
    expect(listed.body.data.map((a: { role: string }) => a.role)).toEqual(['member']);
    // The organization's `*` key may.
    expect((await api(t.baseUrl, 'PATCH', `/v1/technical-accounts/${member.technicalAccountId}`, { key: org.apiKey, body: { role: 'admin' } })).status).toBe(200);
  });
});

describe('integrations created by a personal key', () => {
  it('are bound to its company: their tokens cannot act for another company nor mint organization-wide keys', async () => {
    const org = await bootstrap(t.baseUrl);
    const secondId = 'comp_01JSECURITYBOUNDINTEGRAT0';
    await sql(t, `insert into companies (id, organization_id, name, slug, country, created_at, updated_at) values ($1, $2, 'Other BV', 'other-bv', 'BE', now(), now())`, [secondId, org.organizationId]);
    const i = await integration(t, org.apiKey, { name: 'one company', role: 'admin' });
    expect((i as unknown as { companyId: string }).companyId).toBe(org.company.id);
    const bearer = await machineToken(t, i);
    const inOrg = { 'x-service-organization-id': org.organizationId };
    const own = await api(t.baseUrl, 'GET', '/v1/me/company', { key: bearer, headers: inOrg });
    expect(own.status).toBe(200);
    expect(own.body.id).toBe(org.company.id);
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/me/company', { key: bearer, headers: { ...inOrg, 'x-service-company': secondId } }), 403, 'COMPANY_FORBIDDEN');
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/api-keys', { key: bearer, headers: inOrg, body: { name: 'org-wide', keyType: 'platform' } }), 403, 'INSUFFICIENT_SCOPE');
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/api-keys', { key: bearer, headers: inOrg, body: { name: 'elsewhere', companyId: secondId } }), 403, 'COMPANY_FORBIDDEN');
    const sameCompany = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: bearer, headers: inOrg, body: { name: 'same company' } });
    expect(sameCompany.status).toBe(201);
    expect(sameCompany.body).toMatchObject({ keyType: 'personal', companyId: org.company.id });
    // An integration the bound token creates is bound too.
    const nested = await api(t.baseUrl, 'POST', '/v1/integrations', { key: bearer, headers: inOrg, body: { name: 'nested', role: 'member' } });
    expect(nested.status).toBe(201);
    expect(nested.body.companyId).toBe(org.company.id);
  });
});

describe('API keys', () => {
  it('a personal key cannot create platform or white-label keys, even holding `*`', async () => {
    const org = await bootstrap(t.baseUrl);
    for (const keyType of ['platform', 'white_label']) {
      const res = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: org.apiKey, body: { name: 'org-wide', keyType } });
      expectEnvelope(res, 403, 'INSUFFICIENT_SCOPE');
    }
    const listed = await api(t.baseUrl, 'GET', '/v1/api-keys', { key: org.apiKey });
    expect(listed.body.data.map((k: { keyType: string }) => k.keyType)).toEqual(['personal']);
  });

  it('a personal key creates keys for its own company only: another company of the organization, or none, is 403', async () => {
    const org = await bootstrap(t.baseUrl, { keyType: 'platform' });
    const admin = org.apiKey;
    // A second company of the same organization (no public route creates one yet).
    const secondId = 'comp_01JSECURITYSECONDCOMPANY00';
    await sql(t, `insert into companies (id, organization_id, name, slug, country, created_at, updated_at) values ($1, $2, 'Second BV', 'second-bv', 'BE', now(), now())`, [secondId, org.organizationId]);
    const personal = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: admin, body: { name: 'one company', companyId: org.company.id } });
    expect(personal.status).toBe(201);
    expect(personal.body).toMatchObject({ keyType: 'personal', companyId: org.company.id });
    const key = personal.body.key as string;
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/api-keys', { key, body: { name: 'elsewhere', companyId: secondId } }), 403, 'COMPANY_FORBIDDEN');
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/api-keys', { key, headers: { 'x-service-company': secondId }, body: { name: 'via header' } }), 403, 'COMPANY_FORBIDDEN');
    // The platform key may bind a key to either company.
    expect((await api(t.baseUrl, 'POST', '/v1/api-keys', { key: admin, body: { name: 'second', companyId: secondId } })).status).toBe(201);
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/api-keys', { key, body: { name: 'stranger', companyId: 'comp_01JD7Z3V9Q1M2N3P4R5S6T7V8W' } }), 403, 'COMPANY_FORBIDDEN');
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/api-keys', { key, body: { name: 'nowhere', keyType: 'platform' } }), 403, 'INSUFFICIENT_SCOPE');
    const own = await api(t.baseUrl, 'POST', '/v1/api-keys', { key, body: { name: 'same company' } });
    expect(own.status).toBe(201);
    expect(own.body).toMatchObject({ keyType: 'personal', companyId: org.company.id });
    // The organization-wide `*` key still creates organization-wide keys.
    const platform = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: admin, body: { name: 'org-wide', keyType: 'platform' } });
    expect(platform.status).toBe(201);
    expect(platform.body.companyId).toBeNull();
    // A narrower organization-wide key does not.
    const narrowPlatform = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: admin, body: { name: 'narrow org-wide', keyType: 'platform', scopes: ['platform', 'documents.read'] } });
    expect(narrowPlatform.status).toBe(201);
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/api-keys', { key: narrowPlatform.body.key, body: { name: 'wl', keyType: 'white_label', scopes: ['documents.read'] } }), 403, 'INSUFFICIENT_SCOPE');
  });

  it('a personal key without a company is never minted (it would act for any company a header names)', async () => {
    const org = await bootstrap(t.baseUrl, { keyType: 'platform' });
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/api-keys', { key: org.apiKey, body: { name: 'unbound', keyType: 'personal' } }), 403, 'COMPANY_REQUIRED');
  });
});
