/**
 * What observability costs a send: JSON sends of a 3-line invoice between two sandbox organizations
 * (as bench/send-throughput.bench.ts), driven by autocannon from its own process, with nothing
 * configured, with metrics on (EINV_METRICS_PORT, a scrape every second as Prometheus would), and
 * with metrics and tracing on (every request traced, spans sent as Zipkin v2 — and, in the last
 * variant, as OTLP/HTTP JSON — to a collector stand-in that counts and discards them). Variants
 * run in interleaved rounds, each in a fresh server process, so machine noise spreads evenly; the
 * median of the rounds is printed. Then the cost per broker action call of Moleculer's metrics
 * middleware alone (a no-op action, in-process), which sends/s on a shared machine cannot resolve.
 *
 *   node bench/metrics-overhead.bench.ts [seconds=8 per run] [connections=16] [rounds=2]
 *
 * Writes bench/results/metrics-overhead-<date>.json.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';

const SELF = fileURLToPath(import.meta.url);
type Variant = 'off' | 'metrics' | 'metrics+tracing' | 'metrics+otlp';

interface RunResult { variant: Variant; perSecond: number; p50Ms: number; p99Ms: number; non2xx: number; scrapes: number; spans: number }

if (process.argv[2] === '--run') await runOne(process.argv[3] as Variant, Number(process.argv[4]), Number(process.argv[5]));
else await main();

async function main(): Promise<void> {
  const seconds = Number(process.argv[2] ?? 8);
  const connections = Number(process.argv[3] ?? 16);
  const rounds = Number(process.argv[4] ?? 2);
  const variants: Variant[] = ['off', 'metrics', 'metrics+tracing', 'metrics+otlp'];
  console.log(`metrics-overhead: ${seconds} s per run, ${connections} connections, ${rounds} rounds, ${cpus().length} cores, load ${loadavg()[0]!.toFixed(2)}`);
  const runs: RunResult[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const variant of variants) {
      // A run whose embedded PostgreSQL drew a taken port fails at start: drawn again once.
      const result = await child(variant, seconds, connections).catch(() => child(variant, seconds, connections));
      runs.push(result);
      console.log(`  round ${round + 1} ${variant.padEnd(16)} ${String(result.perSecond).padStart(5)} sends/s   p50 ${result.p50Ms} ms   p99 ${result.p99Ms} ms   non-2xx ${result.non2xx}   scrapes ${result.scrapes}   spans ${result.spans}`);
    }
  }
  const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2; };
  const summary = Object.fromEntries(variants.map((v) => {
    const mine = runs.filter((r) => r.variant === v);
    return [v, { perSecond: median(mine.map((r) => r.perSecond)), p50Ms: median(mine.map((r) => r.p50Ms)), p99Ms: median(mine.map((r) => r.p99Ms)) }];
  }));
  const base = summary.off!.perSecond;
  for (const v of variants) {
    const row = summary[v]!;
    console.log(`${v.padEnd(16)} ${String(row.perSecond).padStart(5)} sends/s (median)   p50 ${row.p50Ms} ms   p99 ${row.p99Ms} ms   ${v === 'off' ? 'baseline' : `${(((row.perSecond - base) / base) * 100).toFixed(1)} % vs off`}`);
  }
  const perCall = { off: await perActionCallMicros(false), metrics: await perActionCallMicros(true) };
  console.log(`per broker action call: ${perCall.off} µs without metrics, ${perCall.metrics} µs with (+${(perCall.metrics - perCall.off).toFixed(2)} µs)`);
  const { writeResults } = await import('./support/bench-app.ts');
  writeResults(`metrics-overhead-${new Date().toISOString().replace(/[:.]/g, '-')}`, { seconds, connections, rounds, cores: cpus().length, runs, summary, perActionCallMicros: perCall });
}

/** Microseconds per call of a no-op action called from another action, metrics on or off (median of 3). */
async function perActionCallMicros(metrics: boolean): Promise<number> {
  const { ServiceBroker } = await import('moleculer');
  const samples: number[] = [];
  for (let run = 0; run < 3; run++) {
    const broker = new ServiceBroker({ logger: false, tracing: false, metrics: metrics ? { enabled: true, collectProcessMetrics: false } : false });
    broker.createService({ name: 'noop', actions: { leaf: () => 1, outer: { async handler(ctx) { for (let i = 0; i < 5; i++) await ctx.call('noop.leaf'); return 1; } } } });
    await broker.start();
    for (let i = 0; i < 2_000; i++) await broker.call('noop.outer');
    const n = 10_000;
    const t0 = performance.now();
    for (let i = 0; i < n; i++) await broker.call('noop.outer');
    samples.push(((performance.now() - t0) * 1000) / (n * 6));
    await broker.stop();
  }
  return +samples.sort((a, b) => a - b)[1]!.toFixed(2);
}

