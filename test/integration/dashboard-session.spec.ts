/**
 * The dashboard's sign-in (POST /v1/sessions) against the real app: an API key becomes a 30-minute
 * session token that acts exactly as the key (same principal, same limits), cannot be read back into
 * the key, dies with the key, and cannot be altered or extended; and the gateway serves the built
 * dashboard at /app with its CSP and caching.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';
import { buildDashboard } from '../../scripts/build-app.ts';
import { DASHBOARD_DIST } from '../../services/gateway/dashboard-assets.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';

let t: TestApp;
beforeAll(async () => {
  if (!existsSync(join(DASHBOARD_DIST, 'index.html'))) await buildDashboard();
  t = await startTestApp();
});
afterAll(async () => { await t.stop(); });

const session = async (key: string) => api(t.baseUrl, 'POST', '/v1/sessions', { key });

it('exchanges an API key for a session token that acts as that key and never contains it in clear', async () => {
  const org = await bootstrap(t.baseUrl, { label: 'dash' });
  const res = await session(org.apiKey);
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ tokenType: 'Bearer', expiresIn: 1800 });
  expect(res.body.token).toMatch(/^ses_[A-Za-z0-9_-]+\.\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  expect(Date.parse(res.body.expiresAt) - Date.now()).toBeGreaterThan(1_790_000);
  // Sealed, not encoded: neither the key nor its secret part shows through.
  const opaque = Buffer.from(res.body.token.slice(4).replace(/\./g, ''), 'base64url').toString('latin1');
  expect(res.body.token + opaque).not.toContain(org.apiKey.slice(9));

  const byKey = await api(t.baseUrl, 'GET', '/v1/me', { key: org.apiKey });
  const bySession = await api(t.baseUrl, 'GET', '/v1/me', { key: res.body.token });
  expect(bySession.status).toBe(200);
  expect(bySession.body).toEqual(byKey.body);
  expect((await api(t.baseUrl, 'GET', '/v1/documents', { key: res.body.token })).status).toBe(200);
});

it('refuses to seal anything but an API key, an altered token, and a token of a revoked key', async () => {
  const org = await bootstrap(t.baseUrl, { label: 'dash', keyType: 'platform' });
  const { token } = (await session(org.apiKey)).body;
  // A session cannot mint a longer one.
  expectEnvelope(await session(token), 401, 'INVALID_TOKEN');
  // One changed character anywhere: not ours. The last one only changes bits no byte uses (the tag's
  // last 4), so it tells whether the token must be spelled as issued; the middle one changes the ciphertext.
  const swapped = (c: string) => (c === 'A' ? 'B' : 'A');
  expectEnvelope(await api(t.baseUrl, 'GET', '/v1/me', { key: token.slice(0, -1) + swapped(token.at(-1)!) }), 401, 'INVALID_TOKEN');
  const middle = token.lastIndexOf('.') - 3;
  expectEnvelope(await api(t.baseUrl, 'GET', '/v1/me', { key: token.slice(0, middle) + swapped(token[middle]!) + token.slice(middle + 1) }), 401, 'INVALID_TOKEN');
  expectEnvelope(await api(t.baseUrl, 'GET', '/v1/me', { key: 'ses_not-a-token' }), 401, 'INVALID_TOKEN');

  // A second key of the organization, its session, then the key revoked: the session stops at once.
  const second = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: org.apiKey, body: { name: 'short-lived', keyType: 'platform' } });
  expect(second.status).toBe(201);
  const secondSession = (await session(second.body.key)).body.token;
  expect((await api(t.baseUrl, 'GET', '/v1/me', { key: secondSession })).status).toBe(200);
  expect((await api(t.baseUrl, 'DELETE', `/v1/api-keys/${second.body.id}`, { key: org.apiKey })).status).toBe(200);
  const after = await api(t.baseUrl, 'GET', '/v1/me', { key: secondSession });
  expect(after.status).toBe(401);
  expect(['REVOKED_KEY', 'INVALID_TOKEN']).toContain(after.body.error.code);
});

it('serves the dashboard at /app: the page with a CSP and no-cache, hashed assets cached as immutable, nothing else', async () => {
  const page = await fetch(`${t.baseUrl}/app/`);
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(page.headers.get('cache-control')).toBe('no-cache');
  const csp = page.headers.get('content-security-policy') ?? '';
  expect(csp).toContain("script-src 'self'");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).not.toContain('unsafe-inline');
  const html = await page.text();
  const script = /src="\/app\/(main-[A-Z0-9]+\.js)"/.exec(html)?.[1];
  const style = /href="\/app\/(main-[A-Z0-9]+\.css)"/.exec(html)?.[1];
  expect(script && style).toBeTruthy();
  expect(html).not.toMatch(/<script>|https?:\/\//);
  const asset = await fetch(`${t.baseUrl}/app/${script}`);
  expect(asset.status).toBe(200);
  expect(asset.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
  expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  expect((await fetch(`${t.baseUrl}/app/${style}`)).headers.get('content-type')).toBe('text/css; charset=utf-8');
  for (const path of ['/app/..%2Fpackage.json', '/app/.gitignore', '/app/index.html.bak', '/app/nope.js']) expect((await fetch(`${t.baseUrl}${path}`)).status).toBe(404);
  expect((await fetch(`${t.baseUrl}/app/${script}`, { method: 'POST' })).status).toBeGreaterThanOrEqual(400);
});
