/**
 * Client-credentials machine tokens from the built-in issuer, end to end over HTTP: integrations
 * created through the API, POST /oauth/token (audience, expires_in, RFC 6749 errors), the JWKS at
 * /.well-known/jwks.json, the gateway verifying those tokens like any identity provider's, the
 * spec's literal 403s, membership and roles, sandbox/production separation, revocation and key
 * rotation. No external identity provider is configured here: the built-in issuer is the default.
 */
import pg from 'pg';
import { createHash } from 'node:crypto';
import { compactVerify, createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';
import { largeJsonInvoice } from '../support/hostile-inputs.ts';
import { provision } from '../../services/tenancy/tenancy.contract.ts';
import { rotateSigningKey } from '../../services/identity/identity.contract.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
delete process.env.EINV_JWT_JWKS_URL;
const AUDIENCE = 'https://api.einvoicing.test/audience';
process.env.EINV_JWT_AUDIENCE = AUDIENCE;
// Private signing keys are stored encrypted here (test/integration/jwt-auth.spec.ts runs without a secret).
process.env.EINV_OAUTH_KEY_SECRET = 'integration-test signing-key secret';

let t: TestApp;
beforeAll(async () => { t = await startTestApp(); });
afterAll(async () => { await t.stop(); });

async function sql<T = Record<string, unknown>>(text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: t.databaseUrl });
  await client.connect();
  try { return (await client.query(text, values)).rows as T[]; } finally { await client.end(); }
}

async function integration(key: string, body: Record<string, unknown> = { name: 'erp-sync' }) {
  const res = await api(t.baseUrl, 'POST', '/v1/integrations', { key, body });
  if (res.status !== 201) throw new Error(`integration: ${res.status} ${res.text}`);
  return res.body as { id: string; clientId: string; clientSecret: string; technicalAccountId: string; tokenUrl: string; audience: string; livemode: boolean; role: string };
}

async function token(clientId: string, clientSecret: string, audience = AUDIENCE) {
  return api(t.baseUrl, 'POST', '/oauth/token', { body: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, audience } });
}

