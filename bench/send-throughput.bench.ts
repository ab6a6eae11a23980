/**
 * Send throughput: JSON sends of a 3-line invoice between two sandbox organizations (render,
 * validate, persist, outbox, sandbox delivery), driven by autocannon from a second process for a
 * fixed time, then validate-only on the same invoice. Prints requests/s, p50/p99, how many of the
 * accepted sends were delivered, and the server process's RSS and CPU share.
 *
 *   node bench/send-throughput.bench.ts [seconds=10] [connections=16] [validateConnections=8]
 *
 * Writes bench/results/send-throughput-<date>.json.
 */
import { cpus, loadavg } from 'node:os';
import pg from 'pg';
import { startBenchApp, writeResults } from './support/bench-app.ts';
import { cannon } from './support/cannon.ts';
import { sandboxSendBody } from '../test/support/sandbox-send.ts';

const SECONDS = Number(process.argv[2] ?? 10);
const CONNECTIONS = Number(process.argv[3] ?? 16);
const VALIDATE_CONNECTIONS = Number(process.argv[4] ?? 8);
const SETTLE_MS = 60_000;

const bench = await startBenchApp({ env: { EINV_RATE_LIMITS: 'free=100000000' } });
const { base } = bench;

async function boot(label: string) {
  const res = await fetch(`${base}/v1/sandbox/bootstrap`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ label }) });
  return await res.json() as { apiKey: string; organizationId: string; company: { id: string; vatNumber: string } };
}
const [alice, bob] = [await boot('bench-alice'), await boot('bench-bob')];

/** `[<id>]` is replaced by autocannon with a unique id per request: every send is a new invoice, issued by alice. */
function invoiceBody(withRecipient: boolean): string {
  return JSON.stringify(sandboxSendBody({ number: 'BENCH-[<id>]', sellerVat: alice.company.vatNumber, buyerVat: 'FR40303265045', ...(withRecipient ? { to: bob.company.id } : {}) }));
}

/** A timed load of one route as alice (bench/support/cannon.ts: autocannon in its own process). */
function load(path: string, body: string, connections: number) {
  return cannon({ url: `${base}${path}`, connections, seconds: SECONDS, headers: { 'content-type': 'application/json', authorization: `Bearer ${alice.apiKey}` }, body });
}

async function measured<T>(run: () => Promise<T>): Promise<{ result: T; cpuShare: number; rssMb: number }> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let rss = process.memoryUsage().rss;
  const sampler = setInterval(() => { rss = Math.max(rss, process.memoryUsage().rss); }, 200);
  const result = await run();
  clearInterval(sampler);
  const cpu = process.cpuUsage(cpu0);
  const wallMs = performance.now() - t0;
  return { result, cpuShare: +((cpu.user + cpu.system) / 1000 / wallMs).toFixed(2), rssMb: Math.round(rss / 1_048_576) };
}

const db = new pg.Client({ connectionString: bench.databaseUrl });
await db.connect();
const count = async (where: string) => Number((await db.query(`select count(*)::int as n from documents where organization_id = $1 and ${where}`, [alice.organizationId])).rows[0].n);

// Warm-up: rule packs, workers and connection pools.
await load('/v1/documents/send', invoiceBody(true), 4).catch(() => undefined);
const before = await count('true');

console.log(`send-throughput: ${SECONDS} s per run, ${cpus().length} cores, load ${loadavg()[0]!.toFixed(2)}`);
const send = await measured(() => load('/v1/documents/send', invoiceBody(true), CONNECTIONS));
const accepted = (await count('true')) - before;
const settleStart = Date.now();
let delivered = 0;
while (Date.now() - settleStart < SETTLE_MS) {
  delivered = (await count(`delivery_status = 'delivered'`)) - before;
  if (delivered >= accepted + 0) break;
  await new Promise((r) => setTimeout(r, 250));
}
const pendingAfter = await count(`delivery_status = 'pending'`);
const sendRow = {
  connections: CONNECTIONS, perSecond: Math.round(send.result.requests.average), total: send.result.requests.total, non2xx: send.result.non2xx,
  errors: send.result.errors + send.result.timeouts, p50Ms: send.result.latency.p50, p99Ms: send.result.latency.p99,
  accepted, delivered: Math.min(delivered, accepted), pendingAfterSettle: pendingAfter, settleMs: Date.now() - settleStart,
  serverCpuShare: send.cpuShare, serverRssMb: send.rssMb,
};
console.log(`JSON send (3 lines)      ${String(sendRow.perSecond).padStart(5)} sends/s   p50 ${sendRow.p50Ms} ms   p99 ${sendRow.p99Ms} ms   non-2xx ${sendRow.non2xx}   accepted ${accepted}, delivered ${sendRow.delivered} (${sendRow.settleMs} ms to settle)   server CPU ${sendRow.serverCpuShare} cores, RSS ${sendRow.serverRssMb} MB`);

const validate = await measured(() => load('/v1/documents/validate', invoiceBody(false), VALIDATE_CONNECTIONS));
const validateRow = {
  connections: VALIDATE_CONNECTIONS, perSecond: Math.round(validate.result.requests.average), total: validate.result.requests.total, non2xx: validate.result.non2xx,
  p50Ms: validate.result.latency.p50, p99Ms: validate.result.latency.p99, serverCpuShare: validate.cpuShare, serverRssMb: validate.rssMb,
};
console.log(`validate only (3 lines) ${String(validateRow.perSecond).padStart(5)} req/s     p50 ${validateRow.p50Ms} ms   p99 ${validateRow.p99Ms} ms   non-2xx ${validateRow.non2xx}   server CPU ${validateRow.serverCpuShare} cores, RSS ${validateRow.serverRssMb} MB`);

writeResults(`send-throughput-${new Date().toISOString().replace(/[:.]/g, '-')}`, { seconds: SECONDS, cores: cpus().length, send: sendRow, validate: validateRow });
await db.end();
await bench.stop();
