/**
 * A client's request runs its action once. When the action outlives the broker's request timeout
 * the client gets 504 UPSTREAM_TIMEOUT (and retries with its Idempotency-Key if it wants); the
 * gateway never re-runs the action behind its back while the first run may still land.
 */
import type { ServiceSchema } from 'moleculer';
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';
import { defineAction, implement, STRICT_REMOVE } from '../../services/shared/contract.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
// The gateway gives up on a request's action after 300 ms (the action takes 900).
process.env.EINV_REQUEST_TIMEOUT_MS = '300';

let runs = 0;
const slow = defineAction<{ n: number }, { run: number }>('slowwork', 'work', {
  params: { ...STRICT_REMOVE, n: 'number' },
  http: { method: 'POST', path: '/v1/slow/work', access: 'authenticated', tag: 'Test', summary: 'takes longer than the request timeout', response: { type: 'object', properties: { run: { type: 'integer' } } } },
});
const SlowService: ServiceSchema = {
  name: 'slowwork',
  actions: {
    work: implement(slow, async () => {
      const run = ++runs;
      await new Promise((resolve) => setTimeout(resolve, 900));
      return { run };
    }),
  },
};

let t: TestApp;
beforeAll(async () => {
  // Imported only now, so the gateway reads the timeout set above.
  const { gatewayPublishing } = await import('../../services/gateway/gateway.service.ts');
  t = await startTestApp({ services: ['tenancy', 'sandbox', 'limits', 'idempotency', 'requests'], extraServices: [gatewayPublishing([slow]), SlowService] });
});
afterAll(async () => { await t.stop(); delete process.env.EINV_REQUEST_TIMEOUT_MS; });

it('answers 504 once the timeout passes, and the action ran exactly once', async () => {
  const { apiKey } = await bootstrap(t.baseUrl);
  const res = await api(t.baseUrl, 'POST', '/v1/slow/work', { key: apiKey, body: { n: 1 } });
  expectEnvelope(res, 504, 'UPSTREAM_TIMEOUT');
  // Long enough for any retry the broker would have made to have started and finished.
  await new Promise((resolve) => setTimeout(resolve, 2_500));
  expect(runs).toBe(1);
});
