/**
 * Crash safety of the outbox and the webhook worker: the dispatcher runs as its own process
 * (test/support/dispatcher-process.ts), is killed with SIGKILL while it is delivering, and a new
 * one is started. Every event written through the outbox reaches the receiver at least once, none
 * is missing, and each event still has exactly one delivery row. Then two replicas side by side
 * share one outbox and one job table without delivering anything twice.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import pg from 'pg';
import { startTestApp, bootstrap, type TestApp } from '../support/app.ts';
import { startReceiver, eventually, type Receiver } from '../support/webhook-receiver.ts';
import { EmitterService, touchCompany } from '../support/event-emitter.service.ts';
import { createTestDatabase } from '../support/database.ts';
import { call } from '../../services/shared/call.ts';
import { newId } from '../../services/shared/ids.ts';
import { Webhook } from '../../services/webhooks/webhook.entity.ts';

const TIMEOUT_MS = 120_000;
const BEFORE_KILL = 300;
const WHILE_DOWN = 100;

interface Running { child: ChildProcess; output: () => string; exited: Promise<void> }

function startDispatcher(databaseUrl: string, env: Record<string, string> = {}): Running {
  let output = '';
  const child = spawn(process.execPath, ['test/support/dispatcher-process.ts'], {
    // Short lease: the killed process's claimed attempts come back quickly.
    env: { ...process.env, NODE_OPTIONS: '', DATABASE_URL: databaseUrl, NATS_URL: '', MOL_LOG_LEVEL: 'warn', EINV_SCHEDULER_LEASE_MS: '2000', EINV_WEBHOOK_BATCH: '5', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { child, output: () => output, exited };
}

/** A webhook for every event of the bootstrapped company, written straight to the database (this process runs no webhooks service). */
async function subscribe(boot: Awaited<ReturnType<typeof bootstrap>>, url: string, secret: string): Promise<void> {
  const em = t.app.orm!.em.fork();
  em.create(Webhook, {
    id: newId('webhook'), organizationId: boot.organizationId, companyId: boot.company.id, url, events: ['*'], description: null,
    status: 'active', failureCount: 0, livemode: false, secret, previousSecret: null, previousSecretExpiresAt: null,
  });
  await em.flush();
}

let t: TestApp;
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let r: Receiver;
const children: Running[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  // This process only writes events (no dispatcher, no webhook worker here).
  t = await startTestApp({ services: ['gateway', 'tenancy', 'sandbox'], extraServices: [EmitterService], databaseUrl: db.url });
  r = await startReceiver(() => 200, '/hooks', 15);
});

afterAll(async () => {
  for (const c of children) if (c.child.exitCode === null && c.child.signalCode === null) { c.child.kill('SIGKILL'); await c.exited; }
  await r?.close();
  await t?.stop({ keepDatabase: true });
  await db?.drop();
});

it('kill -9 of the dispatcher mid-flight, then a restart: every event delivered at least once, none missing', async () => {
  const boot = await bootstrap(t.baseUrl);
  await subscribe(boot, r.url, 'whsec_crash_test');

  const written = new Set<string>();
  const write = async (n: number) => {
    for (let i = 0; i < n; i += 10) {
      for (const e of await call(t.app.broker, touchCompany, { companyId: boot.company.id, type: 'document.sent', count: 10 })) written.add(e.id);
    }
  };

  const first = startDispatcher(db.url);
  children.push(first);
  await write(BEFORE_KILL);
  await eventually(async () => r.requests.length >= 60, 60_000, `first deliveries (dispatcher output: ${first.output()})`);
  first.child.kill('SIGKILL');
  await first.exited;
  const atKill = new Set(r.requests.map((q) => q.headers['x-service-event-id'] as string));
  expect(first.child.signalCode).toBe('SIGKILL');
  expect(atKill.size).toBeLessThan(BEFORE_KILL); // it really died mid-flight

  // Events keep being written while no dispatcher runs: they wait in the outbox.
  await write(WHILE_DOWN);
  const second = startDispatcher(db.url);
  children.push(second);
  await eventually(async () => {
    const got = new Set(r.requests.map((q) => q.headers['x-service-event-id'] as string));
    return [...written].every((id) => got.has(id));
  }, 90_000, `all ${BEFORE_KILL + WHILE_DOWN} events at the receiver (dispatcher output: ${second.output()})`);

  const received = r.requests.map((q) => q.headers['x-service-event-id'] as string);
  expect(written.size).toBe(BEFORE_KILL + WHILE_DOWN);
  expect([...written].filter((id) => !received.includes(id))).toEqual([]);
  expect(received.every((id) => written.has(id))).toBe(true);

  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    const outbox = await client.query(`select count(*)::int as n from events where dispatched_at is null`);
    expect(outbox.rows[0].n).toBe(0);
    const perEvent = await client.query(`select event_id, count(*)::int as n from webhook_deliveries group by event_id having count(*) <> 1`);
    expect(perEvent.rows).toEqual([]);
    const statuses = await eventually(async () => {
      const res = await client.query(`select status, count(*)::int as n from webhook_deliveries group by status`);
      return res.rows.length === 1 && res.rows[0].status === 'succeeded' ? res.rows : undefined;
    }, 30_000, 'every delivery recorded as succeeded');
    expect(statuses).toEqual([{ status: 'succeeded', n: BEFORE_KILL + WHILE_DOWN }]);
  } finally {
    await client.end();
  }
  const duplicates = received.length - new Set(received).size;
  console.log(`crash test: ${written.size} events, ${atKill.size} distinct delivered before the kill, ${received.length} requests in all, ${duplicates} duplicate(s) (at-least-once)`);

  second.child.kill('SIGTERM');
  await second.exited;
  expect(second.child.exitCode).toBe(0);
}, TIMEOUT_MS);

