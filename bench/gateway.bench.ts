/**
 * Gateway round trips on the embedded default (one process, real PostgreSQL): authenticated reads
 * (`GET /v1/me`: key lookup + organization read), error answers (401 envelope), and sandbox
 * bootstraps (three inserts in one transaction). Bounded: a fixed number of requests.
 *
 *   node bench/gateway.bench.ts [requests=3000] [concurrency=16]
 */
import { mkdirSync, mkdtempSync, chmodSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';

const REQUESTS = Number(process.argv[2] ?? 3000);
const CONCURRENCY = Number(process.argv[3] ?? 16);

process.env.PORT = '0';
process.env.HOST = '127.0.0.1';
process.env.MOL_LOG_LEVEL = 'warn';
process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000000';
// One key makes thousands of calls here: lift the per-key rate limit (the limiter still runs).
process.env.EINV_RATE_LIMITS = 'free=100000000';

const dataDir = mkdtempSync(join(tmpdir(), 'einv-bench-'));
chmodSync(dataDir, 0o755);
process.env.EINV_DATA_DIR = dataDir;
process.env.EINV_EMBEDDED_PG_PORT = String(40000 + Math.floor(Math.random() * 20000));

const { resolveDatabase } = await import('../services/shared/persistence/database-url.ts');
const { createApp } = await import('../services/app.ts');
const database = await resolveDatabase();
const app = await createApp({ databaseUrl: database.url, migrate: true });
const port = ((app.broker.getLocalService('gateway') as unknown as { server: Server }).server.address() as AddressInfo).port;
const base = `http://127.0.0.1:${port}`;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function run(name: string, count: number, once: () => Promise<Response>, expectStatus: number) {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < count) {
      next++;
      const t0 = performance.now();
      const res = await once();
      await res.arrayBuffer();
      if (res.status !== expectStatus) throw new Error(`${name}: status ${res.status}`);
      latencies.push(performance.now() - t0);
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const row = { name, requests: count, concurrency: CONCURRENCY, perSecond: Math.round(count / seconds), p50Ms: +percentile(latencies, 50).toFixed(2), p99Ms: +percentile(latencies, 99).toFixed(2) };
  console.log(`${name.padEnd(28)} ${String(row.perSecond).padStart(6)} req/s   p50 ${row.p50Ms.toFixed(2)} ms   p99 ${row.p99Ms.toFixed(2)} ms   (${count} requests, ${CONCURRENCY} concurrent)`);
  return row;
}

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
  mkdirSync('bench/results', { recursive: true });
  writeFileSync('bench/results/gateway.json', JSON.stringify({ date: new Date().toISOString(), node: process.version, rows }, null, 2));
} finally {
  await app.stop();
  await database.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
