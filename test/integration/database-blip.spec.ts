/**
 * A database blip under load: while sends, reads and the outbox dispatcher run, the database refuses
 * new connections and its open ones are killed, eight times over. Transactions die at every step
 * (begin, mid-way, commit), and each must hand its pooled connection back: afterwards more requests
 * than the pool holds succeed at once, the pool holds no connection nobody uses, and the app stops
 * promptly. (Kysely before 0.29.9 kept the connection of a transaction whose BEGIN or ROLLBACK failed:
 * ten such failures starved the pool and every later request, and the shutdown, waited forever.)
 */
import pg from 'pg';
import { startTestApp, api, bootstrap, type TestApp } from '../support/app.ts';
import { sandboxSendBody } from '../support/sandbox-send.ts';

process.env.EINV_DB_POOL_MAX = '6';

let t: TestApp | undefined;
afterAll(async () => { await t?.stop(); });

async function blip(databaseUrl: string): Promise<void> {
  const name = new URL(databaseUrl).pathname.slice(1);
  const admin = new pg.Client({ connectionString: process.env.EINV_TEST_PG_SERVER_URL });
  await admin.connect();
  try {
    for (let round = 0; round < 8; round++) {
      await new Promise((r) => setTimeout(r, 40 + round * 20));
      await admin.query(`alter database "${name}" allow_connections false`);
      await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [name]);
      await new Promise((r) => setTimeout(r, 20));
      await admin.query(`alter database "${name}" allow_connections true`);
    }
  } finally {
    await admin.query(`alter database "${name}" allow_connections true`).catch(() => undefined);
    await admin.end();
  }
}

it('every connection a failed transaction held goes back to the pool', async () => {
  t = await startTestApp();
  const seller = await bootstrap(t.baseUrl, { label: 'blip-seller' });
  const buyer = await bootstrap(t.baseUrl, { label: 'blip-buyer' });
  const app = t;
  let loading = true;
  let n = 0;
  const worker = async () => {
    while (loading) {
      const body = sandboxSendBody({ number: `BLIP-${n++}`, sellerVat: seller.company.vatNumber, buyerVat: buyer.company.vatNumber, to: buyer.company.id, lines: 1 });
      await api(app.baseUrl, 'POST', '/v1/documents/send', { key: seller.apiKey, body }).catch(() => undefined);
      await api(app.baseUrl, 'GET', '/v1/events?limit=5', { key: buyer.apiKey }).catch(() => undefined);
      await app.app.broker.call('events.drainOutbox').catch(() => undefined);
    }
  };
  const workers = Array.from({ length: 8 }, worker);
  await blip(t.databaseUrl);
  loading = false;
  await Promise.all(workers);

  // Twice the pool's size at once: with a leaked connection some of them would wait forever.
  const reads = await Promise.all(Array.from({ length: 12 }, () => api(app.baseUrl, 'GET', '/v1/events?limit=1', { key: seller.apiKey })));
  expect(reads.map((r) => r.status)).toEqual(Array(12).fill(200));
  const pool = await (t.app.orm!.em.getConnection() as unknown as { getNativeClient(): Promise<pg.Pool> }).getNativeClient();
  // Background loops (dispatcher, schedulers) borrow connections briefly; a leaked one never comes back.
  let inUse = Infinity;
  for (let i = 0; i < 100 && inUse > 0; i++) {
    inUse = pool.totalCount - pool.idleCount + pool.waitingCount;
    if (inUse > 0) await new Promise((r) => setTimeout(r, 50));
  }
  expect(inUse).toBe(0);

  const stopping = Date.now();
  await t.stop();
  t = undefined;
  expect(Date.now() - stopping).toBeLessThan(10_000);
}, 60_000);
