/**
 * Sandbox controls: POST /v1/sandbox/reset wipes the caller organization's rows of a scope
 * (documents with their pending deliveries and follow-ups; events with webhook deliveries and their
 * pending retries; stored Idempotency-Key answers) and nothing of any other organization, even the
 * other side of the same exchanges. Test keys only; `confirm: "yes"` required. An expired sandbox
 * organization is removed by the scheduler, service by service.
 */
import pg from 'pg';
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';
import { startReceiver, eventually, type Receiver } from '../support/webhook-receiver.ts';
import { makeLive } from '../support/live-key.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
process.env.EINV_RATE_LIMITS = 'free=100000';

let t: TestApp;
let db: pg.Client;
let failing: Receiver;
type Org = Awaited<ReturnType<typeof bootstrap>>;
let a: Org;
let b: Org;

const buyer = { name: 'Client SA', vatNumber: 'FR40303265045', address: { street: '1 rue de Paris', city: 'Paris', postalCode: '75001', country: 'FR' } };
let n = 0;
const invoice = (from: Org, to: Org) => ({
  type: 'invoice', format: 'json', to: to.company.peppolId,
  document: {
    number: `RST-${Date.now()}-${++n}`, issueDate: '2026-03-01', dueDate: '2026-04-01', buyerReference: 'PO-1',
    seller: { name: 'Acme SPRL', vatNumber: from.company.vatNumber, address: { street: 'Rue Neuve 1', city: 'Brussels', postalCode: '1000', country: 'BE' } }, buyer,
    lines: [{ description: 'Consulting', quantity: 1, unit: 'HUR', unitPrice: 100, vatRate: 21 }],
  },
});

async function count(sql: string, args: unknown[]): Promise<number> {
  return Number((await db.query(sql, args)).rows[0].n);
}
/** What an organization holds, by owning table (read behind the API to prove what a reset removed). */
async function holdings(org: Org) {
  const id = org.organizationId;
  return {
    documents: await count('select count(*) as n from documents where organization_id = $1', [id]),
    events: await count('select count(*) as n from events where organization_id = $1', [id]),
    deliveries: await count('select count(*) as n from webhook_deliveries where organization_id = $1', [id]),
    deliveryJobs: await count(`select count(*) as n from scheduled_jobs where kind = 'webhook.deliver' and ref in (select id from webhook_deliveries where organization_id = $1)`, [id]),
    idempotencyKeys: await count('select count(*) as n from idempotency_keys where organization_id = $1', [id]),
  };
}

async function send(from: Org, to: Org): Promise<string> {
  const res = await api(t.baseUrl, 'POST', '/v1/documents/send', { key: from.apiKey, body: invoice(from, to), headers: { 'idempotency-key': `send-${Date.now()}-${++n}` } });
  if (res.status !== 201) throw new Error(`send → ${res.status} ${res.text}`);
  return res.body.id;
}

beforeAll(async () => {
  t = await startTestApp();
  db = new pg.Client({ connectionString: t.databaseUrl });
  await db.connect();
  // A receiver that always fails: each delivery stays pending with its retry scheduled.
  failing = await startReceiver(() => 500);
  [a, b] = [await bootstrap(t.baseUrl, { label: 'reset-a' }), await bootstrap(t.baseUrl, { label: 'reset-b' })];
  for (const org of [a, b]) {
    const hook = await api(t.baseUrl, 'POST', '/v1/webhooks', { key: org.apiKey, body: { url: failing.url, events: ['*'] } });
    expect(hook.status).toBe(201);
  }
  // Exchanges both ways: each side holds its outgoing documents and the incoming copies of the other's.
  await send(a, b);
  await send(a, b);
  await send(b, a);
  // Settled: every document delivered, and every event of both sides fanned out to its webhook.
  await eventually(async () => {
    const [ha, hb] = [await holdings(a), await holdings(b)];
    const pending = await count(`select count(*) as n from documents where organization_id in ($1, $2) and delivery_status = 'pending'`, [a.organizationId, b.organizationId]);
    return pending === 0 && ha.documents === 3 && hb.documents === 3 && ha.events > 0 && ha.deliveries === ha.events && hb.deliveries === hb.events && ha.deliveryJobs === ha.deliveries && hb.deliveryJobs === hb.deliveries ? true : undefined;
  }, 20_000, 'the exchanges delivered and their webhook retries scheduled');
  // Settled for a moment: nothing more arrives.
  const settled = [await holdings(a), await holdings(b)];
  await new Promise((r) => setTimeout(r, 500));
  expect([await holdings(a), await holdings(b)]).toEqual(settled);
}, 60_000);

