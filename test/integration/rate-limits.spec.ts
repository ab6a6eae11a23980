/**
 * Per-credential rate limits on a real redis-server: the plan's limit in a 60-second sliding
 * window, the spec's headers on every answer (errors included), 429 RATE_LIMITED with Retry-After,
 * one window shared by two gateway replicas, and the sandbox's forced exhaustion.
 */
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';

process.env.REDIS_URL = process.env.EINV_TEST_REDIS_URL;
process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';

let t: TestApp;
beforeAll(async () => { t = await startTestApp(); });
afterAll(async () => { await t.stop(); });

/** Waits until an instant (ISO) is past, plus a margin. */
async function untilPast(iso: string) {
  await new Promise((r) => setTimeout(r, Math.max(0, new Date(iso).getTime() - Date.now()) + 150));
}

function expectRateHeaders(res: { headers: Headers }, limit: number, remaining: number) {
  expect(res.headers.get('ratelimit-limit')).toBe(String(limit));
  expect(res.headers.get('ratelimit-remaining')).toBe(String(remaining));
  expect(res.headers.get('ratelimit-policy')).toBe(`${limit};w=60`);
  expect(res.headers.get('x-ratelimit-limit')).toBe(String(limit));
  expect(res.headers.get('x-ratelimit-remaining')).toBe(String(remaining));
  const reset = Number(res.headers.get('ratelimit-reset'));
  expect(reset).toBeGreaterThanOrEqual(0);
  expect(reset).toBeLessThanOrEqual(60);
  const unixReset = Number(res.headers.get('x-ratelimit-reset'));
  expect(unixReset).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000) - 1);
  expect(unixReset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 61);
}

describe('rate limits per credential (Redis store)', () => {
  it('counts down the free plan (60/min) on every answer, errors included, then 429 RATE_LIMITED with Retry-After', async () => {
    const { apiKey } = await bootstrap(t.baseUrl);
    const first = await api(t.baseUrl, 'GET', '/v1/me', { key: apiKey });
    expect(first.status).toBe(200);
    expectRateHeaders(first, 60, 59);
    // Errors carry the headers too: a 404, a 400 and a 403 each count.
    const notFound = await api(t.baseUrl, 'GET', '/v1/companies/comp_unknown', { key: apiKey });
    expectEnvelope(notFound, 404, 'COMPANY_NOT_FOUND');
    expectRateHeaders(notFound, 60, 58);
    const invalid = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: apiKey, body: { name: 'x', keyType: 'root' } });
    expect(invalid.status).toBe(400);
    expectRateHeaders(invalid, 60, 57);
    for (let i = 0; i < 57; i++) expect((await api(t.baseUrl, 'GET', '/v1/me', { key: apiKey })).status).toBe(200);
    const limited = await api(t.baseUrl, 'GET', '/v1/me', { key: apiKey });
    expectEnvelope(limited, 429, 'RATE_LIMITED');
    expect(limited.body.error.type).toBe('rate_limit_error');
    expectRateHeaders(limited, 60, 0);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Refused requests do not take a slot: the window still holds 60.
    expect((await api(t.baseUrl, 'GET', '/v1/me', { key: apiKey })).status).toBe(429);
  });

  it('keeps one window per key: another key of the same organization has its own', async () => {
    const { apiKey } = await bootstrap(t.baseUrl);
    const created = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: apiKey, body: { name: 'second' } });
    expect(created.status).toBe(201);
    await Promise.all(Array.from({ length: 60 }, () => api(t.baseUrl, 'GET', '/v1/me', { key: apiKey })));
    expect((await api(t.baseUrl, 'GET', '/v1/me', { key: apiKey })).status).toBe(429);
    const other = await api(t.baseUrl, 'GET', '/v1/me', { key: created.body.key });
    expect(other.status).toBe(200);
    expectRateHeaders(other, 60, 59);
  });

  it('applies the organization plan: platform 600, white-label 1,200 per minute', async () => {
    const platform = await bootstrap(t.baseUrl, { keyType: 'platform' });
    expectRateHeaders(await api(t.baseUrl, 'GET', '/v1/me', { key: platform.apiKey }), 600, 599);
    const wl = await bootstrap(t.baseUrl, { keyType: 'white_label' });
    expectRateHeaders(await api(t.baseUrl, 'GET', '/v1/me', { key: wl.apiKey }), 1200, 1199);
  });

  it('admits exactly the limit under concurrency, and two gateway replicas share one window', async () => {
    const second = await startTestApp({ databaseUrl: t.databaseUrl });
    try {
      const { apiKey } = await bootstrap(t.baseUrl);
      const statuses = await Promise.all(Array.from({ length: 90 }, (_, i) => api(i % 2 ? second.baseUrl : t.baseUrl, 'GET', '/v1/me', { key: apiKey }).then((r) => r.status)));
      expect(statuses.filter((s) => s === 200)).toHaveLength(60);
      expect(statuses.filter((s) => s === 429)).toHaveLength(30);
    } finally {
      await second.stop({ keepDatabase: true });
    }
  });
});

describe('sandbox: POST /v1/sandbox/rate-limit/exhaust', () => {
  it('refuses every request of the organization for the duration, whatever the key, then recovers', async () => {
    const { apiKey } = await bootstrap(t.baseUrl);
    const other = (await api(t.baseUrl, 'POST', '/v1/api-keys', { key: apiKey, body: { name: 'other' } })).body.key as string;
    const res = await api(t.baseUrl, 'POST', '/v1/sandbox/rate-limit/exhaust', { key: apiKey, body: { durationSeconds: 4 } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ durationSeconds: 4, organizationId: expect.stringMatching(/^org_/) });
    for (const key of [apiKey, other]) {
      const limited = await api(t.baseUrl, 'GET', '/v1/me', { key });
      expectEnvelope(limited, 429, 'RATE_LIMITED');
      expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(4);
      expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    }
    // Another organization is not affected.
    expect((await api(t.baseUrl, 'GET', '/v1/me', { key: (await bootstrap(t.baseUrl)).apiKey })).status).toBe(200);
    await untilPast(res.body.exhaustedUntil);
    expect((await api(t.baseUrl, 'GET', '/v1/me', { key: apiKey })).status).toBe(200);
  });

  it('defaults to 60 seconds and checks the range 1..3600', async () => {
    const { apiKey } = await bootstrap(t.baseUrl);
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/sandbox/rate-limit/exhaust', { key: apiKey, body: { durationSeconds: 0 } }), 400, 'INVALID_REQUEST');
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/sandbox/rate-limit/exhaust', { key: apiKey, body: { durationSeconds: 3601 } }), 400, 'INVALID_REQUEST');
    const res = await api(t.baseUrl, 'POST', '/v1/sandbox/rate-limit/exhaust', { key: apiKey, body: {} });
    expect(res.body.durationSeconds).toBe(60);
    const limited = await api(t.baseUrl, 'GET', '/v1/me', { key: apiKey });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(55);
  });
});
