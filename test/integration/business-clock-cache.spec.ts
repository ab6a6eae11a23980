/**
 * Business time is cached per process (services/shared/clock.ts): a send reads its company's offset
 * once per period instead of five times. The cache never hides a clock change made through the
 * API: the clock service forgets the offset before it answers, and the CLOCK_CHANGED_EVENT
 * broadcast makes every other process forget it too; a row changed behind the API's back is
 * seen once EINV_CLOCK_CACHE_TTL_MS has passed.
 */
import pg from 'pg';
import { startTestApp, api, bootstrap, type TestApp } from '../support/app.ts';
import { CLOCK_CHANGED_EVENT, clockOffsetOf } from '../../services/shared/clock.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
process.env.EINV_CLOCK_CACHE_TTL_MS = '60000';

let t: TestApp;
let db: pg.Client;
beforeAll(async () => {
  t = await startTestApp();
  db = new pg.Client({ connectionString: t.databaseUrl });
  await db.connect();
});
afterAll(async () => {
  await db.end();
  await t.stop();
  delete process.env.EINV_CLOCK_CACHE_TTL_MS;
});

const em = () => t.app.orm!.em.fork() as unknown as Parameters<typeof clockOffsetOf>[0];
const DAY = 86_400;

it('a clock advanced through the API is read at once, although the old offset was cached', async () => {
  const s = await bootstrap(t.baseUrl, { label: 'clock-cache-a' });
  expect(await clockOffsetOf(em(), s.company.id)).toBe(0); // cached: no row

  const adv = await api(t.baseUrl, 'POST', '/v1/sandbox/clock/advance', { key: s.apiKey, body: { companyId: s.company.id, by: '2d' } });
  expect(adv.status).toBe(200);
  expect(await clockOffsetOf(em(), s.company.id)).toBe(2 * DAY);

  const reset = await api(t.baseUrl, 'POST', '/v1/sandbox/clock/reset', { key: s.apiKey, body: { companyId: s.company.id } });
  expect(reset.status).toBe(200);
  expect(await clockOffsetOf(em(), s.company.id)).toBe(0);
});

it('serves a cached offset until the clock-changed broadcast, which every process hears', async () => {
  const s = await bootstrap(t.baseUrl, { label: 'clock-cache-b' });
  expect(await clockOffsetOf(em(), s.company.id)).toBe(0);

  // A row written behind the API's back is not seen while the cached value lives…
  await db.query('insert into company_clocks (company_id, offset_seconds, updated_at) values ($1, $2, now())', [s.company.id, 3 * DAY]);
  expect(await clockOffsetOf(em(), s.company.id)).toBe(0);

  // …and is as soon as the broadcast a clock change sends arrives (here from another "replica").
  await t.app.broker.broadcast(CLOCK_CHANGED_EVENT, { companyId: s.company.id });
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(await clockOffsetOf(em(), s.company.id)).toBe(3 * DAY);
});
