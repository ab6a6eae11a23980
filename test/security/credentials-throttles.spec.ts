/**
 * Attack replay (issue 11, §10 in part): failed authentications are throttled per client IP
 * (garbage keys and tokens) and per client id (wrong client secrets at /oauth/token) with 429
 * RATE_LIMITED and Retry-After, and an organization's live API keys and integrations are capped
 * (409 LIMIT_EXCEEDED), so per-key rate limits cannot be multiplied without end.
 */
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';
import { integration, tokenRequest } from './support.ts';

const FAILURES = 5;
const MAX_KEYS = 3;
const MAX_INTEGRATIONS = 2;
process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
delete process.env.EINV_JWT_JWKS_URL;
delete process.env.EINV_JWT_ISSUER;
process.env.EINV_OAUTH_KEY_SECRET = 'security-test signing-key secret';
process.env.EINV_AUTH_FAILURE_LIMIT = String(FAILURES);
process.env.EINV_AUTH_FAILURE_WINDOW_SECONDS = '600';
process.env.EINV_MAX_API_KEYS_PER_ORGANIZATION = String(MAX_KEYS);
process.env.EINV_MAX_INTEGRATIONS_PER_ORGANIZATION = String(MAX_INTEGRATIONS);
// Each scenario comes from its own address (the gateway trusts X-Forwarded-For here), so they do not share a count.
process.env.EINV_TRUST_PROXY = 'true';

let t: TestApp;
beforeAll(async () => { t = await startTestApp(); });
afterAll(async () => { await t.stop(); });

const from = (ip: string) => ({ 'x-forwarded-for': ip });

describe('failed authentications', () => {
  it('garbage API keys from one address: 401 for the first N, then 429 RATE_LIMITED with Retry-After, valid keys from there too', async () => {
    const org = await bootstrap(t.baseUrl);
    for (let i = 0; i < FAILURES; i++) {
      expectEnvelope(await api(t.baseUrl, 'GET', '/v1/me', { key: `svc_test_garbage${i}`, headers: from('198.51.100.7') }), 401, 'INVALID_TOKEN');
    }
    for (const key of ['svc_test_garbage-more', 'not.a.jwt', org.apiKey]) {
      const res = await api(t.baseUrl, 'GET', '/v1/me', { key, headers: from('198.51.100.7') });
      if (key === org.apiKey) {
        // A good key is not a failure: the throttle answers only guesses.
        expect(res.status).toBe(200);
        continue;
      }
      expectEnvelope(res, 429, 'RATE_LIMITED');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(600);
    }
    // Another address is not affected.
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/me', { key: 'svc_test_garbage', headers: from('198.51.100.8') }), 401, 'INVALID_TOKEN');
  });

  it('wrong client secrets for one client id: invalid_client N times, then 429 from any address, even with the right secret', async () => {
    const org = await bootstrap(t.baseUrl);
    const i = await integration(t, org.apiKey);
    const attempt = (secret: string, ip: string) => api(t.baseUrl, 'POST', '/oauth/token', {
      headers: from(ip), body: { grant_type: 'client_credentials', client_id: i.clientId, client_secret: secret, audience: i.audience },
    });
    for (let n = 0; n < FAILURES; n++) {
      const res = await attempt(`wrong-${n}`, `203.0.113.${n + 1}`);
      expect({ status: res.status, error: res.body.error }).toEqual({ status: 401, error: 'invalid_client' });
    }
    const limited = await attempt('wrong-again', '203.0.113.100');
    expect({ status: limited.status, error: limited.body.error }).toEqual({ status: 429, error: 'rate_limited' });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    const right = await attempt(i.clientSecret, '203.0.113.101');
    expect(right.status).toBe(429);
    // Another client id is unaffected (the request comes from an address with no failures).
    const other = await integration(t, (await bootstrap(t.baseUrl)).apiKey);
    expect((await tokenRequest(t, other.clientId, other.clientSecret, other.audience)).status).toBe(200);
  });

  it('wrong client secrets from one address across client ids: 429 once the address has N failures', async () => {
    for (let n = 0; n < FAILURES; n++) {
      const res = await api(t.baseUrl, 'POST', '/oauth/token', { headers: from('192.0.2.44'), body: { grant_type: 'client_credentials', client_id: `cli_test_guess${n}`, client_secret: 'x', audience: 'a' } });
      expect(res.status).toBe(401);
    }
    const res = await api(t.baseUrl, 'POST', '/oauth/token', { headers: from('192.0.2.44'), body: { grant_type: 'client_credentials', client_id: 'cli_test_another', client_secret: 'x', audience: 'a' } });
    expect({ status: res.status, error: res.body.error }).toEqual({ status: 429, error: 'rate_limited' });
  });
});

describe('caps on live credentials per organization', () => {
  it('the key past the cap is 409 LIMIT_EXCEEDED; revoking one frees a slot', async () => {
    const org = await bootstrap(t.baseUrl);
    const created: string[] = [];
    // The bootstrap key is the first live key.
    for (let n = 1; n < MAX_KEYS; n++) {
      const res = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: org.apiKey, body: { name: `k${n}` } });
      expect(res.status).toBe(201);
      created.push(res.body.id);
    }
    const over = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: org.apiKey, body: { name: 'one too many' } });
    expectEnvelope(over, 409, 'LIMIT_EXCEEDED');
    expect(over.body.error.limit).toBe(MAX_KEYS);
    expect((await api(t.baseUrl, 'DELETE', `/v1/api-keys/${created[0]}`, { key: org.apiKey })).status).toBe(200);
    expect((await api(t.baseUrl, 'POST', '/v1/api-keys', { key: org.apiKey, body: { name: 'after revoke' } })).status).toBe(201);
    // Concurrent creations do not overshoot the cap.
    const racing = await Promise.all(Array.from({ length: 4 }, (_, n) => api(t.baseUrl, 'POST', '/v1/api-keys', { key: org.apiKey, body: { name: `race${n}` } })));
    expect(racing.every((r) => r.status === 409)).toBe(true);
    expect((await api(t.baseUrl, 'GET', '/v1/api-keys', { key: org.apiKey })).body.data).toHaveLength(MAX_KEYS);
  });

  it('the integration past the cap is 409 LIMIT_EXCEEDED; revoking one frees a slot', async () => {
    const org = await bootstrap(t.baseUrl);
    const racing = await Promise.all(Array.from({ length: MAX_INTEGRATIONS + 2 }, (_, n) => api(t.baseUrl, 'POST', '/v1/integrations', { key: org.apiKey, body: { name: `i${n}` } })));
    expect(racing.filter((r) => r.status === 201)).toHaveLength(MAX_INTEGRATIONS);
    for (const r of racing.filter((res) => res.status !== 201)) expectEnvelope(r, 409, 'LIMIT_EXCEEDED');
    const first = racing.find((r) => r.status === 201)!.body.id as string;
    expect((await api(t.baseUrl, 'DELETE', `/v1/integrations/${first}`, { key: org.apiKey })).status).toBe(200);
    expect((await api(t.baseUrl, 'POST', '/v1/integrations', { key: org.apiKey, body: { name: 'after revoke' } })).status).toBe(201);
  });
});