afterAll(async () => {
  await db?.end();
  await failing?.close();
  await t?.stop();
});

describe('POST /v1/sandbox/reset', () => {
  it('refuses without confirm "yes" or with an unknown scope, in the error envelope', async () => {
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/sandbox/reset', { key: a.apiKey, body: {} }), 400, 'MISSING_FIELD');
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/sandbox/reset', { key: a.apiKey, body: { confirm: 'YES' } }), 400, 'INVALID_ENUM');
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/sandbox/reset', { key: a.apiKey, body: { confirm: 'yes', scope: 'everything' } }), 400, 'INVALID_ENUM');
    // Nothing was wiped by the refused calls.
    expect((await holdings(a)).documents).toBe(3);
  });

  it('scope idempotency drops the organization\'s stored answers only', async () => {
    const before = [await holdings(a), await holdings(b)];
    expect(before[0]!.idempotencyKeys).toBeGreaterThan(0);
    const res = await api(t.baseUrl, 'POST', '/v1/sandbox/reset', { key: a.apiKey, body: { confirm: 'yes', scope: 'idempotency' } });
    expect(res.status).toBe(200);
    // A personal bootstrap key is bound to its company: its reset covers its company and its own stored answers.
    expect(res.body).toMatchObject({ organizationId: a.organizationId, scope: 'idempotency', deleted: { idempotencyKeys: before[0]!.idempotencyKeys } });
    expect(res.body.deleted.documents).toBeUndefined();
    expect((await holdings(a)).idempotencyKeys).toBe(0);
    expect(await holdings(b)).toEqual(before[1]);
  });

  it('scope documents wipes the organization\'s documents and their pending work; the other organization keeps its copies', async () => {
    const bBefore = await holdings(b);
    const bList = (await api(t.baseUrl, 'GET', '/v1/documents?limit=100', { key: b.apiKey })).body.data.map((d: { id: string }) => d.id).sort();
    // A pending follow-up of one of a's documents (scheduled work that must go with it).
    const doc = (await db.query('select id from documents where organization_id = $1 limit 1', [a.organizationId])).rows[0].id as string;
    await db.query(`insert into scheduled_jobs (id, kind, ref, company_id, due_at, claims, created_at) values (gen_random_uuid(), 'document.follow-up', $1, $2, now() + interval '1 day', 0, now())`, [`${doc}:0:report`, a.company.id]);

    const res = await api(t.baseUrl, 'POST', '/v1/sandbox/reset', { key: a.apiKey, body: { confirm: 'yes', scope: 'documents' } });
    expect(res.status).toBe(200);
    expect(res.body.deleted).toEqual({ documents: 3, scheduledJobs: 1 });
    expect((await api(t.baseUrl, 'GET', '/v1/documents', { key: a.apiKey })).body.data).toEqual([]);
    expect(await count(`select count(*) as n from scheduled_jobs where ref like $1`, [`${doc}%`])).toBe(0);
    // a's events stay (another scope); b is untouched, its copies of a's documents included.
    expect((await holdings(a)).events).toBeGreaterThan(0);
    expect(await holdings(b)).toEqual(bBefore);
    expect((await api(t.baseUrl, 'GET', '/v1/documents?limit=100', { key: b.apiKey })).body.data.map((d: { id: string }) => d.id).sort()).toEqual(bList);
  });

  it('scope events wipes the event log, webhook deliveries and their pending retries; webhooks stay; the other organization is untouched', async () => {
    const bBefore = await holdings(b);
    const aBefore = await holdings(a);
    expect(aBefore.deliveryJobs).toBeGreaterThan(0);
    const res = await api(t.baseUrl, 'POST', '/v1/sandbox/reset', { key: a.apiKey, body: { confirm: 'yes', scope: 'events' } });
    expect(res.status).toBe(200);
    expect(res.body.deleted).toMatchObject({ events: aBefore.events, webhookDeliveries: aBefore.deliveries, scheduledJobs: aBefore.deliveryJobs });
    expect(await holdings(a)).toMatchObject({ events: 0, deliveries: 0, deliveryJobs: 0 });
    expect((await api(t.baseUrl, 'GET', '/v1/events', { key: a.apiKey })).body.data).toEqual([]);
    expect((await api(t.baseUrl, 'GET', '/v1/webhooks', { key: a.apiKey })).body.data).toHaveLength(1);
    const bAfter = await holdings(b);
    // b's pending retries may move on meanwhile, never go away because of a's reset.
    expect({ ...bAfter, idempotencyKeys: bBefore.idempotencyKeys }).toEqual(bBefore);
  });

  it('an organization-wide key resets the whole organization (scope all); live keys are refused', async () => {
    const plat = await bootstrap(t.baseUrl, { label: 'reset-plat', keyType: 'platform' });
    const res = await api(t.baseUrl, 'POST', '/v1/sandbox/reset', { key: plat.apiKey, body: { confirm: 'yes' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ organizationId: plat.organizationId, companyId: null, scope: 'all' });
    expect(Object.keys(res.body.deleted).sort()).toEqual(['documents', 'events', 'idempotencyKeys', 'payments', 'scheduledJobs', 'taggings', 'webhookDeliveries']);

    const live = await bootstrap(t.baseUrl, { label: 'reset-live' });
    await makeLive(t.databaseUrl, live.apiKey);
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/sandbox/reset', { key: live.apiKey, body: { confirm: 'yes' } }), 403, 'TEST_MODE_ONLY');
  });
});

describe('sandbox expiry', () => {
  it('bootstrap writes the organization\'s expiry; once due, the scheduler removes it and its rows, and nothing else', async () => {
    const doomed = await bootstrap(t.baseUrl, { label: 'reset-doomed' });
    const res = await api(t.baseUrl, 'GET', '/v1/me', { key: doomed.apiKey });
    expect(res.status).toBe(200);
    const job = (await db.query(`select due_at from scheduled_jobs where kind = 'sandbox.expire' and ref = $1`, [doomed.organizationId])).rows[0];
    const org = (await db.query('select expires_at from organizations where id = $1', [doomed.organizationId])).rows[0];
    expect(job.due_at.toISOString()).toBe(org.expires_at.toISOString());
    const bDocuments = (await holdings(b)).documents;
    expect((await api(t.baseUrl, 'POST', '/v1/sandbox/clock/advance', { key: doomed.apiKey, body: { companyId: doomed.company.id, by: '1h' } })).status).toBe(200);
    await send(doomed, b);
    await eventually(async () => ((await holdings(doomed)).documents === 1 && (await holdings(b)).documents === bDocuments + 1 ? true : undefined), 15_000, 'the doomed organization\'s document delivered');

    await eventually(async () => (await count('select count(*) as n from request_log where organization_id = $1', [doomed.organizationId])) > 0 || undefined, 5_000, 'its request log written');
    expect(await count('select count(*) as n from company_clocks where company_id = $1', [doomed.company.id])).toBe(1);
    // Time passes: the organization's expiry (and its job) is now.
    await db.query('update organizations set expires_at = now() - interval \'1 second\' where id = $1', [doomed.organizationId]);
    await db.query(`update scheduled_jobs set due_at = now() where kind = 'sandbox.expire' and ref = $1`, [doomed.organizationId]);
    await eventually(async () => (await count('select count(*) as n from organizations where id = $1', [doomed.organizationId])) === 0 || undefined, 15_000, 'the expired organization removed');
    expect(await holdings(doomed)).toEqual({ documents: 0, events: 0, deliveries: 0, deliveryJobs: 0, idempotencyKeys: 0 });
    expect(await count(`select count(*) as n from scheduled_jobs where ref = $1 or company_id = $2`, [doomed.organizationId, doomed.company.id])).toBe(0);
    // Its request log and its company's sandbox clock go with it, through their services.
    await eventually(async () => (await count('select count(*) as n from company_clocks where company_id = $1', [doomed.company.id])) === 0 || undefined, 5_000, 'the company clock dropped');
    expect(await count('select count(*) as n from request_log where organization_id = $1', [doomed.organizationId])).toBe(0);
    // Its key is gone with it; b received a's document and keeps it.
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/me', { key: doomed.apiKey }), 401, 'INVALID_TOKEN');
    expect((await holdings(b)).documents).toBe(bDocuments + 1);
  }, 40_000);
});
