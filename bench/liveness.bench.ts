/**
 * Does the API keep answering while hostile or heavy documents are processed? `/health/liveness`
 * latency (p50/p99/max) is sampled every 10 ms while each load below runs, and the event-loop delay
 * of the API process (perf_hooks monitorEventLoopDelay) is recorded alongside:
 *
 * - idle (reference);
 * - 50,000 attributes on one element, with the attribute cap lifted so the parsers really grind
 *   (two at a time, until the CPU budget stops them);
 * - deep nesting, a huge text node and a million elements (refused by the caps);
 * - a 1 MB PDF whose embedded file inflates to 1 GB (refused by the inflate cap);
 * - a valid 4,000-line JSON invoice sent with format=json (rendered, validated and mapped on the
 *   workers, then stored);
 * - a valid 10,000-line invoice validated (validation.validate), then sent with format=auto
 *   (validated and parsed on the workers, then stored).
 *
 * The loads run on a thread of their own (support/load-thread.ts), so only the server's work lands
 * on the event loop measured here. The CPU budget and request timeout are raised to 60 s so the
 * 10,000-line invoice completes on a slow machine (the default budget is 8 s).
 *
 *   node bench/liveness.bench.ts            (BENCH_QUICK=1: 2,000 lines instead of 10,000)
 *
 * Writes bench/results/liveness.json.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { cpus, loadavg } from 'node:os';
import { startBenchApp, percentile, writeResults } from './support/bench-app.ts';
import { loadOffThread, type LoadRequest } from './support/load-thread.ts';
import { deepNesting, hugeText, largeInvoice, largeJsonInvoice, manyAttributes, manyElements, pdfInflateBomb } from '../test/support/hostile-inputs.ts';
import { reissued } from '../test/support/issuers.ts';
import { CORPUS } from '../test/unit/mappings/support/corpus.ts';

const QUICK = process.env.BENCH_QUICK === '1';
const LINES = QUICK ? 2_000 : 10_000;

const bench = await startBenchApp({ env: { EINV_XML_MAX_ATTRIBUTES: '100000', EINV_RATE_LIMITS: 'free=100000000', EINV_WORKER_TASK_BUDGET_MS: '60000', MOL_REQUEST_TIMEOUT_MS: '60000' } });
const { base } = bench;

async function bootstrap(label: string): Promise<{ apiKey: string; company: { peppolId: string; vatNumber: string } }> {
  const res = await fetch(`${base}/v1/sandbox/bootstrap`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ label }) });
  return await res.json() as { apiKey: string; company: { peppolId: string; vatNumber: string } };
}
const [alice, bob] = [await bootstrap('alice'), await bootstrap('bob')];

const bytes = (body: Uint8Array | string) => (typeof body === 'string' ? new TextEncoder().encode(body) : body);
const sendRaw = (body: Uint8Array | string, contentType: string): LoadRequest => ({
  url: `${base}/v1/documents/send?format=auto&type=invoice&to=${encodeURIComponent(bob.company.peppolId)}`, method: 'POST',
  headers: { authorization: `Bearer ${alice.apiKey}`, 'content-type': contentType }, body: bytes(body),
});
const validateXml = (xml: string): LoadRequest => ({
  url: `${base}/v1/documents/validate`, method: 'POST',
  headers: { authorization: `Bearer ${alice.apiKey}`, 'content-type': 'application/json' }, body: bytes(JSON.stringify({ format: 'ubl-xml', xml })),
});

interface Row { name: string; samples: number; p50Ms: number; p99Ms: number; maxMs: number; loopDelayP99Ms: number; loopDelayMaxMs: number; statuses: string; workMs: number }
const rows: Row[] = [];
const r2 = (x: number) => Math.round(x * 100) / 100;

/** Samples liveness every 10 ms while `work` runs; a sample is the time from when the probe was due to its answer. */
async function measure(name: string, work: () => Promise<number[]>): Promise<void> {
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  let done = false;
  const started = performance.now();
  const running = work().finally(() => { done = true; });
  const latencies: number[] = [];
  while (!done) {
    // From when the probe is due: a loop stalled during the pause shows as a late probe.
    const due = performance.now() + 10;
    await new Promise((r) => setTimeout(r, 10));
    const res = await fetch(`${base}/health/liveness`);
    await res.arrayBuffer();
    latencies.push(performance.now() - due);
  }
  const statuses = await running;
  const workMs = performance.now() - started;
  loop.disable();
  latencies.sort((a, b) => a - b);
  const counts = new Map<number, number>();
  for (const s of statuses) counts.set(s, (counts.get(s) ?? 0) + 1);
  const row: Row = {
    name, samples: latencies.length,
    p50Ms: r2(percentile(latencies, 50)), p99Ms: r2(percentile(latencies, 99)), maxMs: r2(latencies[latencies.length - 1] ?? NaN),
    loopDelayP99Ms: r2(loop.percentile(99) / 1e6), loopDelayMaxMs: r2(loop.max / 1e6),
    statuses: [...counts].map(([s, n]) => `${n}×${s}`).join(' '), workMs: Math.round(workMs),
  };
  rows.push(row);
  console.log(`${name.padEnd(52)} liveness p50 ${row.p50Ms.toFixed(1).padStart(6)} p99 ${row.p99Ms.toFixed(1).padStart(6)} max ${row.maxMs.toFixed(1).padStart(6)} ms | loop delay p99 ${row.loopDelayP99Ms.toFixed(1).padStart(6)} max ${row.loopDelayMaxMs.toFixed(1).padStart(6)} ms | ${row.statuses} in ${row.workMs} ms (${row.samples} samples)`);
}

