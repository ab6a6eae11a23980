/**
 * Scaled mode in one process: the gateway on one broker, the domain services on another, joined
 * by a real nats-server. Errors raised on the far node reach the client in the same envelope.
 */
import { randomBytes } from 'node:crypto';
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';

let edge: TestApp;
let core: TestApp;

beforeAll(async () => {
  const namespace = `t${randomBytes(4).toString('hex')}`;
  const transporter = { type: 'NATS' as const, options: { url: process.env.EINV_TEST_NATS_URL! } };
  core = await startTestApp({ services: ['tenancy', 'sandbox', 'health'], broker: { namespace, nodeID: 'core-1', transporter } });
  edge = await startTestApp({ services: ['gateway'], databaseUrl: core.databaseUrl, broker: { namespace, nodeID: 'edge-1', transporter } });
  await edge.app.broker.waitForServices(['tenancy', 'sandbox', 'health'], 10_000);
});
afterAll(async () => {
  await edge.stop({ keepDatabase: true });
  await core.stop();
});

it('runs the gateway without a database and serves bootstrap → /v1/me across NATS', async () => {
  expect(edge.app.orm).toBeUndefined();
  const { apiKey, organizationId } = await bootstrap(edge.baseUrl, { label: 'nats' });
  const me = await api(edge.baseUrl, 'GET', '/v1/me', { key: apiKey });
  expect(me.status).toBe(200);
  expect(me.body.organizationId).toBe(organizationId);
  const ready = await api(edge.baseUrl, 'GET', '/health/readiness');
  expect(ready.status).toBe(200);
  expect(ready.body.database.status).toBe('ok');
});

it('formats domain errors raised on the remote node exactly like local ones', async () => {
  const res = await api(edge.baseUrl, 'GET', '/v1/me', { key: 'svc_test_unknown' });
  expectEnvelope(res, 401, 'INVALID_TOKEN');
  expect(res.body.error.message).toBe('The API key is not recognised');
  const { apiKey } = await bootstrap(edge.baseUrl);
  const bad = await api(edge.baseUrl, 'GET', '/v1/companies/comp_nope', { key: apiKey });
  expectEnvelope(bad, 404, 'COMPANY_NOT_FOUND');
});

it('answers 503 UPSTREAM_UNAVAILABLE while the remote services are gone', async () => {
  const { apiKey } = await bootstrap(edge.baseUrl);
  const tenancy = core.app.broker.getLocalService('tenancy')!;
  await core.app.broker.destroyService(tenancy);
  try {
    let res = await api(edge.baseUrl, 'GET', '/v1/me', { key: apiKey });
    for (let i = 0; i < 20 && res.status !== 503; i++) {
      await new Promise((r) => setTimeout(r, 50));
      res = await api(edge.baseUrl, 'GET', '/v1/me', { key: apiKey });
    }
    expectEnvelope(res, 503, 'UPSTREAM_UNAVAILABLE');
  } finally {
    const { SERVICE_CATALOGUE } = await import('../../services/index.ts');
    core.app.broker.createService(SERVICE_CATALOGUE.tenancy!.schema);
    await edge.app.broker.waitForServices(['tenancy'], 10_000);
  }
  expect((await api(edge.baseUrl, 'GET', '/v1/me', { key: apiKey })).status).toBe(200);
});
