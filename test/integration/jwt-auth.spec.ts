/**
 * Identity-provider JWTs (dashboard users) and an external provider's machine tokens, verified by
 * the gateway against a real JWKS endpoint on 127.0.0.1 serving keys generated here: organization
 * selection from `_permissions` and the organization header, the spec's 401s and 403s, and the
 * built-in issuer still accepted next to the external one.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
const ISSUER = 'https://idp.example.test/';
const AUDIENCE = 'einvoicing-api-test';

let t: TestApp;
let jwksServer: Server;
let jwksHits = 0;
let idpKey: CryptoKey;
let strangerKey: CryptoKey;

beforeAll(async () => {
  const idp = await generateKeyPair('RS256');
  idpKey = idp.privateKey;
  strangerKey = (await generateKeyPair('RS256')).privateKey;
  const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(idp.publicKey)), kid: 'idp-1', alg: 'RS256', use: 'sig' }] });
  jwksServer = createServer((req, res) => {
    if (req.url !== '/.well-known/jwks.json') return void res.writeHead(404).end();
    jwksHits++;
    res.writeHead(200, { 'content-type': 'application/json' }).end(jwks);
  });
  await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
  process.env.EINV_JWT_JWKS_URL = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/.well-known/jwks.json`;
  process.env.EINV_JWT_ISSUER = ISSUER;
  process.env.EINV_JWT_AUDIENCE = AUDIENCE;
  t = await startTestApp();
});
afterAll(async () => {
  await t.stop();
  await new Promise((resolve) => jwksServer.close(resolve));
});

interface SignOptions { key?: CryptoKey; kid?: string; iss?: string; aud?: string; exp?: number; sub?: string }
async function jwt(claims: JWTPayload, o: SignOptions = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', kid: o.kid ?? 'idp-1', typ: 'JWT' })
    .setIssuer(o.iss ?? ISSUER)
    .setAudience(o.aud ?? AUDIENCE)
    .setSubject(o.sub ?? 'auth0|user-42')
    .setIssuedAt(now - 60)
    .setExpirationTime(o.exp ?? now + 3600)
    .sign(o.key ?? idpKey);
}

describe('dashboard users (identity-provider JWTs)', () => {
  it('resolves the first organization of _permissions by default and answers /v1/me with the claim\'s organizations', async () => {
    const a = await bootstrap(t.baseUrl, { label: 'alpha' });
    const b = await bootstrap(t.baseUrl, { label: 'beta' });
    const token = await jwt({ email: 'ana@example.com', _permissions: { [a.organizationId]: ['admin'], [b.organizationId]: ['read'] } });
    const me = await api(t.baseUrl, 'GET', '/v1/me', { key: token });
    expect(me.status).toBe(200);
    expect(me.body).toEqual({
      authMethod: 'jwt', userId: 'auth0|user-42', email: 'ana@example.com', keyType: null, apiKeyId: null,
      organizationId: a.organizationId, organizationIds: [a.organizationId, b.organizationId],
      organizations: [
        { id: a.organizationId, name: 'alpha (sandbox)', country: 'BE', vatNumber: null },
        { id: b.organizationId, name: 'beta (sandbox)', country: 'BE', vatNumber: null },
      ],
      scopes: ['*'], isTestMode: true,
    });
    const companies = await api(t.baseUrl, 'GET', '/v1/companies', { key: token });
    expect(companies.body.data.map((c: { id: string }) => c.id)).toEqual([a.company.id]);
  });

  it('selects another granted organization with X-Service-Organization-Id (or Organization-Id), 403 for one not granted', async () => {
    const a = await bootstrap(t.baseUrl);
    const b = await bootstrap(t.baseUrl);
    const c = await bootstrap(t.baseUrl);
    const token = await jwt({ _permissions: { [a.organizationId]: [], [b.organizationId]: [] } });
    for (const header of ['x-service-organization-id', 'organization-id']) {
      const res = await api(t.baseUrl, 'GET', '/v1/companies', { key: token, headers: { [header]: b.organizationId } });
      expect(res.status).toBe(200);
      expect(res.body.data.map((x: { id: string }) => x.id)).toEqual([b.company.id]);
    }
    const denied = await api(t.baseUrl, 'GET', '/v1/companies', { key: token, headers: { 'x-service-organization-id': c.organizationId } });
    expectEnvelope(denied, 403, 'ORGANIZATION_FORBIDDEN');
    expect(denied.body.error.message).toBe(`Token does not grant access to organization '${c.organizationId}'. Available: ${a.organizationId}, ${b.organizationId}.`);
    // X-Service-Company acts for a company of the selected organization only.
    const own = await api(t.baseUrl, 'GET', '/v1/me/company', { key: token, headers: { 'x-service-organization-id': b.organizationId, 'x-service-company': b.company.id } });
    expect(own.body.id).toBe(b.company.id);
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/me/company', { key: token, headers: { 'x-service-company': b.company.id } }), 403, 'COMPANY_FORBIDDEN');
  });

  it('403 "No organization found in token" for an empty claim, 403 for an organization this service does not know', async () => {
    const empty = await api(t.baseUrl, 'GET', '/v1/me', { key: await jwt({ _permissions: {} }) });
    expectEnvelope(empty, 403, 'ORGANIZATION_FORBIDDEN');
    expect(empty.body.error.message).toBe('No organization found in token');
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/me', { key: await jwt({}) }), 403, 'ORGANIZATION_FORBIDDEN');
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/me', { key: await jwt({ _permissions: { org_NOT_HERE: [] } }) }), 403, 'ORGANIZATION_FORBIDDEN');
  });

  it('401 EXPIRED_TOKEN past exp (beyond the clock tolerance), accepted within it', async () => {
    const a = await bootstrap(t.baseUrl);
    const now = Math.floor(Date.now() / 1000);
    const expired = await api(t.baseUrl, 'GET', '/v1/me', { key: await jwt({ _permissions: { [a.organizationId]: [] } }, { exp: now - 600 }) });
    expectEnvelope(expired, 401, 'EXPIRED_TOKEN');
    expect((await api(t.baseUrl, 'GET', '/v1/me', { key: await jwt({ _permissions: { [a.organizationId]: [] } }, { exp: now - 5 }) })).status).toBe(200);
  });

  it('401 INVALID_TOKEN for a bad signature, a wrong audience, an unknown issuer or kid, an unsigned or HMAC token', async () => {
    const a = await bootstrap(t.baseUrl);
    const claims = { _permissions: { [a.organizationId]: [] } };
    const cases = {
      badSignature: await jwt(claims, { key: strangerKey }),
      wrongAudience: await jwt(claims, { aud: 'https://another-api.example' }),
      unknownIssuer: await jwt(claims, { iss: 'https://evil.example/' }),
      unknownKid: await jwt(claims, { kid: 'idp-unknown' }),
      unsigned: `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${Buffer.from(JSON.stringify({ ...claims, iss: ISSUER, aud: AUDIENCE, sub: 'x', exp: 9_999_999_999 })).toString('base64url')}.`,
      hmac: await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: 'idp-1' }).setIssuer(ISSUER).setAudience(AUDIENCE).setSubject('x').setExpirationTime('1h').sign(new TextEncoder().encode('a-shared-secret-of-32-bytes-long!')),
      garbage: 'not-a-jwt-at-all',
    };
    for (const [name, token] of Object.entries(cases)) {
      const res = await api(t.baseUrl, 'GET', '/v1/me', { key: token });
      expect({ name, status: res.status, code: res.body.error?.code }).toEqual({ name, status: 401, code: 'INVALID_TOKEN' });
      expectEnvelope(res, 401, 'INVALID_TOKEN');
    }
    const wrongAudience = await api(t.baseUrl, 'GET', '/v1/me', { key: cases.wrongAudience });
    expect(wrongAudience.body.error.message).toMatch(/aud/);
  });

  it('fetches the provider\'s JWKS once and reuses it', async () => {
    const a = await bootstrap(t.baseUrl);
    const before = jwksHits;
    // Its own subject: the per-credential rate window of the other tests' user stays untouched.
    const token = await jwt({ _permissions: { [a.organizationId]: [] } }, { sub: 'auth0|jwks-cache' });
    for (let i = 0; i < 20; i++) expect((await api(t.baseUrl, 'GET', '/v1/me', { key: token })).status).toBe(200);
    expect(jwksHits - before).toBe(0);
    expect(jwksHits).toBeGreaterThanOrEqual(1);
  });
});

describe('machine tokens of the external provider and of the built-in issuer', () => {
  it('an external client-credentials token needs the header and a membership: the spec\'s literal 403s', async () => {
    const a = await bootstrap(t.baseUrl);
    const machine = await jwt({ _permissions: {}, gty: 'client-credentials' }, { sub: 'm2m-client@clients' });
    const without = await api(t.baseUrl, 'GET', '/v1/me', { key: machine });
    expectEnvelope(without, 403, 'ORGANIZATION_FORBIDDEN');
    expect(without.body.error.message).toBe('No organization found in token');
    const withHeader = await api(t.baseUrl, 'GET', '/v1/me', { key: machine, headers: { 'x-service-organization-id': a.organizationId } });
    expectEnvelope(withHeader, 403, 'ORGANIZATION_FORBIDDEN');
    expect(withHeader.body.error.message).toBe(`Token does not grant access to organization '${a.organizationId}'. Available: none.`);
  });

  it('still accepts the built-in issuer\'s tokens (dispatch on iss) and API keys', async () => {
    const a = await bootstrap(t.baseUrl);
    const created = await api(t.baseUrl, 'POST', '/v1/integrations', { key: a.apiKey, body: { name: 'sync' } });
    expect(created.body.audience).toBe(AUDIENCE);
    const issued = await api(t.baseUrl, 'POST', '/oauth/token', { body: { grant_type: 'client_credentials', client_id: created.body.clientId, client_secret: created.body.clientSecret, audience: AUDIENCE } });
    expect(issued.status).toBe(200);
    const me = await api(t.baseUrl, 'GET', '/v1/me', { key: issued.body.access_token, headers: { 'x-service-organization-id': a.organizationId } });
    expect(me.body).toMatchObject({ authMethod: 'client_credentials', organizationId: a.organizationId });
    expect((await api(t.baseUrl, 'GET', '/v1/me', { key: a.apiKey })).body.authMethod).toBe('api_key');
  });
});

describe('technical accounts of the external provider', () => {
  it('registered with a role, its machine tokens act in that organization only; role changes and removal apply at once', async () => {
    // Organization-wide members are registered with organization-wide keys (a personal key is refused).
    const a = await bootstrap(t.baseUrl, { keyType: 'platform' });
    const b = await bootstrap(t.baseUrl, { keyType: 'platform' });
    const personal = await bootstrap(t.baseUrl);
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/technical-accounts', { key: personal.apiKey, body: { name: 'Auth0 sync', subject: 'm2m-sync@clients' } }), 403, 'INSUFFICIENT_SCOPE');
    const subject = 'm2m-sync@clients';
    const machine = await jwt({ _permissions: {}, gty: 'client-credentials' }, { sub: subject });
    const inA = { 'x-service-organization-id': a.organizationId };
    const inB = { 'x-service-organization-id': b.organizationId };

    const added = await api(t.baseUrl, 'POST', '/v1/technical-accounts', { key: a.apiKey, body: { name: 'Auth0 sync', subject, role: 'member' } });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ id: expect.stringMatching(/^tacc_/), name: 'Auth0 sync', role: 'member', livemode: false, external: { issuer: ISSUER, subject } });
    expect(added.headers.get('location')).toBe(`/v1/technical-accounts/${added.body.id}`);

    const me = await api(t.baseUrl, 'GET', '/v1/me', { key: machine, headers: inA });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ authMethod: 'client_credentials', userId: subject, organizationId: a.organizationId, isTestMode: true });
    expect(me.body.scopes).not.toContain('platform');
    expect((await api(t.baseUrl, 'GET', '/v1/companies', { key: machine, headers: inA })).body.data.map((c: { id: string }) => c.id)).toEqual([a.company.id]);
    const foreign = await api(t.baseUrl, 'GET', '/v1/me', { key: machine, headers: inB });
    expect(foreign.body.error.message).toBe(`Token does not grant access to organization '${b.organizationId}'. Available: none.`);

    const promoted = await api(t.baseUrl, 'PATCH', `/v1/technical-accounts/${added.body.id}`, { key: a.apiKey, body: { role: 'admin' } });
    expect(promoted.body.role).toBe('admin');
    expect((await api(t.baseUrl, 'GET', '/v1/me', { key: machine, headers: inA })).body.scopes).toEqual(['*']);

    // Organization B makes the same client a member too: one account, two memberships.
    const inBAdded = await api(t.baseUrl, 'POST', '/v1/technical-accounts', { key: b.apiKey, body: { name: 'Auth0 sync', subject } });
    expect(inBAdded.body.id).toBe(added.body.id);
    expect((await api(t.baseUrl, 'GET', '/v1/me', { key: machine, headers: inB })).status).toBe(200);

    const listed = await api(t.baseUrl, 'GET', '/v1/technical-accounts', { key: a.apiKey });
    expect(listed.body.data).toEqual([expect.objectContaining({ id: added.body.id, role: 'admin' })]);

    expect((await api(t.baseUrl, 'DELETE', `/v1/technical-accounts/${added.body.id}`, { key: a.apiKey })).body).toEqual({ id: added.body.id, removed: true });
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/me', { key: machine, headers: inA }), 403, 'ORGANIZATION_FORBIDDEN');
    expect((await api(t.baseUrl, 'GET', '/v1/me', { key: machine, headers: inB })).status).toBe(200);
    expectEnvelope(await api(t.baseUrl, 'DELETE', `/v1/technical-accounts/${added.body.id}`, { key: a.apiKey }), 404, 'RESOURCE_NOT_FOUND');
  });

  it('an external token cannot speak for a built-in issuer\'s account (accounts are bound to their issuer)', async () => {
    const a = await bootstrap(t.baseUrl);
    const integration = await api(t.baseUrl, 'POST', '/v1/integrations', { key: a.apiKey, body: { name: 'built-in' } });
    const impostor = await jwt({ _permissions: {}, gty: 'client-credentials' }, { sub: integration.body.technicalAccountId });
    const res = await api(t.baseUrl, 'GET', '/v1/me', { key: impostor, headers: { 'x-service-organization-id': a.organizationId } });
    expectEnvelope(res, 403, 'ORGANIZATION_FORBIDDEN');
    expect(res.body.error.message).toBe(`Token does not grant access to organization '${a.organizationId}'. Available: none.`);
  });
});

describe('an identity provider that cannot serve its keys', () => {
  it('answers 502 UPSTREAM_ERROR when the JWKS endpoint fails, 503 UPSTREAM_UNAVAILABLE when it is unreachable: not the caller\'s fault', async () => {
    let mode: 'error' | 'down' = 'error';
    const broken = createServer((req, res) => {
      if (mode === 'down') return void req.socket.destroy();
      res.writeHead(500, { 'content-type': 'text/plain' }).end('oops');
    });
    await new Promise<void>((resolve) => broken.listen(0, '127.0.0.1', resolve));
    const previous = process.env.EINV_JWT_JWKS_URL;
    process.env.EINV_JWT_JWKS_URL = `http://127.0.0.1:${(broken.address() as AddressInfo).port}/jwks.json`;
    const other = await startTestApp();
    try {
      const org = await bootstrap(other.baseUrl);
      const token = await jwt({ _permissions: { [org.organizationId]: [] } });
      expectEnvelope(await api(other.baseUrl, 'GET', '/v1/me', { key: token }), 502, 'UPSTREAM_ERROR');
      mode = 'down';
      const down = await api(other.baseUrl, 'GET', '/v1/me', { key: token });
      expectEnvelope(down, 503, 'UPSTREAM_UNAVAILABLE');
      expect(down.headers.get('retry-after')).toBe('5');
      // API keys do not depend on the provider.
      expect((await api(other.baseUrl, 'GET', '/v1/me', { key: org.apiKey })).status).toBe(200);
    } finally {
      process.env.EINV_JWT_JWKS_URL = previous;
      await other.stop();
      await new Promise((resolve) => broken.close(resolve));
    }
  });
});
