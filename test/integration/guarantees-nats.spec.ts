/**
 * The gateway's guarantees in scaled mode: the gateway alone on one broker (no database, Redis
 * for the limiter), every domain service on another, joined by a real nats-server. Idempotency
 * claims and stored answers, the request log and its call trace all cross NATS.
 */
import { randomBytes } from 'node:crypto';
import { startTestApp, api, bootstrap, type TestApp } from '../support/app.ts';
import { defineAction, implement, STRICT_REMOVE } from '../../services/shared/contract.ts';
import { principalOf } from '../../services/shared/auth.ts';
import { call } from '../../services/shared/call.ts';
import { gatewayPublishing } from '../../services/gateway/gateway.service.ts';
import { organizationPlan } from '../../services/limits/limits.contract.ts';

process.env.REDIS_URL = process.env.EINV_TEST_REDIS_URL;
process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';

let runs = 0;
const work = defineAction<{ n: number }, { run: number; plan: string }>('farwork', 'work', {
  params: { ...STRICT_REMOVE, n: { type: 'number' } },
  http: { method: 'POST', path: '/v1/far/work', access: 'authenticated', tag: 'Test', summary: 'runs on the far node and calls another service there', response: { type: 'object' } },
});
const FarService = {
  name: 'farwork',
  actions: {
    work: implement(work, async (ctx) => {
      runs++;
      const { plan } = await call(ctx, organizationPlan, { organizationId: principalOf(ctx).organizationId });
      return { run: runs, plan };
    }),
  },
};

let edge: TestApp;
let core: TestApp;
beforeAll(async () => {
  const namespace = `g${randomBytes(4).toString('hex')}`;
  const transporter = { type: 'NATS' as const, options: { url: process.env.EINV_TEST_NATS_URL! } };
  const domain = ['tenancy', 'sandbox', 'health', 'limits', 'idempotency', 'requests'];
  core = await startTestApp({ services: domain, extraServices: [FarService], broker: { namespace, nodeID: 'core-g', transporter } });
  edge = await startTestApp({ services: [], extraServices: [gatewayPublishing([work])], databaseUrl: core.databaseUrl, broker: { namespace, nodeID: 'edge-g', transporter } });
  await edge.app.broker.waitForServices([...domain, 'farwork'], 10_000);
});
afterAll(async () => {
  await edge.stop({ keepDatabase: true });
  await core.stop();
});

it('replays an Idempotency-Key, logs the request and traces the far calls, across NATS', async () => {
  expect(edge.app.orm).toBeUndefined();
  const { apiKey } = await bootstrap(edge.baseUrl);
  const headers = { 'idempotency-key': 'far-1' };
  const first = await api(edge.baseUrl, 'POST', '/v1/far/work', { key: apiKey, headers, body: { n: 1 } });
  expect(first.status).toBe(200);
  expect(first.body).toEqual({ run: 1, plan: 'free' });
  expect(first.headers.get('ratelimit-limit')).toBe('60');
  const replay = await api(edge.baseUrl, 'POST', '/v1/far/work', { key: apiKey, headers, body: { n: 1 } });
  expect(replay.text).toBe(first.text);
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  expect(runs).toBe(1);

  const gateway = edge.app.broker.getLocalService('gateway') as unknown as { guarantees: { log: { flush(): Promise<void> } } };
  await gateway.guarantees.log.flush();
  const trace = await api(edge.baseUrl, 'GET', `/v1/requests/${first.headers.get('x-request-id')}`, { key: apiKey });
  expect(trace.status).toBe(200);
  expect(trace.body).toMatchObject({ status: 200, idempotencyKey: 'far-1', replayed: false });
  expect(trace.body.upstreamCalls).toEqual([
    { action: 'farwork.work', durationMs: expect.any(Number), level: 1 },
    { action: 'limits.organizationPlan', durationMs: expect.any(Number), level: 2 },
    // Plans are tenancy's: limits asks it rather than reading its table.
    { action: 'tenancy.organizationProfile', durationMs: expect.any(Number), level: 3 },
  ]);
  const list = await api(edge.baseUrl, 'GET', '/v1/requests', { key: apiKey });
  expect(list.body.data.map((r: { id: string; replayed?: boolean }) => r.id)).toEqual([replay.headers.get('x-request-id'), first.headers.get('x-request-id')]);
});
