/**
 * The deprecation mechanism through the real gateway. No operation of the API is deprecated today,
 * so this test publishes one of its own through `gatewayPublishing` (the gateway with extra
 * contracts; the application never adds any) next to every real service.
 */
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';
import { defineAction, implement, STRICT_REMOVE } from '../../services/shared/contract.ts';
import { principalOf } from '../../services/shared/auth.ts';
import { DomainError } from '../../services/shared/errors.ts';
import { SERVICE_CATALOGUE } from '../../services/index.ts';
import { gatewayPublishing } from '../../services/gateway/gateway.service.ts';

const LINK = 'https://docs.example.test/changelog#legacy-ping';
const legacyPing = defineAction<{ fail?: string }, { pong: true; organizationId: string }>('legacy', 'ping', {
  params: { ...STRICT_REMOVE, fail: { type: 'string', optional: true } },
  http: {
    method: 'GET', path: '/v1/legacy/ping', access: 'authenticated', tag: 'Legacy', summary: 'Old ping, replaced by /v1/me',
    deprecated: { sunset: '2027-06-30', link: LINK },
    response: { type: 'object', properties: { pong: { const: true }, organizationId: { type: 'string' } } },
  },
});
const LegacyService = {
  name: 'legacy',
  actions: {
    ping: implement(legacyPing, async (ctx) => {
      if (ctx.params.fail) throw new DomainError('INVALID_REQUEST', 'asked to fail');
      return { pong: true as const, organizationId: principalOf(ctx).organizationId };
    }),
  },
};

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({
    services: Object.keys(SERVICE_CATALOGUE).filter((name) => name !== 'gateway'),
    extraServices: [gatewayPublishing([legacyPing]), LegacyService],
  });
});
afterAll(async () => { await t.stop(); });

it('a deprecated operation answers with Deprecation, Sunset and Link rel=deprecation, errors included', async () => {
  const org = await bootstrap(t.baseUrl);
  const ok = await api(t.baseUrl, 'GET', '/v1/legacy/ping', { key: org.apiKey });
  expect(ok.status).toBe(200);
  expect(ok.body).toEqual({ pong: true, organizationId: org.organizationId });
  expect(ok.headers.get('deprecation')).toBe('true');
  expect(ok.headers.get('sunset')).toBe('Wed, 30 Jun 2027 00:00:00 GMT');
  expect(ok.headers.get('link')).toBe(`<${LINK}>; rel="deprecation"`);

  const failed = await api(t.baseUrl, 'GET', '/v1/legacy/ping?fail=yes', { key: org.apiKey });
  expectEnvelope(failed, 400, 'INVALID_REQUEST');
  expect(failed.headers.get('deprecation')).toBe('true');
  expect(failed.headers.get('sunset')).toBe('Wed, 30 Jun 2027 00:00:00 GMT');

  const current = await api(t.baseUrl, 'GET', '/v1/me', { key: org.apiKey });
  expect(current.status).toBe(200);
  expect(current.headers.get('deprecation')).toBeNull();
  expect(current.headers.get('sunset')).toBeNull();
});

it('is flagged deprecated: true in the served OpenAPI document, and no other operation is', async () => {
  const doc = (await api(t.baseUrl, 'GET', '/v1/openapi.json')).body as { paths: Record<string, Record<string, { deprecated?: boolean }>> };
  const flagged = Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).filter(([, op]) => op.deprecated).map(([m]) => `${m.toUpperCase()} ${path}`));
  expect(flagged).toEqual(['GET /v1/legacy/ping']);
  expect(doc.paths['/v1/legacy/ping']!.get).toMatchObject({ deprecated: true, 'x-sunset': '2027-06-30' });
});