describe('integrations and the token endpoint', () => {
  it('creates an integration whose secret is shown once and stored hashed, and issues a 24-hour Bearer token for the fixed audience', async () => {
    const org = await bootstrap(t.baseUrl);
    const created = await api(t.baseUrl, 'POST', '/v1/integrations', { key: org.apiKey, body: { name: 'erp-sync' } });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`/v1/integrations/${created.body.id}`);
    expect(created.body).toMatchObject({
      id: expect.stringMatching(/^int_/), name: 'erp-sync', clientId: expect.stringMatching(/^cli_test_/), clientSecret: expect.stringMatching(/^ccs_/),
      role: 'admin', organizationId: org.organizationId, technicalAccountId: expect.stringMatching(/^tacc_/), livemode: false, audience: AUDIENCE, revokedAt: null,
    });
    expect(created.body.tokenUrl).toMatch(/\/oauth\/token$/);

    const read = await api(t.baseUrl, 'GET', `/v1/integrations/${created.body.id}`, { key: org.apiKey });
    expect(read.status).toBe(200);
    expect(read.body.clientSecret).toBeUndefined();
    const list = await api(t.baseUrl, 'GET', '/v1/integrations', { key: org.apiKey });
    expect(list.body.data.map((i: { id: string }) => i.id)).toEqual([created.body.id]);
    expect(JSON.stringify(list.body)).not.toContain(created.body.clientSecret);

    const rows = await sql<{ client_secret_hash: string }>('select * from integrations where id = $1', [created.body.id]);
    expect(JSON.stringify(rows)).not.toContain(created.body.clientSecret);
    expect(rows[0]!.client_secret_hash).toBe(createHash('sha256').update(created.body.clientSecret).digest('hex'));

    const res = await token(created.body.clientId, created.body.clientSecret);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 86400 });
    const claims = decodeJwt(res.body.access_token);
    expect(claims).toMatchObject({ aud: AUDIENCE, sub: created.body.technicalAccountId, _permissions: {}, gty: 'client-credentials', azp: created.body.clientId, livemode: false });
    expect(claims.exp! - claims.iat!).toBe(86400);

    // The published JWKS verifies it (what any integrator or external gateway would do).
    const jwks = await api(t.baseUrl, 'GET', '/.well-known/jwks.json');
    expect(jwks.status).toBe(200);
    const header = decodeProtectedHeader(res.body.access_token);
    expect(header.alg).toBe('ES256');
    expect(jwks.body.keys.map((k: { kid: string }) => k.kid)).toContain(header.kid);
    for (const k of jwks.body.keys) expect(k.d).toBeUndefined();
    await expect(jwtVerify(res.body.access_token, createLocalJWKSet(jwks.body), { audience: AUDIENCE, issuer: claims.iss! })).resolves.toBeTruthy();
    const keys = await sql<{ private_jwk: Record<string, unknown> }>('select private_jwk from signing_keys');
    expect(keys.length).toBeGreaterThan(0);
    for (const k of keys) expect(Object.keys(k.private_jwk).sort()).toEqual(['alg', 'jwe', 'kid']);
  });

  it('refuses a wrong audience with 403 access_denied, bad credentials with 401 invalid_client, other grants with 400 unsupported_grant_type (RFC 6749 bodies)', async () => {
    const org = await bootstrap(t.baseUrl);
    const i = await integration(org.apiKey);

    const wrongAudience = await token(i.clientId, i.clientSecret, 'https://api.example.com');
    expect(wrongAudience.status).toBe(403);
    expect(wrongAudience.body).toEqual({ error: 'access_denied', error_description: expect.stringContaining('https://api.example.com'), requestId: wrongAudience.headers.get('x-request-id') });

    for (const [id, secret] of [[i.clientId, 'ccs_wrong'], ['cli_test_unknown', i.clientSecret]] as const) {
      const bad = await token(id, secret);
      expect(bad.status).toBe(401);
      expect(bad.body.error).toBe('invalid_client');
    }
    const grant = await api(t.baseUrl, 'POST', '/oauth/token', { body: { grant_type: 'password', client_id: i.clientId, client_secret: i.clientSecret, audience: AUDIENCE } });
    expect(grant.status).toBe(400);
    expect(grant.body.error).toBe('unsupported_grant_type');
    const missing = await api(t.baseUrl, 'POST', '/oauth/token', { body: { grant_type: 'client_credentials', client_id: i.clientId } });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ error: 'invalid_request', error_description: expect.stringContaining('client_secret') });
  });

  it('requires the platform scope to manage integrations; an integration of another organization is not found', async () => {
    const a = await bootstrap(t.baseUrl);
    const b = await bootstrap(t.baseUrl);
    const narrow = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: a.apiKey, body: { name: 'reader', scopes: ['documents.read'] } });
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/integrations', { key: narrow.body.key, body: { name: 'x' } }), 403, 'INSUFFICIENT_SCOPE');
    const i = await integration(a.apiKey);
    expectEnvelope(await api(t.baseUrl, 'GET', `/v1/integrations/${i.id}`, { key: b.apiKey }), 404, 'RESOURCE_NOT_FOUND');
    expectEnvelope(await api(t.baseUrl, 'DELETE', `/v1/integrations/${i.id}`, { key: b.apiKey }), 404, 'RESOURCE_NOT_FOUND');
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/integrations', { key: a.apiKey, body: { name: 'x', role: 'owner' } }), 400, 'INVALID_ENUM');
  });
});