it('two dispatcher replicas on one database share the work: every event delivered exactly once', async () => {
  const boot = await bootstrap(t.baseUrl);
  const target = await startReceiver(() => 200, '/replicas', 5);
  try {
    await subscribe(boot, target.url, 'whsec_replicas');
    // A long lease: no claim can expire here, so a second delivery of one event would be a real double claim.
    const replicas = [startDispatcher(db.url, { EINV_SCHEDULER_LEASE_MS: '120000' }), startDispatcher(db.url, { EINV_SCHEDULER_LEASE_MS: '120000' })];
    children.push(...replicas);
    await eventually(async () => replicas.every((c) => c.output().includes('dispatcher ready')), 60_000, 'both replicas ready');
    const written = new Set<string>();
    await Promise.all(Array.from({ length: 4 }, async () => {
      for (let i = 0; i < 5; i++) {
        for (const e of await call(t.app.broker, touchCompany, { companyId: boot.company.id, type: 'document.received', count: 10 })) written.add(e.id);
      }
    }));
    await target.waitFor(written.size, 60_000);
    await new Promise((res) => setTimeout(res, 1_000));
    const received = target.requests.map((q) => q.headers['x-service-event-id'] as string);
    expect(received.length).toBe(200);
    expect(new Set(received)).toEqual(written);
    for (const c of replicas) { c.child.kill('SIGTERM'); await c.exited; }
    expect(replicas.map((c) => c.child.exitCode)).toEqual([0, 0]);
  } finally {
    await target.close();
  }
}, TIMEOUT_MS);

it('an attempt cut by kill -9 after its POST left is re-sent as the next attempt, never with the same number', async () => {
  const boot = await bootstrap(t.baseUrl);
  // The receiver holds every answer back, so the worker is killed while its request is out.
  const slow = await startReceiver(() => 200, '/cut', 8_000);
  try {
    await subscribe(boot, slow.url, 'whsec_cut');
    const first = startDispatcher(db.url);
    children.push(first);
    const [event] = await call(t.app.broker, touchCompany, { companyId: boot.company.id, type: 'document.sent', count: 1 });
    await slow.waitFor(1, 60_000);
    first.child.kill('SIGKILL');
    await first.exited;

    const second = startDispatcher(db.url);
    children.push(second);
    await slow.waitFor(2, 60_000);
    const [cut, resent] = slow.requests;
    expect(resent!.headers['x-service-event-id']).toBe(event!.id);
    expect(resent!.headers['x-service-delivery']).toBe(cut!.headers['x-service-delivery']);
    expect([cut!.headers['x-service-attempt'], resent!.headers['x-service-attempt']]).toEqual(['1', '2']);

    // Once recorded, the delivery log says what became of the cut attempt.
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const row = await eventually(async () => {
        const res = await client.query(`select status, attempts, attempt_log from webhook_deliveries where event_id = $1`, [event!.id]);
        return res.rows[0]?.status === 'succeeded' ? res.rows[0] : undefined;
      }, 30_000, 'the re-sent attempt recorded');
      expect(row.attempts).toBe(2);
      expect(row.attempt_log.map((a: { attempt: number; statusCode: number | null }) => [a.attempt, a.statusCode])).toEqual([[1, null], [2, 200]]);
    } finally {
      await client.end();
    }
    second.child.kill('SIGTERM');
    await second.exited;
  } finally {
    await slow.close();
  }
}, TIMEOUT_MS);
