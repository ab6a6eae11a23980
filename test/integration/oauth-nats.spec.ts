/**
 * Machine tokens in scaled mode: the gateway on one broker without a database, identity and
 * tenancy on another, joined by a real nats-server. The gateway verifies built-in tokens with the
 * JWKS it fetches over the broker, and the Principal (organizations, role) crosses NATS.
 */
import { randomBytes } from 'node:crypto';
import { decodeProtectedHeader } from 'jose';
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';
import { rotateSigningKey } from '../../services/identity/identity.contract.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
delete process.env.EINV_JWT_JWKS_URL;
delete process.env.EINV_JWT_ISSUER;
const AUDIENCE = 'einvoicing-nats-test';
process.env.EINV_JWT_AUDIENCE = AUDIENCE;

let edge: TestApp;
let core: TestApp;

beforeAll(async () => {
  const namespace = `t${randomBytes(4).toString('hex')}`;
  const transporter = { type: 'NATS' as const, options: { url: process.env.EINV_TEST_NATS_URL! } };
  core = await startTestApp({ services: ['tenancy', 'sandbox', 'health', 'identity'], broker: { namespace, nodeID: 'core-1', transporter } });
  edge = await startTestApp({ services: ['gateway'], databaseUrl: core.databaseUrl, broker: { namespace, nodeID: 'edge-1', transporter } });
  await edge.app.broker.waitForServices(['tenancy', 'sandbox', 'health', 'identity'], 10_000);
});
afterAll(async () => {
  await edge.stop({ keepDatabase: true });
  await core.stop();
});

it('issues, verifies and resolves machine tokens across NATS, and follows a rotation made on the far node', async () => {
  expect(edge.app.orm).toBeUndefined();
  const org = await bootstrap(edge.baseUrl, { label: 'nats' });
  const created = await api(edge.baseUrl, 'POST', '/v1/integrations', { key: org.apiKey, body: { name: 'remote', role: 'member' } });
  expect(created.status).toBe(201);
  const body = { grant_type: 'client_credentials', client_id: created.body.clientId, client_secret: created.body.clientSecret, audience: AUDIENCE };
  const first = (await api(edge.baseUrl, 'POST', '/oauth/token', { body })).body.access_token as string;
  const headers = { 'x-service-organization-id': org.organizationId };

  const me = await api(edge.baseUrl, 'GET', '/v1/me', { key: first, headers });
  expect(me.status).toBe(200);
  expect(me.body).toMatchObject({ authMethod: 'client_credentials', organizationId: org.organizationId, organizationIds: [org.organizationId], isTestMode: true });
  expect(me.body.scopes).not.toContain('platform');
  expectEnvelope(await api(edge.baseUrl, 'GET', '/v1/integrations', { key: first, headers }), 403, 'INSUFFICIENT_SCOPE');
  expect((await api(edge.baseUrl, 'POST', '/oauth/token', { body: { ...body, audience: 'elsewhere' } })).body.error).toBe('access_denied');

  const rotation = await core.app.broker.call(rotateSigningKey.action, {}) as { kid: string };
  const second = (await api(edge.baseUrl, 'POST', '/oauth/token', { body })).body.access_token as string;
  expect(decodeProtectedHeader(second).kid).toBe(rotation.kid);
  await new Promise((r) => setTimeout(r, 1_100));
  expect((await api(edge.baseUrl, 'GET', '/v1/me', { key: second, headers })).status).toBe(200);
  expect((await api(edge.baseUrl, 'GET', '/v1/me', { key: first, headers })).status).toBe(200);
});