it('documents the token endpoint, the JWKS and the client-credentials scheme in the OpenAPI document', async () => {
  const doc = (await api(t.baseUrl, 'GET', '/v1/openapi.json')).body;
  expect(doc.components.securitySchemes.clientCredentials).toMatchObject({ type: 'oauth2', flows: { clientCredentials: { tokenUrl: expect.stringMatching(/\/oauth\/token$/) } } });
  const tokenOp = doc.paths['/oauth/token'].post;
  expect(tokenOp.security).toEqual([]);
  expect(tokenOp.responses['403'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/OAuthError' });
  expect(tokenOp.requestBody.content['application/json'].schema.required).toEqual(['grant_type', 'client_id', 'client_secret', 'audience']);
  expect(doc.paths['/.well-known/jwks.json'].get.security).toEqual([]);
  expect(doc.paths['/v1/integrations'].post['x-required-scope']).toBe('platform');
});

describe('technical accounts without an external provider', () => {
  it('lists the integrations\' accounts as members; registering an external client is refused (no provider configured)', async () => {
    const org = await bootstrap(t.baseUrl);
    const i = await integration(org.apiKey, { name: 'erp', role: 'member' });
    const listed = await api(t.baseUrl, 'GET', '/v1/technical-accounts', { key: org.apiKey });
    expect(listed.body.data).toEqual([{ id: i.technicalAccountId, name: 'erp', role: 'member', livemode: false, external: null, memberSince: expect.any(String) }]);
    const refused = await api(t.baseUrl, 'POST', '/v1/technical-accounts', { key: org.apiKey, body: { name: 'x', subject: 'abc@clients' } });
    expectEnvelope(refused, 400, 'INVALID_REQUEST');
    expect(refused.body.error.message).toMatch(/No external identity provider/);
  });
});

describe('calling the API with a machine token', () => {
  it('needs the organization header: 403 "No organization found in token" without it, the literal membership 403 for another organization', async () => {
    const org = await bootstrap(t.baseUrl);
    const other = await bootstrap(t.baseUrl);
    const i = await integration(org.apiKey);
    const { access_token: bearer } = (await token(i.clientId, i.clientSecret)).body;

    const without = await api(t.baseUrl, 'GET', '/v1/companies', { key: bearer });
    expectEnvelope(without, 403, 'ORGANIZATION_FORBIDDEN');
    expect(without.body.error.message).toBe('No organization found in token');

    const foreign = await api(t.baseUrl, 'GET', '/v1/companies', { key: bearer, headers: { 'x-service-organization-id': other.organizationId } });
    expectEnvelope(foreign, 403, 'ORGANIZATION_FORBIDDEN');
    expect(foreign.body.error.message).toBe(`Token does not grant access to organization '${other.organizationId}'. Available: none.`);

    // The legacy alias works the same way.
    for (const header of ['x-service-organization-id', 'organization-id']) {
      const own = await api(t.baseUrl, 'GET', '/v1/companies', { key: bearer, headers: { [header]: org.organizationId } });
      expect(own.status).toBe(200);
      expect(own.body.data.map((c: { id: string }) => c.id)).toEqual([org.company.id]);
    }

    const me = await api(t.baseUrl, 'GET', '/v1/me', { key: bearer, headers: { 'x-service-organization-id': org.organizationId } });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      authMethod: 'client_credentials', userId: i.technicalAccountId, email: null, keyType: null, apiKeyId: null,
      organizationId: org.organizationId, organizationIds: [org.organizationId], scopes: ['*'], isTestMode: true,
    });
    expect(me.body.organizations).toEqual([expect.objectContaining({ id: org.organizationId })]);

    // X-Service-Company names a company of the organization, as with platform keys.
    const company = await api(t.baseUrl, 'GET', '/v1/me/company', { key: bearer, headers: { 'x-service-organization-id': org.organizationId, 'x-service-company': org.company.id } });
    expect(company.body.id).toBe(org.company.id);
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/me/company', { key: bearer, headers: { 'x-service-organization-id': org.organizationId, 'x-service-company': other.company.id } }), 403, 'COMPANY_FORBIDDEN');
  });

  it('a member technical account holds every scope but platform', async () => {
    const org = await bootstrap(t.baseUrl);
    const i = await integration(org.apiKey, { name: 'bookkeeping', role: 'member' });
    expect(i.role).toBe('member');
    const { access_token: bearer } = (await token(i.clientId, i.clientSecret)).body;
    const headers = { 'x-service-organization-id': org.organizationId };
    expect((await api(t.baseUrl, 'GET', '/v1/companies', { key: bearer, headers })).status).toBe(200);
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/integrations', { key: bearer, headers }), 403, 'INSUFFICIENT_SCOPE');
    const me = await api(t.baseUrl, 'GET', '/v1/me', { key: bearer, headers });
    expect(me.body.scopes).not.toContain('platform');
    expect(me.body.scopes).toContain('companies.read');
  });

  it('keeps sandbox and production apart: a live integration issues live tokens, neither reaches the other organization', async () => {
    const sandbox = await bootstrap(t.baseUrl);
    const live = await t.app.broker.call(provision.action, {
      organization: { name: 'Live Co', sandbox: false, country: 'BE' },
      company: { name: 'Live Co BV', country: 'BE' },
      apiKey: { name: 'owner', keyType: 'personal' },
    }) as { organizationId: string; apiKey: { key: string } };
    expect(live.apiKey.key).toMatch(/^svc_live_/);

    const liveIntegration = await integration(live.apiKey.key);
    expect(liveIntegration).toMatchObject({ livemode: true, clientId: expect.stringMatching(/^cli_live_/) });
    const liveToken = (await token(liveIntegration.clientId, liveIntegration.clientSecret)).body.access_token;
    expect(decodeJwt(liveToken).livemode).toBe(true);
    const me = await api(t.baseUrl, 'GET', '/v1/me', { key: liveToken, headers: { 'x-service-organization-id': live.organizationId } });
    expect(me.body).toMatchObject({ authMethod: 'client_credentials', isTestMode: false, organizationId: live.organizationId });

    const testIntegration = await integration(sandbox.apiKey);
    const testToken = (await token(testIntegration.clientId, testIntegration.clientSecret)).body.access_token;
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/me', { key: testToken, headers: { 'x-service-organization-id': live.organizationId } }), 403, 'ORGANIZATION_FORBIDDEN');
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/me', { key: liveToken, headers: { 'x-service-organization-id': sandbox.organizationId } }), 403, 'ORGANIZATION_FORBIDDEN');
  });

  it('revoking the integration stops its secret and its tokens at once', async () => {
    const org = await bootstrap(t.baseUrl);
    const i = await integration(org.apiKey);
    const { access_token: bearer } = (await token(i.clientId, i.clientSecret)).body;
    const headers = { 'x-service-organization-id': org.organizationId };
    expect((await api(t.baseUrl, 'GET', '/v1/me', { key: bearer, headers })).status).toBe(200);

    const revoked = await api(t.baseUrl, 'DELETE', `/v1/integrations/${i.id}`, { key: org.apiKey });
    expect(revoked.status).toBe(200);
    expect(revoked.body.revokedAt).toEqual(expect.any(String));
    const after = await api(t.baseUrl, 'GET', '/v1/me', { key: bearer, headers });
    expectEnvelope(after, 403, 'ORGANIZATION_FORBIDDEN');
    expect(after.body.error.message).toBe(`Token does not grant access to organization '${org.organizationId}'. Available: none.`);
    expect((await token(i.clientId, i.clientSecret)).body.error).toBe('invalid_client');
    expect((await api(t.baseUrl, 'GET', '/v1/integrations', { key: org.apiKey })).body.data).toEqual([]);
  });

  it('rejects a tampered machine token (claims or signature changed) with 401 INVALID_TOKEN', async () => {
    const org = await bootstrap(t.baseUrl);
    const i = await integration(org.apiKey);
    const { access_token: bearer } = (await token(i.clientId, i.clientSecret)).body;
    const headers = { 'x-service-organization-id': org.organizationId };
    const [h, p, s] = bearer.split('.');
    const payload = JSON.parse(Buffer.from(p!, 'base64url').toString());
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...payload, sub: 'tacc_someone_else' })).toString('base64url')}.${s}`;
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/me', { key: forged, headers }), 401, 'INVALID_TOKEN');
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/me', { key: `${h}.${p}.${s!.slice(0, -4)}AAAA`, headers }), 401, 'INVALID_TOKEN');
  });
});

describe('signing key rotation', () => {
  it('signs with the new key after a rotation while tokens of the old key keep verifying until it retires', async () => {
    const org = await bootstrap(t.baseUrl);
    const i = await integration(org.apiKey);
    const headers = { 'x-service-organization-id': org.organizationId };
    const before = (await token(i.clientId, i.clientSecret)).body.access_token;
    expect((await api(t.baseUrl, 'GET', '/v1/me', { key: before, headers })).status).toBe(200);
    const oldKid = decodeProtectedHeader(before).kid!;

    const rotation = await t.app.broker.call(rotateSigningKey.action, {}) as { kid: string; retiring: Array<{ kid: string; retireAt: string }> };
    expect(rotation.kid).not.toBe(oldKid);
    const retiring = rotation.retiring.find((k) => k.kid === oldKid)!;
    // Retired only once every token it signed has expired (24 h + clock tolerance).
    expect(new Date(retiring.retireAt).getTime()).toBeGreaterThanOrEqual(Date.now() + 86_400_000);

    const after = (await token(i.clientId, i.clientSecret)).body.access_token;
    expect(decodeProtectedHeader(after).kid).toBe(rotation.kid);
    const kids = (await api(t.baseUrl, 'GET', '/.well-known/jwks.json')).body.keys.map((k: { kid: string }) => k.kid);
    expect(kids).toEqual(expect.arrayContaining([oldKid, rotation.kid]));

    // The gateway learns the new key on its first unknown kid (after a short refetch cooldown).
    await new Promise((r) => setTimeout(r, 1_100));
    expect((await api(t.baseUrl, 'GET', '/v1/me', { key: after, headers })).status).toBe(200);
    expect((await api(t.baseUrl, 'GET', '/v1/me', { key: before, headers })).status).toBe(200);

    // Past its retirement the old key leaves the JWKS.
    await sql(`update signing_keys set retire_at = now() - interval '1 second' where kid = $1`, [oldKid]);
    const published = (await api(t.baseUrl, 'GET', '/.well-known/jwks.json')).body.keys.map((k: { kid: string }) => k.kid);
    expect(published).not.toContain(oldKid);
    expect(published).toContain(rotation.kid);
  });

  it('an evidence bundle signed before a rotation still verifies after its key retired, with /.well-known/statement-keys.json', async () => {
    const [org, buyer] = [await bootstrap(t.baseUrl), await bootstrap(t.baseUrl)];
    const sent = await api<{ id: string }>(t.baseUrl, 'POST', '/v1/documents/send', { key: org.apiKey, body: { type: 'invoice', format: 'json', to: buyer.company.peppolId, document: largeJsonInvoice('EVID-KEY-1', 1, org.company.vatNumber) } });
    expect(sent.status).toBe(201);
    const bundle = await (await fetch(`${t.baseUrl}/v1/documents/${sent.body.id}/evidence/bundle`, { headers: { authorization: `Bearer ${org.apiKey}` } })).text();
    const signedBy = decodeProtectedHeader(bundle).kid!;

    const rotation = await t.app.broker.call(rotateSigningKey.action, {}) as { kid: string };
    await sql(`update signing_keys set retire_at = now() - interval '1 second' where kid = $1`, [signedBy]);
    const jwks = (await api<JSONWebKeySet>(t.baseUrl, 'GET', '/.well-known/jwks.json')).body;
    expect(jwks.keys.map((k) => k.kid)).not.toContain(signedBy);
    await expect(compactVerify(bundle, createLocalJWKSet(jwks))).rejects.toThrow();
    // The archive keeps every key that ever signed: the old statement verifies, the new key is there too.
    const archive = await api<JSONWebKeySet>(t.baseUrl, 'GET', '/.well-known/statement-keys.json');
    expect(archive.status).toBe(200);
    expect(archive.body.keys.map((k) => k.kid)).toEqual(expect.arrayContaining([signedBy, rotation.kid]));
    expect(archive.body.keys.every((k) => !('d' in k))).toBe(true);
    const { payload } = await compactVerify(bundle, createLocalJWKSet(archive.body));
    expect(JSON.parse(new TextDecoder().decode(payload))).toMatchObject({ statement: 'document-exchange-evidence', evidence: { documentId: sent.body.id } });
  });
});
