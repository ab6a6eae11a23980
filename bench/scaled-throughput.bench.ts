/**
 * Send throughput in the scaled topology (test/support/topology.ts: every role its own process on
 * NATS, PostgreSQL and Redis, two gateways behind a round-robin proxy), once with one `documents`
 * and one `validation` process and once with two of each, so the scaling factor is measured, not
 * assumed. The load is bench/send-throughput.bench.ts's: JSON sends of a 3-line invoice between two
 * sandbox organizations, driven by autocannon from its own process. Prints sends/s, p50/p99 and the
 * factor; writes bench/results/scaled-throughput-<date>.json.
 *
 *   node bench/scaled-throughput.bench.ts [seconds=15] [connections=16]
 *
 * On one machine every process shares the same cores: the factor says what a second replica buys
 * when the cores are already busy; on separate hosts each replica brings its own.
 */
import { cpus, loadavg } from 'node:os';
import { scaledRoles, startTopology } from '../test/support/topology.ts';
import { writeResults } from './support/bench-app.ts';
import { cannon } from './support/cannon.ts';
import { sandboxSendBody } from '../test/support/sandbox-send.ts';

const SECONDS = Number(process.argv[2] ?? 15);
const CONNECTIONS = Number(process.argv[3] ?? 16);

const load = (url: string, apiKey: string, body: string, seconds: number) =>
  cannon({ url, connections: CONNECTIONS, seconds, headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` }, body });

async function boot(base: string, label: string) {
  for (let attempt = 0; attempt < 120; attempt++) {
    const res = await fetch(`${base}/v1/sandbox/bootstrap`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ label }) }).catch(() => undefined);
    if (res?.status === 201) return await res.json() as { apiKey: string; company: { id: string; vatNumber: string } };
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error('the topology never answered a bootstrap');
}

async function run(replicas: number) {
  const topology = await startTopology({ roles: scaledRoles({ documents: replicas, validation: replicas }) });
  try {
    const alice = await boot(topology.baseUrl, 'bench-alice');
    const bob = await boot(topology.baseUrl, 'bench-bob');
    const body = JSON.stringify(sandboxSendBody({ number: 'SCALED-[<id>]', sellerVat: alice.company.vatNumber, buyerVat: bob.company.vatNumber, to: bob.company.id }));
    const url = `${topology.baseUrl}/v1/documents/send`;
    await load(url, alice.apiKey, body, 5); // warm-up: rule packs, workers, pools on every replica
    const result = await load(url, alice.apiKey, body, SECONDS);
    return {
      replicas, perSecond: Math.round(result.requests.average), total: result.requests.total, p50Ms: result.latency.p50, p99Ms: result.latency.p99,
      non2xx: result.non2xx, errors: result.errors + result.timeouts,
    };
  } finally {
    await topology.stop();
  }
}

console.log(`scaled-throughput: ${SECONDS} s per run, ${CONNECTIONS} connections, ${cpus().length} cores, load ${loadavg()[0]!.toFixed(2)}`);
const rows = [];
for (const replicas of [1, 2]) {
  const row = await run(replicas);
  rows.push(row);
  console.log(`${replicas} documents + ${replicas} validation: ${String(row.perSecond).padStart(5)} sends/s   p50 ${row.p50Ms} ms   p99 ${row.p99Ms} ms   non-2xx ${row.non2xx}   errors ${row.errors}`);
}
const factor = rows[1]!.perSecond / Math.max(1, rows[0]!.perSecond);
console.log(`scaling factor 1 → 2 replicas: ${factor.toFixed(2)}× on ${cpus().length} shared cores`);
writeResults(`scaled-throughput-${new Date().toISOString().replace(/[:.]/g, '-')}`, { seconds: SECONDS, connections: CONNECTIONS, cores: cpus().length, runs: rows, factor: +factor.toFixed(2) });