await measure('idle (1 s)', async () => { await new Promise((r) => setTimeout(r, 1000)); return []; });

const attrs = validateXml(manyAttributes(50_000));
await measure('50,000 attributes, cap lifted (2 concurrent, grind)', () => loadOffThread([attrs, attrs], 1, 2));

const capped = [deepNesting(10_000), hugeText(9 * 1024 * 1024), manyElements(1_000_001)].map((body) => sendRaw(body, 'application/xml'));
await measure('depth / text / element caps (3 kinds × 3, 3 concurrent)', () => loadOffThread(capped, 3, 3));

const bomb = await pdfInflateBomb(1024 ** 3);
await measure(`PDF inflate bomb ${(bomb.length / 1e6).toFixed(1)} MB → 1 GB (8, 2 concurrent)`, () => loadOffThread([sendRaw(bomb, 'application/pdf')], 8, 2));

// Issued by alice, who sends it.
const invoice = reissued(largeInvoice(CORPUS, LINES), alice.company);
await measure(`${LINES.toLocaleString('en')}-line invoice validates (${(invoice.length / 1e6).toFixed(1)} MB, validation.validate)`, async () => {
  const result = await bench.app.broker.call<{ valid: boolean }, Record<string, unknown>>('validation.validate', { format: 'ubl-xml', xml: invoice });
  return [result.valid ? 200 : 422];
});
// Sends last: an accepted document's delivery runs afterwards on the API process and would blur the figures of what follows.
const jsonSend: LoadRequest = {
  url: `${base}/v1/documents/send`, method: 'POST', headers: { authorization: `Bearer ${alice.apiKey}`, 'content-type': 'application/json' },
  body: bytes(JSON.stringify({ type: 'invoice', format: 'json', to: bob.company.peppolId, document: largeJsonInvoice(`BIG-${Date.now()}`, 4_000, alice.company.vatNumber) })),
};
await measure(`4,000-line JSON invoice, format=json send (${(jsonSend.body.length / 1e6).toFixed(1)} MB)`, () => loadOffThread([jsonSend], 1, 1));

await measure(`${LINES.toLocaleString('en')}-line invoice, format=auto send (validate, parse, store)`, () => loadOffThread([sendRaw(invoice, 'application/xml')], 1, 1));

writeResults('liveness', { cpus: cpus().length, loadavg: loadavg(), lines: LINES, rows });
await bench.stop();
