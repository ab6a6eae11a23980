/**
 * "Every bad input gets a clear error, never a 500": every published route, fed random JSON bodies
 * and query strings (fast-check), with a valid key, answers below 500 (health may say 503
 * degraded by design) and every error comes in the envelope.
 */
import fc from 'fast-check';
import { startTestApp, api, bootstrap, type TestApp } from '../support/app.ts';
import { HTTP_CONTRACTS } from '../../services/gateway/routes.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '100000';

let t: TestApp;
let key: string;
let companyId: string;
beforeAll(async () => {
  t = await startTestApp();
  const boot = await bootstrap(t.baseUrl);
  key = boot.apiKey;
  companyId = boot.company.id;
});
afterAll(async () => { await t.stop(); });

const jsonValue = fc.jsonValue({ maxDepth: 3 });
const body = fc.oneof(fc.dictionary(fc.string({ maxLength: 12 }), jsonValue, { maxKeys: 6 }), jsonValue);
const query = fc.dictionary(fc.constantFrom('limit', 'cursor', 'type', 'status', 'since', 'until', 'by', 'bucket', 'x'), fc.string({ maxLength: 20 }), { maxKeys: 4 });
const segment = fc.oneof(fc.constant('x'), fc.string({ minLength: 1, maxLength: 20 }));

// Routes whose answers are 503 by design when a dependency is degraded.
const MAY_BE_503 = new Set(['/health/readiness', '/health/contracts']);

it('answers every route with random input below 500, in the error envelope when it refuses', async () => {
  for (const contract of HTTP_CONTRACTS) {
    const { method, path } = contract.http!;
    await fc.assert(
      fc.asyncProperty(body, query, segment, async (payload, q, seg) => {
        const url = path.replace(/:(\w+)/g, () => encodeURIComponent(seg)) + (Object.keys(q).length ? `?${new URLSearchParams(q)}` : '');
        const sendsBody = method !== 'GET' && method !== 'DELETE';
        const res = await api(t.baseUrl, method, url, { key, headers: { 'x-service-company': companyId }, ...(sendsBody ? { body: payload } : {}) });
        const acceptable = res.status < 500 || (res.status === 503 && MAY_BE_503.has(path));
        if (!acceptable) throw new Error(`${method} ${url} → ${res.status} ${res.text.slice(0, 300)}`);
        if (res.status >= 400 && !MAY_BE_503.has(path) && !path.startsWith('/oauth/')) {
          expect(res.body?.error?.requestId).toBe(res.headers.get('x-request-id'));
        }
      }),
      { numRuns: 12, seed: 20261122 },
    );
  }
}, 120_000);
