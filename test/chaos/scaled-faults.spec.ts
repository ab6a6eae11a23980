/**
 * The scaled topology under faults (test/support/topology.ts): two gateways behind a round-robin
 * proxy, core, two documents, one validation, two events, two webhooks and the sandbox adapter as
 * separate processes on a real nats-server, PostgreSQL and Redis. Under a steady send load with a
 * webhook receiver, each role is killed with SIGKILL in turn (and started again, as an orchestrator
 * would), then PostgreSQL and NATS are restarted and Redis is paused.
 *
 * Asserted: every send a client saw accepted is persisted once and delivered (0 lost, 0 doubled by
 * retries); every event written reaches the receiver at least once (0 missing); no client gave up.
 * Printed: a table per fault (5xx and network errors clients saw, time until sends were answered
 * again) and the totals, duplicates at the receiver included.
 *
 * Short form in `npm test` (2 senders, 2 s per fault); `npm run test:chaos` runs the full form
 * (EINV_CHAOS=full: 4 senders, 8 s per fault).
 */
import pg from 'pg';
import { startTopology, type Topology } from '../support/topology.ts';
import { startReceiver, eventually, type Receiver } from '../support/webhook-receiver.ts';
import { sandboxSendBody } from '../support/sandbox-send.ts';
import { SendLoad } from './send-load.ts';

const FULL = process.env.EINV_CHAOS === 'full';
const SENDERS = FULL ? 4 : 2;
const HOLD_MS = FULL ? 8_000 : 2_000;
const SEND_INTERVAL_MS = FULL ? 100 : 250;
const RECOVERY_LIMIT_MS = 120_000;
const SETTLE_MS = 180_000;

interface Booted { apiKey: string; organizationId: string; company: { id: string; vatNumber: string } }
interface FaultRow { fault: string; faultMs: number; serverErrors: number; network: number; recoveredMs: number | null; acceptedDuring: number }

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let topology: Topology;
let receiver: Receiver;

beforeAll(async () => {
  topology = await startTopology();
  receiver = await startReceiver(() => 200, '/chaos');
}, 300_000);

afterAll(async () => {
  await receiver?.close();
  await topology?.stop();
}, 120_000);

async function post<T>(path: string, body: unknown, key?: string): Promise<T> {
  // Setup calls go through the proxy too, retried while the freshly started roles find each other.
  return await eventually(async () => {
    const res = await fetch(`${topology.baseUrl}${path}`, {
      method: 'POST', headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) }, body: JSON.stringify(body),
    }).catch(() => undefined);
    if (!res || res.status >= 500) return undefined;
    const json = await res.json() as T;
    if (res.status >= 300) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  }, 120_000, `${path} answered (roles:\n${topology.output()})`, 500);
}


