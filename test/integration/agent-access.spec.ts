/**
 * Agent access over HTTP, end to end: the scope listing, consent with PKCE (RFC 7636 S256) from the
 * agent's request to a working key, a wrong verifier and a replayed code refused, a consenting key
 * that cannot grant what it does not hold, and single-use handoff tokens. Secrets rest hashed.
 */
import pg from 'pg';
import { createHash, randomBytes } from 'node:crypto';
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';
import { SCOPES } from '../../services/shared/contract.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';

let t: TestApp;
beforeAll(async () => { t = await startTestApp(); });
afterAll(async () => { await t.stop(); });

async function sql<T = Record<string, unknown>>(text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: t.databaseUrl });
  await client.connect();
  try { return (await client.query(text, values)).rows as T[]; } finally { await client.end(); }
}

/** An agent's PKCE pair, computed here independently of the product (RFC 7636 §4.1, §4.2). */
function pkcePair() {
  const verifier = randomBytes(48).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  return { verifier, challenge };
}

async function askAndConsent(userKey: string, scopes: string[], clientName = 'invoice-agent') {
  const pkce = pkcePair();
  const asked = await api(t.baseUrl, 'POST', '/v1/oauth/authorize', { body: { client_name: clientName, scopes, code_challenge: pkce.challenge, code_challenge_method: 'S256' } });
  expect(asked.status).toBe(201);
  const consented = await api(t.baseUrl, 'POST', `/v1/oauth/authorizations/${asked.body.id}/consent`, { key: userKey });
  expect(consented.status).toBe(200);
  return { pkce, authorizationId: asked.body.id as string, code: consented.body.code as string };
}

describe('scopes', () => {
  it('lists every scope with its description, without credentials', async () => {
    const res = await api(t.baseUrl, 'GET', '/v1/oauth/scopes');
    expect(res.status).toBe(200);
    expect(res.body.scopes.map((s: { id: string }) => s.id)).toEqual([...SCOPES]);
    expect(res.body.scopes.find((s: { id: string }) => s.id === 'send')).toEqual({ id: 'send', description: 'Send documents' });
  });
});

