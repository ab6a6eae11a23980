/**
 * Gateway round trips on the embedded default (one process, real PostgreSQL): authenticated reads
 * (`GET /v1/me`: key lookup + organization read), error answers (401 envelope), and sandbox
 * bootstraps (three inserts in one transaction). Bounded: a fixed number of requests.
 *
 *   node bench/gateway.bench.ts [requests=3000] [concurrency=16]
 */
import { startBenchApp, runLoad, writeResults } from './support/bench-app.ts';

const REQUESTS = Number(process.argv[2] ?? 3000);
const CONCURRENCY = Number(process.argv[3] ?? 16);

// One key makes thousands of calls here: lift the per-key rate limit (the limiter still runs).
const bench = await startBenchApp({ env: { EINV_RATE_LIMITS: 'free=100000000' } });
const { base } = bench;
const run = (name: string, count: number, once: () => Promise<Response>, status: number) => runLoad(name, count, CONCURRENCY, once, status);

try {
  const boot = await (await fetch(`${base}/v1/sandbox/bootstrap`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).json() as { apiKey: string };
  const auth = { authorization: `Bearer ${boot.apiKey}` };
  // Warm-up: JIT, connection pools.
  await run('warm-up', 300, () => fetch(`${base}/v1/me`, { headers: auth }), 200);
  const rows = [
    await run('GET /v1/me (key auth)', REQUESTS, () => fetch(`${base}/v1/me`, { headers: auth }), 200),
    await run('GET /v1/me (401 envelope)', REQUESTS, () => fetch(`${base}/v1/me`), 401),
    await run('GET /health/readiness', REQUESTS, () => fetch(`${base}/health/readiness`), 200),
    await run('POST /v1/sandbox/bootstrap', Math.min(REQUESTS, 1000), () => fetch(`${base}/v1/sandbox/bootstrap`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }), 201),
  ];
  writeResults('gateway', { rows });
} finally {
  await bench.stop();
}