it('keeps every accepted send and every event through kill -9 of each role, PostgreSQL and NATS restarts and a Redis pause', async () => {
  const alice = await post<Booted>('/v1/sandbox/bootstrap', { label: 'chaos-alice' });
  const bob = await post<Booted>('/v1/sandbox/bootstrap', { label: 'chaos-bob' });
  for (const who of [alice, bob]) await post('/v1/webhooks', { url: receiver.url, events: ['*'] }, who.apiKey);

  const load = new SendLoad({ baseUrl: topology.baseUrl, apiKey: alice.apiKey, body: (n) => sandboxSendBody({ number: `CHAOS-${n}`, sellerVat: alice.company.vatNumber, buyerVat: bob.company.vatNumber, to: bob.company.id, lines: 1 }), workers: SENDERS, intervalMs: SEND_INTERVAL_MS, retryForMs: RECOVERY_LIMIT_MS });
  // One send end to end before any fault: the topology works.
  expect((await load.sendOnce()).id).toBeDefined();
  load.start();
  await sleep(HOLD_MS);

  const faults: Array<{ name: string; run: () => Promise<void> }> = [
    ...[...new Set(topology.replicas.map((r) => r.role))].map((role) => ({
      name: `kill -9 ${role}`,
      run: async () => {
        const replica = topology.replicas.find((r) => r.role === role)!;
        await topology.kill(replica);
        await sleep(HOLD_MS);
        await topology.restart(replica);
      },
    })),
    { name: 'restart PostgreSQL', run: () => topology.restartPostgres(HOLD_MS) },
    { name: 'restart NATS', run: () => topology.restartNats(HOLD_MS) },
    { name: 'pause Redis', run: () => topology.pauseRedis(HOLD_MS) },
  ];

  const rows: FaultRow[] = [];
  for (const fault of faults) {
    const t0 = Date.now();
    await fault.run();
    const t1 = Date.now();
    // Probe sends after the fault is lifted, in case every sender sits in a retry pause.
    let recoveredAt: number | undefined;
    while (recoveredAt === undefined && Date.now() - t1 < RECOVERY_LIMIT_MS) {
      await load.sendOnce();
      recoveredAt = load.firstAnswerAfter(t0);
    }
    await sleep(HOLD_MS);
    const seen = load.failuresBetween(t0, Date.now());
    rows.push({
      fault: fault.name, faultMs: t1 - t0, serverErrors: seen.serverErrors, network: seen.network,
      recoveredMs: recoveredAt === undefined ? null : recoveredAt - t0,
      acceptedDuring: load.outcomes.filter((o) => o.answeredAt && o.answeredAt >= t0 && o.answeredAt <= Date.now()).length,
    });
  }
  await load.stop();

  // Settle: every accepted send delivered, every event at the receiver.
  const accepted = load.accepted();
  const ids = [...accepted.values()];
  const db = new pg.Client({ connectionString: topology.databaseUrl });
  await db.connect();
  try {
    const delivered = await eventually(async () => {
      const res = await db.query(`select delivery_status, count(*)::int as n from documents where id = any($1) group by delivery_status`, [ids]);
      const byStatus = Object.fromEntries(res.rows.map((r: { delivery_status: string; n: number }) => [r.delivery_status, r.n]));
      return byStatus.delivered === ids.length ? byStatus : undefined;
    }, SETTLE_MS, `all ${ids.length} accepted sends delivered`, 1_000).catch(async () => (await db.query(`select delivery_status, count(*)::int as n from documents where id = any($1) group by delivery_status`, [ids])).rows);
    const persisted = Number((await db.query(`select count(*)::int as n from documents where organization_id = $1 and direction = 'outgoing'`, [alice.organizationId])).rows[0].n);
    const received = Number((await db.query(`select count(*)::int as n from documents where organization_id = $1 and direction = 'incoming'`, [bob.organizationId])).rows[0].n);

    const eventIds = async () => (await db.query(
      `select e.id from events e join webhooks w on w.organization_id = e.organization_id where e.organization_id = any($1) and e.created_at >= w.created_at`,
      [[alice.organizationId, bob.organizationId]],
    )).rows.map((r: { id: string }) => r.id);
    const missing = await eventually(async () => {
      const got = new Set(receiver.requests.map((q) => q.headers['x-service-event-id'] as string));
      const gone = (await eventIds()).filter((id) => !got.has(id));
      return gone.length === 0 ? gone : undefined;
    }, SETTLE_MS, 'every event at the receiver', 1_000).catch(async () => {
      const got = new Set(receiver.requests.map((q) => q.headers['x-service-event-id'] as string));
      return (await eventIds()).filter((id) => !got.has(id));
    });
    const events = (await eventIds()).length;
    const requests = receiver.requests.map((q) => q.headers['x-service-event-id'] as string);
    const duplicates = requests.length - new Set(requests).size;
    const gaveUp = load.outcomes.filter((o) => o.gaveUp).length;
    const gaveUpDetail = load.outcomes.filter((o) => o.gaveUp).map((o) => `${o.key} started ${new Date(o.startedAt).toISOString()}: ${o.failedWith.join(', ')}`);

    console.log([
      `chaos (${FULL ? 'full' : 'short'} form: ${SENDERS} senders, ${HOLD_MS} ms per fault)`,
      '| fault | fault lasted | 5xx seen | network errors | sends answered again after | sends accepted meanwhile |',
      '|---|---:|---:|---:|---:|---:|',
      ...rows.map((r) => `| ${r.fault} | ${r.faultMs} ms | ${r.serverErrors} | ${r.network} | ${r.recoveredMs === null ? 'never' : `${r.recoveredMs} ms`} | ${r.acceptedDuring} |`),
      '',
      '| documents accepted | persisted | delivered | received by the buyer | clients gave up | events written | events missing at the receiver | duplicate deliveries |',
      '|---:|---:|---:|---:|---:|---:|---:|---:|',
      `| ${accepted.size} | ${persisted} | ${Array.isArray(delivered) ? JSON.stringify(delivered) : delivered.delivered} | ${received} | ${gaveUp} | ${events} | ${missing.length} | ${duplicates} |`,
      ...(gaveUpDetail.length ? ['', 'clients gave up on:', ...gaveUpDetail] : []),
    ].join('\n'));

    expect(rows.every((r) => r.recoveredMs !== null)).toBe(true);
    expect(gaveUp).toBe(0);
    expect(persisted).toBe(accepted.size); // retried with the same key: never a second document
    expect(delivered).toEqual({ delivered: accepted.size });
    expect(received).toBe(accepted.size);
    expect(missing).toEqual([]);
  } finally {
    await db.end();
  }
}, 1_800_000);
