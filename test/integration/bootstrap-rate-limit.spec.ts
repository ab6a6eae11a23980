/** Sandbox bootstrap is throttled per client IP, more strictly than the API. */
import { startTestApp, api, expectEnvelope, type TestApp } from '../support/app.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '3';

let t: TestApp;
beforeAll(async () => { t = await startTestApp({ services: ['gateway', 'tenancy', 'sandbox'] }); });
afterAll(async () => { await t.stop(); });

it('allows the configured number of bootstraps per IP per hour, then 429 RATE_LIMITED with Retry-After', async () => {
  for (let i = 0; i < 3; i++) expect((await api(t.baseUrl, 'POST', '/v1/sandbox/bootstrap', { body: {} })).status).toBe(201);
  const limited = await api(t.baseUrl, 'POST', '/v1/sandbox/bootstrap', { body: {} });
  expectEnvelope(limited, 429, 'RATE_LIMITED');
  expect(limited.body.error.type).toBe('rate_limit_error');
  const retryAfter = Number(limited.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThan(3500);
  expect(retryAfter).toBeLessThanOrEqual(3600);
  // Only the public bootstrap is throttled this way.
  expect((await api(t.baseUrl, 'GET', '/v1/openapi.json')).status).toBe(200);
});