function child(variant: Variant, seconds: number, connections: number): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [SELF, '--run', variant, String(seconds), String(connections)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout.on('data', (d) => (out += d));
    proc.once('error', reject);
    proc.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!) as RunResult) : reject(new Error(`${variant} run exited ${code}`))));
  });
}

/** Spans in one export: a Zipkin v2 array, or an OTLP/JSON ExportTraceServiceRequest. */
function spansIn(body: unknown): number {
  if (Array.isArray(body)) return body.length;
  const request = body as { resourceSpans?: Array<{ scopeSpans?: Array<{ spans?: unknown[] }> }> };
  return (request.resourceSpans ?? []).flatMap((r) => r.scopeSpans ?? []).reduce((n, s) => n + (s.spans?.length ?? 0), 0);
}

/** One variant in this process: the app, a warm-up, one measured run; prints its figures as one JSON line. */
async function runOne(variant: Variant, seconds: number, connections: number): Promise<void> {
  let spans = 0;
  const collector = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => { spans += spansIn(JSON.parse(Buffer.concat(chunks).toString('utf8'))); res.writeHead(202).end(); });
  });
  await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
  const { freePort } = await import('../test/support/servers.ts');
  const metricsPort = await freePort();
  const env: Record<string, string> = { EINV_RATE_LIMITS: 'free=100000000' };
  if (variant !== 'off') Object.assign(env, { EINV_METRICS_PORT: String(metricsPort), EINV_METRICS_HOST: '127.0.0.1' });
  if (variant === 'metrics+tracing' || variant === 'metrics+otlp') Object.assign(env, { EINV_TRACING_URL: `http://127.0.0.1:${(collector.address() as AddressInfo).port}`, EINV_TRACING_FLUSH_MS: '1000' });
  if (variant === 'metrics+otlp') env.EINV_TRACING_EXPORTER = 'otlp';
  const { startBenchApp } = await import('./support/bench-app.ts');
  const bench = await startBenchApp({ env });
  const boot = async (label: string) => (await (await fetch(`${bench.base}/v1/sandbox/bootstrap`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ label }) })).json()) as { apiKey: string; company: { id: string; vatNumber: string } };
  const [alice, bob] = [await boot('bench-alice'), await boot('bench-bob')];
  const body = JSON.stringify({ type: 'invoice', format: 'json', to: bob.company.id, document: {
    number: 'BENCH-[<id>]', issueDate: '2026-03-01', dueDate: '2026-04-01', buyerReference: 'PO-9',
    seller: { name: 'Acme SPRL', vatNumber: alice.company.vatNumber, address: { street: 'Rue Neuve 1', city: 'Brussels', postalCode: '1000', country: 'BE' } },
    buyer: { name: 'Client SA', vatNumber: 'FR40303265045', address: { street: '1 rue de Paris', city: 'Paris', postalCode: '75001', country: 'FR' } },
    lines: [
      { description: 'Consulting', quantity: 2, unit: 'HUR', unitPrice: 100, vatRate: 21 },
      { description: 'Travel', quantity: 1, unit: 'C62', unitPrice: 80, vatRate: 21 },
      { description: 'Licence', quantity: 3, unit: 'C62', unitPrice: 15.5, vatRate: 21 },
    ],
  } });
  const cannon = (secs: number) => new Promise<{ requests: { average: number }; latency: { p50: number; p99: number }; non2xx: number }>((resolve, reject) => {
    const job = { url: `${bench.base}/v1/documents/send`, connections, seconds: secs, headers: { 'content-type': 'application/json', authorization: `Bearer ${alice.apiKey}` }, body };
    const proc = spawn(process.execPath, ['bench/support/cannon-process.ts', JSON.stringify(job)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout.on('data', (d) => (out += d));
    proc.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!)) : reject(new Error(`autocannon exited ${code}`))));
  });
  await cannon(2); // warm-up: rule packs, workers, pools
  let scrapes = 0;
  const scraper = variant === 'off' ? undefined : setInterval(() => {
    fetch(`http://127.0.0.1:${metricsPort}/metrics`).then((r) => r.text()).then(() => { scrapes++; }, () => undefined);
  }, 1_000);
  const result = await cannon(seconds);
  if (scraper) clearInterval(scraper);
  await bench.stop();
  collector.close();
  const row: RunResult = { variant, perSecond: Math.round(result.requests.average), p50Ms: result.latency.p50, p99Ms: result.latency.p99, non2xx: result.non2xx, scrapes, spans };
  process.stdout.write(`${JSON.stringify(row)}\n`);
  process.exit(0);
}
