/**
 * Idempotency edges that need control over the action's timing and failures, through the real
 * gateway with stand-in operations (`gatewayPublishing`): a request still running answers 409
 * IDEMPOTENCY_IN_PROGRESS to a retry; a server error (5xx) is not stored, so a retry runs again.
 */
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';
import { defineAction, implement, STRICT_REMOVE } from '../../services/shared/contract.ts';
import { SERVICE_CATALOGUE } from '../../services/index.ts';
import { gatewayPublishing } from '../../services/gateway/gateway.service.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';

let releaseSlow: () => void = () => undefined;
let slowRuns = 0;
let flakyRuns = 0;
const response = { type: 'object' };
const slow = defineAction<{ n: number }, { run: number }>('edges', 'slow', {
  params: { ...STRICT_REMOVE, n: { type: 'number' } },
  http: { method: 'POST', path: '/v1/edges/slow', access: 'authenticated', tag: 'Test', summary: 'waits until released', response },
});
const flaky = defineAction<{ n: number }, { run: number }>('edges', 'flaky', {
  params: { ...STRICT_REMOVE, n: { type: 'number' } },
  http: { method: 'POST', path: '/v1/edges/flaky', access: 'authenticated', tag: 'Test', summary: 'fails on its first run', response },
});
const EdgesService = {
  name: 'edges',
  actions: {
    slow: implement(slow, async () => {
      slowRuns++;
      await new Promise<void>((r) => { releaseSlow = r; });
      return { run: slowRuns };
    }),
    flaky: implement(flaky, async () => {
      if (++flakyRuns === 1) throw new Error('boom');
      return { run: flakyRuns };
    }),
  },
};

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({
    services: Object.keys(SERVICE_CATALOGUE).filter((name) => name !== 'gateway'),
    extraServices: [gatewayPublishing([slow, flaky]), EdgesService],
  });
});
afterAll(async () => { await t.stop(); });

it('answers 409 IDEMPOTENCY_IN_PROGRESS while the first request runs, then replays its answer', async () => {
  const { apiKey } = await bootstrap(t.baseUrl);
  const headers = { 'idempotency-key': 'slow-1' };
  const first = api(t.baseUrl, 'POST', '/v1/edges/slow', { key: apiKey, headers, body: { n: 1 } });
  while (slowRuns === 0) await new Promise((r) => setTimeout(r, 10));
  const during = await api(t.baseUrl, 'POST', '/v1/edges/slow', { key: apiKey, headers, body: { n: 1 } });
  expectEnvelope(during, 409, 'IDEMPOTENCY_IN_PROGRESS');
  expect(during.headers.get('retry-after')).toBe('1');
  // A different body is a mismatch even while the first runs.
  expectEnvelope(await api(t.baseUrl, 'POST', '/v1/edges/slow', { key: apiKey, headers, body: { n: 2 } }), 409, 'IDEMPOTENCY_BODY_MISMATCH');
  releaseSlow();
  const done = await first;
  expect(done.status).toBe(200);
  const after = await api(t.baseUrl, 'POST', '/v1/edges/slow', { key: apiKey, headers, body: { n: 1 } });
  expect(after.text).toBe(done.text);
  expect(after.headers.get('idempotent-replayed')).toBe('true');
  expect(slowRuns).toBe(1);
});

it('does not store a server error: the same key runs again and its success is what is replayed', async () => {
  const { apiKey } = await bootstrap(t.baseUrl);
  const headers = { 'idempotency-key': 'flaky-1' };
  expectEnvelope(await api(t.baseUrl, 'POST', '/v1/edges/flaky', { key: apiKey, headers, body: { n: 1 } }), 500, 'INTERNAL_ERROR');
  const retry = await api(t.baseUrl, 'POST', '/v1/edges/flaky', { key: apiKey, headers, body: { n: 1 } });
  expect(retry.status).toBe(200);
  expect(retry.body).toEqual({ run: 2 });
  const replay = await api(t.baseUrl, 'POST', '/v1/edges/flaky', { key: apiKey, headers, body: { n: 1 } });
  expect(replay.text).toBe(retry.text);
  expect(flakyRuns).toBe(2);
});