describe('consent with PKCE', () => {
  it('goes from the agent\'s request to a working key with exactly the consented scopes, for the consenting company', async () => {
    const org = await bootstrap(t.baseUrl);
    const pkce = pkcePair();
    const asked = await api(t.baseUrl, 'POST', '/v1/oauth/authorize', { body: { client_name: 'invoice-agent', scopes: ['documents.read', 'companies.read'], code_challenge: pkce.challenge } });
    expect(asked.status).toBe(201);
    expect(asked.body).toMatchObject({ id: expect.stringMatching(/^agauth_/), clientName: 'invoice-agent', scopes: ['documents.read', 'companies.read'], status: 'pending' });
    expect(asked.body.consentUrl).toMatch(new RegExp(`/v1/oauth/authorizations/${asked.body.id}$`));
    expect(asked.headers.get('location')).toBe(`/v1/oauth/authorizations/${asked.body.id}`);
    expect(Date.parse(asked.body.expiresAt) - Date.now()).toBeGreaterThan(9 * 60_000);
    expect(Date.parse(asked.body.expiresAt) - Date.now()).toBeLessThanOrEqual(10 * 60_000);

    // The user reads the request at the consent URL with their credential, then consents.
    const read = await api(t.baseUrl, 'GET', new URL(asked.body.consentUrl).pathname, { key: org.apiKey });
    expect(read.status).toBe(200);
    expect(read.body.status).toBe('pending');
    const consented = await api(t.baseUrl, 'POST', `/v1/oauth/authorizations/${asked.body.id}/consent`, { key: org.apiKey });
    expect(consented.status).toBe(200);
    expect(consented.body).toMatchObject({ authorizationId: asked.body.id, code: expect.stringMatching(/^agc_/), companyId: org.company.id, scopes: ['documents.read', 'companies.read'] });
    expect(consented.headers.get('cache-control')).toBe('no-store');

    const exchanged = await api(t.baseUrl, 'POST', '/v1/oauth/keys', { body: { code: consented.body.code, code_verifier: pkce.verifier } });
    expect(exchanged.status).toBe(201);
    expect(exchanged.body).toMatchObject({
      key: expect.stringMatching(/^svc_test_/), keyType: 'personal', scopes: ['documents.read', 'companies.read'], companyId: org.company.id,
      livemode: false, name: 'agent: invoice-agent', authorizationId: asked.body.id, handoffId: null,
    });
    const agentKey = exchanged.body.key as string;

    // The key works, and only within its scopes.
    const me = await api(t.baseUrl, 'GET', '/v1/me', { key: agentKey });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ organizationId: org.organizationId, scopes: ['documents.read', 'companies.read'] });
    expect((await api(t.baseUrl, 'GET', '/v1/documents', { key: agentKey })).status).toBe(200);
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/documents/validate', { key: agentKey, body: { xml: '<Invoice/>' } }), 403, 'INSUFFICIENT_SCOPE');

    // The request reads as exchanged; the code and the challenge are not the code at rest.
    expect((await api(t.baseUrl, 'GET', `/v1/oauth/authorizations/${asked.body.id}`, { key: org.apiKey })).body.status).toBe('exchanged');
    const [row] = await sql<{ code_hash: string; api_key_id: string }>('select code_hash, api_key_id from agent_authorizations where id = $1', [asked.body.id]);
    expect(row!.code_hash).toBe(createHash('sha256').update(consented.body.code).digest('hex'));
    expect(row!.api_key_id).toBe(exchanged.body.id);
    const dump = JSON.stringify(await sql('select * from agent_authorizations'));
    expect(dump).not.toContain(consented.body.code);
    expect(dump).not.toContain(pkce.verifier);
  });

  it('refuses a wrong code verifier, and the code is spent by the attempt', async () => {
    const org = await bootstrap(t.baseUrl);
    const { pkce, code } = await askAndConsent(org.apiKey, ['documents.read']);
    const wrong = await api(t.baseUrl, 'POST', '/v1/oauth/keys', { body: { code, code_verifier: pkcePair().verifier } });
    expectEnvelope(wrong, 400, 'INVALID_GRANT');
    expect(wrong.body.error.message).toMatch(/verifier/);
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/oauth/keys', { body: { code, code_verifier: pkce.verifier } }), 400, 'INVALID_GRANT');
  });

  it('refuses a replayed code, even twice at the same moment only one exchange wins, and revokes the key the code gave', async () => {
    const org = await bootstrap(t.baseUrl);
    const { pkce, code } = await askAndConsent(org.apiKey, ['documents.read']);
    const both = await Promise.all([1, 2].map(() => api(t.baseUrl, 'POST', '/v1/oauth/keys', { body: { code, code_verifier: pkce.verifier } })));
    expect(both.map((r) => r.status).sort()).toEqual([201, 400]);
    const winner = both.find((r) => r.status === 201)!.body;
    const replay = await api(t.baseUrl, 'POST', '/v1/oauth/keys', { body: { code, code_verifier: pkce.verifier } });
    expectEnvelope(replay, 400, 'INVALID_GRANT');
    expect(replay.body.error.message).toMatch(/already used; the key it gave has been revoked/);
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/me', { key: winner.key }), 401, 'REVOKED_KEY');
  });

  it('refuses a consent by a key that does not hold every scope asked: a credential never grants more than it holds', async () => {
    const org = await bootstrap(t.baseUrl);
    const narrow = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: org.apiKey, body: { name: 'reader', scopes: ['documents.read'] } });
    expect(narrow.status).toBe(201);
    const pkce = pkcePair();
    const asked = await api(t.baseUrl, 'POST', '/v1/oauth/authorize', { body: { client_name: 'greedy-agent', scopes: ['documents.read', 'send'], code_challenge: pkce.challenge } });
    const refused = await api(t.baseUrl, 'POST', `/v1/oauth/authorizations/${asked.body.id}/consent`, { key: narrow.body.key });
    expectEnvelope(refused, 403, 'INSUFFICIENT_SCOPE');
    expect(refused.body.error.details).toEqual([expect.objectContaining({ field: 'scopes', message: expect.stringContaining("'send'") })]);
    // Still pending: a user who holds the scopes may consent.
    expect((await api(t.baseUrl, 'GET', `/v1/oauth/authorizations/${asked.body.id}`, { key: org.apiKey })).body.status).toBe('pending');
  });

  it('voids the grant when the consenting key is revoked before the exchange', async () => {
    const org = await bootstrap(t.baseUrl);
    const consenting = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: org.apiKey, body: { name: 'consenting', scopes: ['documents.read', 'send'] } });
    const { pkce, code } = await askAndConsent(consenting.body.key, ['send']);
    expect((await api(t.baseUrl, 'DELETE', `/v1/api-keys/${consenting.body.id}`, { key: org.apiKey })).status).toBe(200);
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/oauth/keys', { body: { code, code_verifier: pkce.verifier } }), 400, 'INVALID_GRANT');
  });

  it('checks the agent\'s request: S256 only, a 43-character challenge, known scopes; consent twice is a conflict', async () => {
    const pkce = pkcePair();
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/oauth/authorize', { body: { client_name: 'a', scopes: ['send'], code_challenge: pkce.challenge, code_challenge_method: 'plain' } }), 400, 'INVALID_ENUM');
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/oauth/authorize', { body: { client_name: 'a', scopes: ['send'], code_challenge: 'short' } }), 400, 'INVALID_REQUEST');
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/oauth/authorize', { body: { client_name: 'a', scopes: ['teleport'], code_challenge: pkce.challenge } }), 400, 'INVALID_ENUM');
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/oauth/authorize', { body: { scopes: ['send'], code_challenge: pkce.challenge } }), 400, 'MISSING_FIELD');
    const org = await bootstrap(t.baseUrl);
    const { authorizationId } = await askAndConsent(org.apiKey, ['send']);
    expectEnvelope(await api(t.baseUrl, 'POST', `/v1/oauth/authorizations/${authorizationId}/consent`, { key: org.apiKey }), 409, 'INVALID_TRANSITION');
    // Once consented, another organization does not see it.
    const other = await bootstrap(t.baseUrl);
    expectEnvelope(await api(t.baseUrl, 'GET', `/v1/oauth/authorizations/${authorizationId}`, { key: other.apiKey }), 404, 'RESOURCE_NOT_FOUND');
  });
});

