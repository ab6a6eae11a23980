/** With REDIS_URL pointing at a Redis that does not answer, the gateway serves uncounted (fail open). */
import { startTestApp, api, bootstrap, type TestApp } from '../support/app.ts';
import { freePort } from '../support/servers.ts';

let t: TestApp;
beforeAll(async () => {
  process.env.REDIS_URL = `redis://127.0.0.1:${await freePort()}`;
  process.env.MOL_LOG_LEVEL = 'error';
  t = await startTestApp({ broker: { logLevel: 'error' } });
});
afterAll(async () => { await t.stop(); });

it('answers authenticated calls without rate headers instead of failing them', async () => {
  const { apiKey } = await bootstrap(t.baseUrl);
  const started = Date.now();
  const me = await api(t.baseUrl, 'GET', '/v1/me', { key: apiKey });
  expect(me.status).toBe(200);
  expect(me.headers.get('ratelimit-limit')).toBeNull();
  expect(Date.now() - started).toBeLessThan(5000);
});
