/**
 * Webhook delivery under load, on the embedded default (one process, real PostgreSQL): N events
 * written through the outbox (10 per business transaction, 8 writers at once) for R sandbox
 * organizations, each with one webhook to its own receiver on 127.0.0.1. Measures end-to-end
 * throughput (first write to last first-attempt receipt) and first-attempt latency (commit of the
 * event's transaction to its arrival at the receiver), and checks every signature. Bounded.
 *
 * With a rate (events per second), writes are paced instead of a burst: latency without backlog.
 *
 *   node bench/webhooks.bench.ts [events=10000] [receivers=10] [rate=0 (burst)]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg, cpus } from 'node:os';
import { startBenchApp, percentile } from './support/bench-app.ts';

const EVENTS = Number(process.argv[2] ?? 10_000);
const RECEIVERS = Number(process.argv[3] ?? 10);
const RATE = Number(process.argv[4] ?? 0);
const PER_TX = 10;
const WRITERS = 8;
const DEADLINE_MS = 300_000;

process.env.EINV_DB_POOL_MAX ??= '20';

const { call } = await import('../services/shared/call.ts');
const { verifyWebhookSignature } = await import('../services/webhooks/signature.ts');
const { startReceiver } = await import('../test/support/webhook-receiver.ts');
const { EmitterService, touchCompany } = await import('../test/support/event-emitter.service.ts');

const bench = await startBenchApp({ extraServices: [EmitterService] });
const { app, base } = bench;
const receivers = await Promise.all(Array.from({ length: RECEIVERS }, () => startReceiver()));

try {
  const tenants: Array<{ companyId: string; secret: string; receiver: (typeof receivers)[number] }> = [];
  for (const r of receivers) {
    const boot = await (await fetch(`${base}/v1/sandbox/bootstrap`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).json() as { apiKey: string; company: { id: string } };
    const hook = await (await fetch(`${base}/v1/webhooks`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${boot.apiKey}` }, body: JSON.stringify({ url: r.url, events: ['*'] }),
    })).json() as { id: string; secret: string };
    tenants.push({ companyId: boot.company.id, secret: hook.secret, receiver: r });
  }

  // Warm-up: one event per tenant, delivered, then forgotten.
  for (const tn of tenants) await call(app.broker, touchCompany, { companyId: tn.companyId, type: 'document.sent' });
  while (receivers.some((r) => r.requests.length < 1)) await new Promise((res) => setTimeout(res, 20));
  for (const r of receivers) r.requests.length = 0;

  const committedAt = new Map<string, number>();
  const load0 = loadavg()[0]!;
  const started = performance.now();
  let tx = 0;
  const transactions = Math.ceil(EVENTS / PER_TX);
  await Promise.all(Array.from({ length: WRITERS }, async () => {
    while (tx < transactions) {
      const i = tx++;
      // Paced mode: transaction i starts no earlier than its slot.
      if (RATE > 0) {
        const wait = started + (i * PER_TX * 1000) / RATE - performance.now();
        if (wait > 0) await new Promise((res) => setTimeout(res, wait));
      }
      const tn = tenants[i % tenants.length]!;
      const count = Math.min(PER_TX, EVENTS - i * PER_TX);
      const written = await call(app.broker, touchCompany, { companyId: tn.companyId, type: 'document.sent', count, data: { documentId: `doc_${i}` } });
      const at = performance.now();
      for (const e of written) committedAt.set(e.id, at);
    }
  }));
  const writtenMs = performance.now() - started;
  const distinct = new Set<string>();
  let scanned = receivers.map(() => 0);
  const total = () => {
    receivers.forEach((r, k) => { for (; scanned[k]! < r.requests.length; scanned[k]!++) distinct.add(r.requests[scanned[k]!]!.headers['x-service-event-id'] as string); });
    return distinct.size;
  };
  while (total() < EVENTS) {
    if (performance.now() - started > DEADLINE_MS) throw new Error(`only ${total()} of ${EVENTS} deliveries after ${DEADLINE_MS} ms`);
    await new Promise((res) => setTimeout(res, 20));
  }
  const lastAt = Math.max(...receivers.map((r) => r.requests.at(-1)!.receivedAt));
  scanned = [];
  const seconds = (lastAt - started) / 1000;

  const latencies: number[] = [];
  const seen = new Set<string>();
  let badSignatures = 0;
  let duplicates = 0;
  for (const tn of tenants) {
    for (const q of tn.receiver.requests) {
      const id = q.headers['x-service-event-id'] as string;
      if (seen.has(id)) duplicates++;
      seen.add(id);
      if (q.headers['x-service-attempt'] === '1') latencies.push(q.receivedAt - committedAt.get(id)!);
      if (!verifyWebhookSignature(q.headers['x-service-signature'] as string, q.rawBody, tn.secret)) badSignatures++;
    }
  }
  latencies.sort((a, b) => a - b);
  const row = {
    mode: RATE > 0 ? `paced ${RATE}/s` : 'burst', events: EVENTS, receivers: RECEIVERS, eventsPerTransaction: PER_TX, writers: WRITERS,
    writeSeconds: +(writtenMs / 1000).toFixed(2),
    deliveredPerSecond: Math.round(EVENTS / seconds),
    firstAttemptLatencyP50Ms: +percentile(latencies, 50).toFixed(1),
    firstAttemptLatencyP99Ms: +percentile(latencies, 99).toFixed(1),
    firstAttemptLatencyMaxMs: +latencies.at(-1)!.toFixed(1),
    missing: EVENTS - seen.size, duplicates, badSignatures,
    loadAvgBefore: +load0.toFixed(2), loadAvgAfter: +loadavg()[0]!.toFixed(2), cpus: cpus().length,
  };
  console.log(`${row.mode}: ${EVENTS} events to ${RECEIVERS} receivers: ${row.deliveredPerSecond} deliveries/s end to end (${row.writeSeconds} s to write), first-attempt latency p50 ${row.firstAttemptLatencyP50Ms} ms, p99 ${row.firstAttemptLatencyP99Ms} ms, max ${row.firstAttemptLatencyMaxMs} ms; missing ${row.missing}, duplicates ${row.duplicates}, bad signatures ${row.badSignatures} (load ${row.loadAvgBefore} → ${row.loadAvgAfter} on ${row.cpus} CPUs)`);
  if (row.missing || row.badSignatures) process.exitCode = 1;
  mkdirSync('bench/results', { recursive: true });
  writeFileSync(`bench/results/webhooks${RATE > 0 ? '-paced' : ''}.json`, JSON.stringify({ date: new Date().toISOString(), node: process.version, rows: [row] }, null, 2));
} finally {
  await Promise.all(receivers.map((r) => r.close()));
  await bench.stop();
}
