/**
 * Scaled mode in one process: the gateway on one broker, the domain services on another, joined
 * by a real nats-server. Errors raised on the far node reach the client in the same envelope.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';

let edge: TestApp;
let edge2: TestApp;
let core: TestApp;

beforeAll(async () => {
  const namespace = `t${randomBytes(4).toString('hex')}`;
  const transporter = { type: 'NATS' as const, options: { url: process.env.EINV_TEST_NATS_URL! } };
  core = await startTestApp({ services: ['tenancy', 'sandbox', 'health'], broker: { namespace, nodeID: 'core-1', transporter } });
  edge = await startTestApp({ services: ['gateway'], databaseUrl: core.databaseUrl, broker: { namespace, nodeID: 'edge-1', transporter } });
  edge2 = await startTestApp({ services: ['gateway'], databaseUrl: core.databaseUrl, broker: { namespace, nodeID: 'edge-2', transporter } });
  await edge.app.broker.waitForServices(['tenancy', 'sandbox', 'health'], 10_000);
  await edge2.app.broker.waitForServices(['tenancy', 'sandbox', 'health'], 10_000);
});
afterAll(async () => {
  await edge2.stop({ keepDatabase: true });
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

describe('API-key principals kept a moment by each gateway', () => {
  const ttlMs = 1_000;
  const principalsOf = (app: TestApp) => (app.app.broker.getLocalService('gateway') as unknown as { principals: { size: number } }).principals;

  it('a key revoked through one gateway is refused at once by another that had kept it', async () => {
    const { apiKey } = await bootstrap(edge.baseUrl, { label: 'revoke-across' });
    const extra = await api(edge.baseUrl, 'POST', '/v1/api-keys', { key: apiKey, body: { name: 'to revoke' } });
    expect(extra.status).toBe(201);
    // edge-2 resolves it once and keeps the principal.
    expect((await api(edge2.baseUrl, 'GET', '/v1/me', { key: extra.body.key })).status).toBe(200);
    expect(principalsOf(edge2).size).toBeGreaterThan(0);
    const revoked = await api(edge.baseUrl, 'DELETE', `/v1/api-keys/${extra.body.id}`, { key: apiKey });
    expect(revoked.status).toBe(200);
    // The broadcast crosses NATS in milliseconds; well inside the TTL, which would also bound it.
    const deadline = Date.now() + ttlMs / 2;
    let res = await api(edge2.baseUrl, 'GET', '/v1/me', { key: extra.body.key });
    while (res.status === 200 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
      res = await api(edge2.baseUrl, 'GET', '/v1/me', { key: extra.body.key });
    }
    expectEnvelope(res, 401, 'REVOKED_KEY');
  });

  it('a revocation whose broadcast never arrives is refused within the TTL anyway', async () => {
    const { apiKey } = await bootstrap(edge.baseUrl, { label: 'revoke-silent' });
    const extra = await api(edge.baseUrl, 'POST', '/v1/api-keys', { key: apiKey, body: { name: 'silently revoked' } });
    expect((await api(edge2.baseUrl, 'GET', '/v1/me', { key: extra.body.key })).status).toBe(200);
    // Revoked behind the service's back: no broadcast, as if it had been lost.
    const client = new pg.Client({ connectionString: core.databaseUrl });
    await client.connect();
    try { await client.query('update api_keys set revoked_at = now() where id = $1', [extra.body.id]); } finally { await client.end(); }
    const revokedAt = Date.now();
    // Still the kept principal right after (the cache is what answers)…
    expect((await api(edge2.baseUrl, 'GET', '/v1/me', { key: extra.body.key })).status).toBe(200);
    // …and refused once it has lived its TTL.
    let res = await api(edge2.baseUrl, 'GET', '/v1/me', { key: extra.body.key });
    while (res.status === 200 && Date.now() - revokedAt < ttlMs + 500) {
      await new Promise((r) => setTimeout(r, 50));
      res = await api(edge2.baseUrl, 'GET', '/v1/me', { key: extra.body.key });
    }
    expectEnvelope(res, 401, 'REVOKED_KEY');
    expect(Date.now() - revokedAt).toBeLessThan(ttlMs + 500);
  });
});
