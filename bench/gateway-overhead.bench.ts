/**
 * Gateway overhead per request: what authentication, the rate limiter, Idempotency-Key and the
 * request log add to a call, p50 and p99, at a fixed request rate, with the in-process limiter
 * store and with Redis.
 *
 *   node bench/gateway-overhead.bench.ts [rate=200 req/s] [seconds=6 per scenario] [sequential=300 per round]
 *
 * Two measures per scenario: p50/p99 under a fixed request rate (autocannon, 16 connections,
 * 1 ms resolution), and p50/p99 of requests sent one at a time (sub-millisecond: the gateway's
 * own cost without queueing). Scenarios run in interleaved rounds so machine noise spreads evenly.
 *
 * The application runs in a child process (embedded PostgreSQL, every service, the gateway on
 * 127.0.0.1, `REDIS_URL` set or not); this process generates the load with autocannon. The action
 * behind every scenario is the same no-op, published next to the real routes for the bench only,
 * so the differences between scenarios are the gateway's own work:
 *
 *   public GET              HTTP, routing, request validation (the baseline)
 *   public POST             + reading a JSON body (what every POST pays, guarantees or not)
 *   authenticated GET       + API-key authentication (a key lookup) + rate limit
 *   authenticated POST      + body reading and request-log capture (a mutation is always logged)
 *   POST + Idempotency-Key  + key claim and response store (two PostgreSQL round trips)
 *
 * Nothing is installed at run time: redis-server comes from the OS (scripts/setup.sh).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, chmodSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type autocannon from 'autocannon';

const SELF = fileURLToPath(import.meta.url);

interface Ready { port: number; apiKey: string }
interface LogStats { captured: number; written: number; dropped: number; failed: number; batches: number; maxDepth: number; maxFlushMs: number }

if (process.argv[2] === '--serve') await serve();
else await main();

/** Child: the real application plus the bench's no-op routes. */
async function serve(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'einv-bench-overhead-'));
  chmodSync(dataDir, 0o755);
  process.env.EINV_DATA_DIR = dataDir;
  process.env.EINV_EMBEDDED_PG_PORT = String(40000 + Math.floor(Math.random() * 20000));
  const { defineAction, implement } = await import('../services/shared/contract.ts');
  const { SERVICE_CATALOGUE } = await import('../services/index.ts');
  const { gatewayPublishing } = await import('../services/gateway/gateway.service.ts');
  const { resolveDatabase } = await import('../services/shared/persistence/database-url.ts');
  const { createApp } = await import('../services/app.ts');

  const response = { type: 'object', properties: { ok: { const: true } } };
  const noop = (access: 'public' | 'authenticated', method: 'GET' | 'POST', name: string) =>
    defineAction<Record<string, unknown>, { ok: true }>('benchnoop', name, { params: { $$strict: 'remove' }, http: { method, path: `/v1/bench/${name}`, access, tag: 'Bench', summary: 'no-op', response } });
  const contracts = [noop('public', 'GET', 'public'), noop('public', 'POST', 'public-write'), noop('authenticated', 'GET', 'read'), noop('authenticated', 'POST', 'write')];
  const NoopService = { name: 'benchnoop', actions: Object.fromEntries(contracts.map((c) => [c.name, implement(c, async () => ({ ok: true as const }))])) };

  const database = await resolveDatabase();
  const app = await createApp({
    databaseUrl: database.url, migrate: true,
    services: Object.keys(SERVICE_CATALOGUE).filter((n) => n !== 'gateway'),
    extraServices: [gatewayPublishing(contracts), NoopService],
  });
  const gateway = app.broker.getLocalService('gateway') as unknown as { server: Server; guarantees: { log: { stats: LogStats; flush(): Promise<void> } } };
  const port = (gateway.server.address() as AddressInfo).port;
  const boot = await (await fetch(`http://127.0.0.1:${port}/v1/sandbox/bootstrap`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).json() as { apiKey: string };
  process.send!({ type: 'ready', port, apiKey: boot.apiKey } satisfies Ready & { type: string });
  process.on('message', async (msg: { type: string }) => {
    if (msg.type === 'stats') {
      const before = { ...gateway.guarantees.log.stats };
      const t0 = performance.now();
      await gateway.guarantees.log.flush();
      process.send!({ type: 'stats', stats: { ...gateway.guarantees.log.stats, drainMs: +(performance.now() - t0).toFixed(1), pendingAtEnd: before.captured - before.written - before.failed } });
    }
    if (msg.type === 'stop') {
      await app.stop();
      await database.stop();
      rmSync(dataDir, { recursive: true, force: true });
      process.exit(0);
    }
  });
}