describe('platform keys', () => {
  it('consent for the company named by X-Service-Company, and refuse without it (403 COMPANY_REQUIRED)', async () => {
    const platform = await bootstrap(t.baseUrl, { keyType: 'platform' });
    const pkce = pkcePair();
    const asked = await api(t.baseUrl, 'POST', '/v1/oauth/authorize', { body: { client_name: 'tenant-agent', scopes: ['send'], code_challenge: pkce.challenge } });
    expectEnvelope(await api(t.baseUrl, 'POST', `/v1/oauth/authorizations/${asked.body.id}/consent`, { key: platform.apiKey }), 403, 'COMPANY_REQUIRED');
    const consented = await api(t.baseUrl, 'POST', `/v1/oauth/authorizations/${asked.body.id}/consent`, { key: platform.apiKey, headers: { 'x-service-company': platform.company.id } });
    expect(consented.status).toBe(200);
    const key = await api(t.baseUrl, 'POST', '/v1/oauth/keys', { body: { code: consented.body.code, code_verifier: pkce.verifier } });
    expect(key.body).toMatchObject({ keyType: 'personal', companyId: platform.company.id, scopes: ['send'] });
  });
});

describe('handoff tokens', () => {
  it('mints a 10-minute single-use token that an agent redeems once for a key of its scopes', async () => {
    const org = await bootstrap(t.baseUrl);
    const minted = await api(t.baseUrl, 'POST', '/v1/oauth/handoffs', { key: org.apiKey, body: { scopes: ['send', 'documents.read'], name: 'claude' } });
    expect(minted.status).toBe(201);
    expect(minted.body).toMatchObject({ id: expect.stringMatching(/^hoff_/), token: expect.stringMatching(/^agh_/), scopes: ['send', 'documents.read'], companyId: org.company.id, livemode: false, name: 'claude' });
    const life = Date.parse(minted.body.expiresAt) - Date.parse(minted.body.createdAt);
    expect(life).toBe(10 * 60_000);

    const redeemed = await api(t.baseUrl, 'POST', '/v1/oauth/handoffs/redeem', { body: { token: minted.body.token } });
    expect(redeemed.status).toBe(201);
    expect(redeemed.body).toMatchObject({ key: expect.stringMatching(/^svc_test_/), scopes: ['send', 'documents.read'], companyId: org.company.id, handoffId: minted.body.id, authorizationId: null, name: 'claude' });
    expect((await api(t.baseUrl, 'GET', '/v1/me', { key: redeemed.body.key })).body.scopes).toEqual(['send', 'documents.read']);

    const replay = await api(t.baseUrl, 'POST', '/v1/oauth/handoffs/redeem', { body: { token: minted.body.token } });
    expectEnvelope(replay, 400, 'INVALID_GRANT');
    expect(replay.body.error.message).toMatch(/already redeemed/);
    const dump = JSON.stringify(await sql('select * from handoff_tokens'));
    expect(dump).not.toContain(minted.body.token);
    const read = await api(t.baseUrl, 'GET', `/v1/oauth/handoffs/${minted.body.id}`, { key: org.apiKey });
    expect(read.body).toMatchObject({ status: 'redeemed', apiKeyId: redeemed.body.id });
    expect(read.body.token).toBeUndefined();
  });

  it('defaults to the five handoff scopes the caller holds, and refuses scopes outside them or beyond the caller\'s', async () => {
    const org = await bootstrap(t.baseUrl);
    const all = await api(t.baseUrl, 'POST', '/v1/oauth/handoffs', { key: org.apiKey, body: {} });
    expect(all.body.scopes).toEqual(['send', 'receive', 'documents.read', 'companies.read', 'stats']);
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/oauth/handoffs', { key: org.apiKey, body: { scopes: ['platform'] } }), 400, 'INVALID_ENUM');
    const reader = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: org.apiKey, body: { name: 'reader', scopes: ['documents.read'] } });
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/oauth/handoffs', { key: reader.body.key, body: { scopes: ['send'] } }), 403, 'INSUFFICIENT_SCOPE');
    expect((await api(t.baseUrl, 'POST', '/v1/oauth/handoffs', { key: reader.body.key, body: {} })).body.scopes).toEqual(['documents.read']);
  });

  it('refuses an expired token, and an unknown one', async () => {
    const org = await bootstrap(t.baseUrl);
    const minted = await api(t.baseUrl, 'POST', '/v1/oauth/handoffs', { key: org.apiKey, body: {} });
    await sql('update handoff_tokens set expires_at = now() - interval \'1 second\' where id = $1', [minted.body.id]);
    const expired = await api(t.baseUrl, 'POST', '/v1/oauth/handoffs/redeem', { body: { token: minted.body.token } });
    expectEnvelope(expired, 400, 'INVALID_GRANT');
    expect(expired.body.error.message).toMatch(/expired/);
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/oauth/handoffs/redeem', { body: { token: 'agh_nothing' } }), 400, 'INVALID_GRANT');
  });
});

// Last: it leaves this address throttled for the rest of the window.
describe('guessing', () => {
  it('throttles an address that keeps presenting unknown codes or tokens (429 RATE_LIMITED with Retry-After)', async () => {
    let last: Awaited<ReturnType<typeof api>> | undefined;
    for (let i = 0; i < 40 && last?.status !== 429; i++) {
      last = await api(t.baseUrl, 'POST', i % 2 ? '/v1/oauth/keys' : '/v1/oauth/handoffs/redeem', { body: i % 2 ? { code: `agc_guess${i}`, code_verifier: pkcePair().verifier } : { token: `agh_guess${i}` } });
      if (last.status !== 429) expectEnvelope(last, 400, 'INVALID_GRANT');
    }
    expectEnvelope(last!, 429, 'RATE_LIMITED');
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
