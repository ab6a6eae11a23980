/**
 * What every benchmark needs: the whole application on a throw-away embedded PostgreSQL, on a
 * free loopback port, plus the load loop and percentile that turn requests into figures.
 */
import { mkdirSync, mkdtempSync, chmodSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { ServiceSchema } from 'moleculer';
import type { App } from '../../services/app.ts';

export interface BenchApp {
  app: App;
  /** URL of the database the app runs on (for direct seeding or EXPLAIN). */
  databaseUrl: string;
  /** `http://127.0.0.1:<port>` of the gateway. */
  base: string;
  stop(): Promise<void>;
}

/**
 * Sets the environment (quiet logs, loopback, no bootstrap throttling, plus `env`), starts an
 * embedded PostgreSQL in a temporary directory and the application on it, migrated.
 */
export async function startBenchApp(options: { env?: Record<string, string>; extraServices?: ServiceSchema[] } = {}): Promise<BenchApp> {
  Object.assign(process.env, { PORT: '0', HOST: '127.0.0.1', MOL_LOG_LEVEL: 'warn', EINV_BOOTSTRAP_PER_IP_PER_HOUR: '1000000' }, options.env);
  const dataDir = mkdtempSync(join(tmpdir(), 'einv-bench-'));
  chmodSync(dataDir, 0o755); // as root, PostgreSQL runs as its own OS user and must reach it
  process.env.EINV_DATA_DIR = dataDir;
  process.env.EINV_EMBEDDED_PG_PORT = String(40000 + Math.floor(Math.random() * 20000));

  // Imported only now: the services read their configuration from the environment set above.
  const { resolveDatabase } = await import('../../services/shared/persistence/database-url.ts');
  const { createApp } = await import('../../services/app.ts');
  const database = await resolveDatabase();
  const app = await createApp({ databaseUrl: database.url, migrate: true, ...(options.extraServices ? { extraServices: options.extraServices } : {}) });
  const port = ((app.broker.getLocalService('gateway') as unknown as { server: Server }).server.address() as AddressInfo).port;
  return {
    app,
    databaseUrl: database.url,
    base: `http://127.0.0.1:${port}`,
    async stop() {
      await app.stop();
      await database.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export interface LoadRow {
  name: string;
  requests: number;
  concurrency: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
}

/** `count` requests from `concurrency` loops; every answer must have `expectStatus`. Prints a row. */
export async function runLoad(name: string, count: number, concurrency: number, once: () => Promise<Response>, expectStatus: number): Promise<LoadRow> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
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
  const row = { name, requests: count, concurrency, perSecond: Math.round(count / seconds), p50Ms: +percentile(latencies, 50).toFixed(2), p99Ms: +percentile(latencies, 99).toFixed(2) };
  console.log(`${name.padEnd(40)} ${String(row.perSecond).padStart(6)} req/s   p50 ${row.p50Ms.toFixed(2)} ms   p99 ${row.p99Ms.toFixed(2)} ms   (${count} requests, ${concurrency} concurrent)`);
  return row;
}

/** Writes `bench/results/<name>.json` (git-ignored: figures belong to the machine that made them). */
export function writeResults(name: string, data: Record<string, unknown>): void {
  mkdirSync('bench/results', { recursive: true });
  writeFileSync(`bench/results/${name}.json`, JSON.stringify({ date: new Date().toISOString(), node: process.version, ...data }, null, 2));
}