/** Parent: starts the child per variant and measures each scenario at the same fixed rate. */
async function main(): Promise<void> {
  const RATE = Number(process.argv[2] ?? 200);
  const SECONDS = Number(process.argv[3] ?? 6);
  const SEQUENTIAL = Number(process.argv[4] ?? 300);
  const { default: run } = await import('autocannon');
  const { startRedis } = await import('../test/support/servers.ts');

  function startChild(env: Record<string, string>): Promise<{ child: ChildProcess; ready: Ready }> {
    const child = fork(SELF, ['--serve'], {
      env: {
        ...process.env, ...env,
        PORT: '0', HOST: '127.0.0.1', MOL_LOG_LEVEL: 'warn',
        // The limiter runs on every call but never refuses: we measure its cost, not its effect.
        EINV_RATE_LIMITS: 'free=100000000', EINV_BOOTSTRAP_PER_IP_PER_HOUR: '1000',
      },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    return new Promise((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
      child.once('message', (msg: Ready) => resolve({ child, ready: msg }));
    });
  }

  function ask<T>(child: ChildProcess, type: string): Promise<T> {
    return new Promise((resolve) => {
      child.once('message', (msg: { stats: T }) => resolve(msg.stats));
      child.send({ type });
    });
  }

  interface Scenario { name: string; method: 'GET' | 'POST'; path: string; auth: boolean; idempotent?: boolean }
  const scenarios: Scenario[] = [
    { name: 'public GET (baseline)', method: 'GET', path: '/v1/bench/public', auth: false },
    { name: 'public POST (body read)', method: 'POST', path: '/v1/bench/public-write', auth: false },
    { name: 'auth + rate limit GET', method: 'GET', path: '/v1/bench/read', auth: true },
    { name: 'auth POST + request log', method: 'POST', path: '/v1/bench/write', auth: true },
    { name: 'POST + Idempotency-Key', method: 'POST', path: '/v1/bench/write', auth: true, idempotent: true },
  ];

  async function measure(base: string, apiKey: string, s: Scenario, duration: number, rate: number) {
    let n = 0;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (s.auth) headers.authorization = `Bearer ${apiKey}`;
    const result = await run({
      url: `${base}${s.path}`, method: s.method, headers, duration, overallRate: rate, connections: 16,
      ...(s.method === 'POST' ? { body: '{}' } : {}),
      ...(s.idempotent ? { requests: [{ setupRequest: (req: autocannon.Request) => ({ ...req, headers: { ...headers, 'idempotency-key': `bench-${process.pid}-${Date.now()}-${n++}` } }) }] } : {}),
    });
    const non2xx = result.non2xx + result.errors + result.timeouts;
    if (non2xx) throw new Error(`${s.name}: ${non2xx} failed requests`);
    return { name: s.name, requests: result.requests.total, perSecond: Math.round(result.requests.average), p50Ms: result.latency.p50, p99Ms: result.latency.p99, maxMs: result.latency.max };
  }

  /** One request at a time (no queueing): the gateway's own cost per request, sub-millisecond. */
  async function sequential(base: string, apiKey: string, s: Scenario, count: number) {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (s.auth) headers.authorization = `Bearer ${apiKey}`;
    const times: number[] = [];
    for (let i = 0; i < count; i++) {
      const h = s.idempotent ? { ...headers, 'idempotency-key': `seq-${process.pid}-${Date.now()}-${i}` } : headers;
      const t0 = performance.now();
      const res = await fetch(`${base}${s.path}`, { method: s.method, headers: h, ...(s.method === 'POST' ? { body: '{}' } : {}) });
      await res.arrayBuffer();
      times.push(performance.now() - t0);
      if (res.status !== 200) throw new Error(`${s.name}: status ${res.status}`);
    }
    return times;
  }

  const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const ROUNDS = 3;

  const variants: Array<{ name: string; redis: boolean }> = [{ name: 'in-process store', redis: false }, { name: 'Redis store', redis: true }];
  const out: Array<Record<string, unknown>> = [];
  for (const variant of variants) {
    const redis = variant.redis ? await startRedis() : undefined;
    const { child, ready } = await startChild(redis ? { REDIS_URL: redis.url } : {});
    const base = `http://127.0.0.1:${ready.port}`;
    try {
      console.log(`\n-- ${variant.name} (server pid ${child.pid}, load from pid ${process.pid})`);
      for (const s of scenarios) await measure(base, ready.apiKey, s, 1, RATE); // warm-up: JIT, pools, plan cache

      // 1. Fixed load: ROUNDS interleaved rounds per scenario (machine noise spreads evenly); medians of the rounds.
      const perRound = Math.max(1, Math.round(SECONDS / ROUNDS));
      const runs = new Map<string, Array<Awaited<ReturnType<typeof measure>>>>();
      for (let round = 0; round < ROUNDS; round++) {
        for (const s of scenarios) {
          const r = await measure(base, ready.apiKey, s, perRound, RATE);
          runs.set(s.name, [...(runs.get(s.name) ?? []), r]);
        }
      }
      console.log(`fixed load: ${RATE} req/s, 16 connections, ${ROUNDS} rounds of ${perRound} s per scenario (autocannon; 1 ms resolution; medians of the rounds)`);
      const loaded = scenarios.map((s) => {
        const rs = runs.get(s.name)!;
        return { name: s.name, requests: rs.reduce((a, r) => a + r.requests, 0), p50Ms: median(rs.map((r) => r.p50Ms)), p99Ms: median(rs.map((r) => r.p99Ms)), maxMs: Math.max(...rs.map((r) => r.maxMs)) };
      });
      for (const row of loaded) console.log(`  ${row.name.padEnd(26)} p50 ${row.p50Ms.toFixed(0).padStart(4)} ms   p99 ${row.p99Ms.toFixed(0).padStart(4)} ms   max ${row.maxMs.toFixed(0).padStart(4)} ms   (${row.requests} requests)`);

      // 2. One request at a time, interleaved rounds: the per-request cost without queueing.
      const seq = new Map<string, number[]>();
      for (let round = 0; round < ROUNDS; round++) {
        for (const s of scenarios) seq.set(s.name, [...(seq.get(s.name) ?? []), ...(await sequential(base, ready.apiKey, s, SEQUENTIAL))]);
      }
      console.log(`one at a time: ${ROUNDS} x ${SEQUENTIAL} requests per scenario`);
      const unloaded = scenarios.map((s) => {
        const xs = seq.get(s.name)!.sort((a, b) => a - b);
        return { name: s.name, requests: xs.length, p50Ms: +pct(xs, 50).toFixed(3), p99Ms: +pct(xs, 99).toFixed(3) };
      });
      const baseline = unloaded[0]!;
      for (const row of unloaded) {
        const extra = row === baseline ? '' : `   overhead p50 +${(row.p50Ms - baseline.p50Ms).toFixed(2)} ms, p99 +${(row.p99Ms - baseline.p99Ms).toFixed(2)} ms`;
        console.log(`  ${row.name.padEnd(26)} p50 ${row.p50Ms.toFixed(2).padStart(6)} ms   p99 ${row.p99Ms.toFixed(2).padStart(6)} ms${extra}`);
      }
      const log = await ask<LogStats & { drainMs: number; pendingAtEnd: number }>(child, 'stats');
      console.log(`request log: ${log.captured} captured, ${log.written} written in ${log.batches} batches, ${log.dropped} dropped, ${log.failed} failed; deepest buffer ${log.maxDepth}, slowest batch ${log.maxFlushMs.toFixed(1)} ms, ${log.pendingAtEnd} pending at the end (drained in ${log.drainMs} ms)`);
      out.push({ variant: variant.name, rate: RATE, seconds: SECONDS, rounds: ROUNDS, loaded, unloaded, requestLog: log });
    } finally {
      child.send({ type: 'stop' });
      await new Promise((r) => child.once('exit', r));
      await redis?.stop();
    }
  }
  mkdirSync('bench/results', { recursive: true });
  writeFileSync('bench/results/gateway-overhead.json', JSON.stringify({ date: new Date().toISOString(), node: process.version, results: out }, null, 2));
  console.log('\nwritten bench/results/gateway-overhead.json');
}
