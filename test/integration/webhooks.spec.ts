/**
 * Events end to end on the real app: a small business service writes events through the outbox in
 * its own transaction; the real dispatcher and webhook worker deliver them, signed, to real
 * receivers on 127.0.0.1; retries are driven by the sandbox virtual clock, not by waiting.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';
import { makeLive as makeLiveKey } from '../support/live-key.ts';
import { startReceiver, eventually, type Receiver } from '../support/webhook-receiver.ts';
import { EmitterService, touchCompany, type TouchParams } from '../support/event-emitter.service.ts';
import { call } from '../../services/shared/call.ts';
import { newId } from '../../services/shared/ids.ts';
import { verifyWebhookSignature } from '../../services/webhooks/signature.ts';
import { API_VERSION } from '../../services/events/events.contract.ts';
import { loadConfig } from '../../services/shared/config.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';

let t: TestApp;
const receivers: Receiver[] = [];
/** A broker subscriber: what the dispatcher publishes on the broker, by event type. */
const published: Array<{ type: string; envelope: { id: string } }> = [];
const ListenerService = {
  name: 'test-listener',
  events: {
    'lifecycle.updated'(ctx: { params: { id: string } }) { published.push({ type: 'lifecycle.updated', envelope: ctx.params }); },
    'company.imported'(ctx: { params: { id: string } }) { published.push({ type: 'company.imported', envelope: ctx.params }); },
  },
};
beforeAll(async () => { t = await startTestApp({ extraServices: [EmitterService, ListenerService] }); });
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await t.stop();
});

async function receiver(respond?: Receiver['respond']): Promise<Receiver> {
  const r = await startReceiver(respond);
  receivers.push(r);
  return r;
}

const emit = (params: TouchParams) => call(t.app.broker, touchCompany, params);

async function sandboxWithHook(url: string, events: string[] = ['*'], body: Record<string, unknown> = {}) {
  const boot = await bootstrap(t.baseUrl, body);
  const created = await api(t.baseUrl, 'POST', '/v1/webhooks', { key: boot.apiKey, body: { url, events } });
  expect(created.status).toBe(201);
  return { ...boot, hook: created.body };
}

async function sql<T = Record<string, unknown>>(text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: t.databaseUrl });
  await client.connect();
  try { return (await client.query(text, values)).rows as T[]; } finally { await client.end(); }
}

const makeLive = (apiKey: string) => makeLiveKey(t.databaseUrl, apiKey);

/** Waits until the worker has recorded `n` attempts of the webhook's delivery (so its retry is scheduled). */
async function recorded(hookId: string, n: number): Promise<void> {
  await eventually(async () => {
    const rows = await sql<{ attempts: number }>(`select attempts from webhook_deliveries where webhook_id = $1 and not test order by id desc limit 1`, [hookId]);
    return (rows[0]?.attempts ?? 0) >= n;
  }, 15_000, `attempt ${n} recorded`);
}

/** The receiver recipe exactly as the README documents it: its code block, loaded as a module. */
async function readmeRecipe(header: string, rawBody: string, secret: string): Promise<boolean> {
  const readme = readFileSync(join(process.cwd(), 'README.md'), 'utf8');
  const block = /\*\*Verifying a signature\*\*[\s\S]*?```js\n([\s\S]*?)```/.exec(readme)?.[1];
  if (!block) throw new Error('README has no signature verification recipe');
  const dir = mkdtempSync(join(tmpdir(), 'einv-recipe-'));
  try {
    writeFileSync(join(dir, 'verify.mjs'), block);
    const { verify } = await import(pathToFileURL(join(dir, 'verify.mjs')).href) as { verify(h: string, b: string, s: string): boolean };
    return verify(header, rawBody, secret);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('webhook subscriptions', () => {
  it('creates (secret once, Location), lists, reads, pauses and deletes a webhook', async () => {
    const { apiKey, company } = await bootstrap(t.baseUrl);
    const created = await api(t.baseUrl, 'POST', '/v1/webhooks', { key: apiKey, body: { url: 'http://127.0.0.1:9/hooks', events: ['document.sent', 'document.failed'] } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ url: 'http://127.0.0.1:9/hooks', events: ['document.sent', 'document.failed'], status: 'active', failureCount: 0, livemode: false, companyId: company.id });
    expect(created.body.id).toMatch(/^wh_/);
    expect(created.body.secret).toMatch(/^whsec_/);
    expect(created.headers.get('location')).toBe(`/v1/webhooks/${created.body.id}`);
    const got = await api(t.baseUrl, 'GET', `/v1/webhooks/${created.body.id}`, { key: apiKey });
    expect(got.status).toBe(200);
    expect(got.body.secret).toBeUndefined();
    const list = await api(t.baseUrl, 'GET', '/v1/webhooks', { key: apiKey });
    expect(list.body.data.map((w: { id: string }) => w.id)).toEqual([created.body.id]);
    const paused = await api(t.baseUrl, 'PATCH', `/v1/webhooks/${created.body.id}`, { key: apiKey, body: { status: 'paused' } });
    expect(paused.body.status).toBe('paused');
    expectEnvelope(await api(t.baseUrl, 'PATCH', `/v1/webhooks/${created.body.id}`, { key: apiKey, body: { status: 'broken' } }), 400, 'INVALID_ENUM');
    const other = await bootstrap(t.baseUrl);
    expectEnvelope(await api(t.baseUrl, 'GET', `/v1/webhooks/${created.body.id}`, { key: other.apiKey }), 404, 'RESOURCE_NOT_FOUND');
    const del = await api(t.baseUrl, 'DELETE', `/v1/webhooks/${created.body.id}`, { key: apiKey });
    expect(del.body).toEqual({ id: created.body.id, deleted: true });
    expectEnvelope(await api(t.baseUrl, 'GET', `/v1/webhooks/${created.body.id}`, { key: apiKey }), 404, 'RESOURCE_NOT_FOUND');
  });

  it('refuses unknown event names, and private or loopback targets for live keys', async () => {
    const { apiKey } = await bootstrap(t.baseUrl);
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/webhooks', { key: apiKey, body: { url: 'https://example.com/h', events: ['document.exploded'] } }), 400, 'INVALID_ENUM');
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/webhooks', { key: apiKey, body: { url: 'ftp://example.com/h', events: ['*'] } }), 400, 'INVALID_REQUEST');
    // Turn this key into a live key: live webhooks must be HTTPS to public addresses.
    await makeLive(apiKey);
    for (const url of ['https://127.0.0.1/h', 'https://10.1.2.3/h', 'https://[::1]/h', 'https://localhost/h', 'http://example.com/h']) {
      const res = await api(t.baseUrl, 'POST', '/v1/webhooks', { key: apiKey, body: { url, events: ['*'] } });
      expectEnvelope(res, 400, 'INVALID_REQUEST');
      expect(res.body.error.details[0].field).toBe('url');
    }
  });
});

describe('outbox, dispatcher and signed deliveries', () => {
  it('delivers a committed event with the spec headers and a signature that verifies with the documented recipe', async () => {
    const r = await receiver();
    const s = await sandboxWithHook(r.url, ['document.sent']);
    const [event] = await emit({ companyId: s.company.id, type: 'document.sent', data: { documentId: 'doc_1', type: 'invoice', sentAt: '2026-11-22T10:00:00Z' } });
    await r.waitFor(1);
    const got = r.requests[0]!;
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['user-agent']).toMatch(/^einvoicing-exchange-webhooks\//);
    expect(got.headers['x-service-event']).toBe('document.sent');
    expect(got.headers['x-service-event-id']).toBe(event!.id);
    expect(got.headers['x-service-delivery']).toMatch(/^dlv_[0-9A-Z]{26}$/);
    expect(got.headers['x-service-attempt']).toBe('1');
    const body = JSON.parse(got.rawBody);
    expect(body).toEqual({ id: event!.id, type: 'document.sent', livemode: false, createdAt: expect.any(String), apiVersion: API_VERSION, data: { documentId: 'doc_1', type: 'invoice', sentAt: '2026-11-22T10:00:00Z', seq: 0 } });
    expect(body.id).toMatch(/^evt_/);
    expect(body.apiVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const header = got.headers['x-service-signature'] as string;
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verifyWebhookSignature(header, got.rawBody, s.hook.secret)).toBe(true);
    expect(await readmeRecipe(header, got.rawBody, s.hook.secret)).toBe(true);
    expect(await readmeRecipe(header, got.rawBody, 'whsec_other')).toBe(false);
    // Wrong secret, altered body, stale timestamp: refused.
    expect(verifyWebhookSignature(header, got.rawBody, 'whsec_other')).toBe(false);
    expect(verifyWebhookSignature(header, got.rawBody.replace('doc_1', 'doc_2'), s.hook.secret)).toBe(false);
    expect(verifyWebhookSignature(header, got.rawBody, s.hook.secret, { now: Math.floor(Date.now() / 1000) + 301 })).toBe(false);
    const log = await eventually(async () => {
      const res = await api(t.baseUrl, 'GET', `/v1/webhooks/${s.hook.id}/deliveries`, { key: s.apiKey });
      return res.body.data[0]?.status === 'succeeded' ? res.body : undefined;
    });
    expect(log.data[0]).toMatchObject({ eventId: event!.id, eventType: 'document.sent', attempts: 1, lastStatusCode: 200, test: false });
    expect(log.data[0].attemptLog).toEqual([{ attempt: 1, at: expect.any(String), statusCode: 200, latencyMs: expect.any(Number), error: null }]);
  });

  it('writes nothing when the business transaction rolls back; sends only subscribed types; never delivers log-only ones', async () => {
    const r = await receiver();
    const s = await sandboxWithHook(r.url, ['document.received']);
    await expect(emit({ companyId: s.company.id, type: 'document.received', fail: true })).rejects.toThrow(/rolled back/);
    await emit({ companyId: s.company.id, type: 'document.sent' });
    await emit({ companyId: s.company.id, type: 'company.imported' });
    const [wanted] = await emit({ companyId: s.company.id, type: 'document.received' });
    await r.waitFor(1);
    await new Promise((res) => setTimeout(res, 1_500));
    expect(r.requests.map((q) => q.headers['x-service-event-id'])).toEqual([wanted!.id]);
    const log = await api(t.baseUrl, 'GET', '/v1/events', { key: s.apiKey });
    expect(log.body.data.map((e: { type: string }) => e.type)).toEqual(['document.received', 'company.imported', 'document.sent']);
    const metadata = await sql<{ metadata: { touched: number } }>(`select metadata from companies where id = $1`, [s.company.id]);
    expect(metadata[0]!.metadata.touched).toBe(3);
  });

  it('publishes every committed event on the broker under its type (log-only ones too)', async () => {
    const { company } = await bootstrap(t.baseUrl);
    const [lifecycle] = await emit({ companyId: company.id, type: 'lifecycle.updated', data: { documentId: 'doc_7' } });
    const [imported] = await emit({ companyId: company.id, type: 'company.imported' });
    await expect(emit({ companyId: company.id, type: 'lifecycle.updated', fail: true })).rejects.toThrow(/rolled back/);
    await eventually(async () => published.some((p) => p.envelope.id === imported!.id), 10_000, 'broker publication');
    expect(published.find((p) => p.envelope.id === lifecycle!.id)).toEqual({ type: 'lifecycle.updated', envelope: lifecycle });
    expect(published.filter((p) => p.type === 'lifecycle.updated' && (p.envelope as unknown as { data: { documentId?: string } }).data.documentId === undefined)).toEqual([]);
  });

  it('adds data.company.id and the tenant metadata for platform-level webhooks', async () => {
    const r = await receiver();
    const s = await sandboxWithHook(r.url, ['*'], { keyType: 'platform' });
    expect(s.hook.companyId).toBeNull();
    await emit({ companyId: s.company.id, type: 'company.smp_registered', data: { companyId: s.company.id, peppolId: s.company.peppolId } });
    await r.waitFor(1);
    const body = JSON.parse(r.requests[0]!.rawBody);
    expect(body.data).toMatchObject({ companyId: s.company.id, company: { id: s.company.id }, metadata: { touched: 1 } });
  });

  it('an event whose transaction commits after a later one is still delivered, and each exactly once (the feed never skips behind its cursor)', async () => {
    const r = await receiver();
    const s = await sandboxWithHook(r.url, ['document.sent']);
    // A writer that has taken its transaction id and an earlier event id, but commits last.
    const slow = new pg.Client({ connectionString: t.databaseUrl });
    await slow.connect();
    const earlyId = newId('event');
    try {
      await slow.query('begin');
      await slow.query(
        `insert into events (id, organization_id, company_id, type, livemode, api_version, data, created_at) values ($1, $2, $3, 'document.sent', false, $4, $5, now())`,
        [earlyId, s.organizationId, s.company.id, API_VERSION, JSON.stringify({ which: 'early' })]);
      const [late] = await emit({ companyId: s.company.id, type: 'document.sent', data: { which: 'late' } });
      expect(late!.id > earlyId).toBe(true);
      // While the older transaction is open, the feed holds the later event back rather than pass it.
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      expect(r.requests).toHaveLength(0);
      await slow.query('commit');
    } finally {
      await slow.end();
    }
    await r.waitFor(2);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const delivered = r.requests.map((q) => JSON.parse(q.rawBody) as { id: string; data: { which: string } });
    expect(delivered.map((e) => e.data.which).sort()).toEqual(['early', 'late']);
    expect(new Set(delivered.map((e) => e.id)).size).toBe(2);
    const rows = await sql<{ n: number }>(`select count(*)::int as n from webhook_deliveries where webhook_id = $1`, [s.hook.id]);
    expect(rows[0]!.n).toBe(2);
  });
});

describe('event log', () => {
  it('lists every event with a type filter and cursor pages; ack marks them, they stay listable', async () => {
    const { apiKey, company } = await bootstrap(t.baseUrl);
    await emit({ companyId: company.id, type: 'document.sent', count: 3 });
    await emit({ companyId: company.id, type: 'company.import.pending' });
    const first = await api(t.baseUrl, 'GET', '/v1/events?limit=2', { key: apiKey });
    expect(first.status).toBe(200);
    expect(first.body.data).toHaveLength(2);
    expect(first.body.hasMore).toBe(true);
    const second = await api(t.baseUrl, 'GET', `/v1/events?limit=2&cursor=${first.body.cursor}`, { key: apiKey });
    expect(second.body.data).toHaveLength(2);
    expect(second.body.hasMore).toBe(false);
    const all = [...first.body.data, ...second.body.data];
    expect(new Set(all.map((e: { id: string }) => e.id)).size).toBe(4);
    const sent = await api(t.baseUrl, 'GET', '/v1/events?type=document.sent', { key: apiKey });
    expect(sent.body.data.map((e: { type: string }) => e.type)).toEqual(['document.sent', 'document.sent', 'document.sent']);
    expect(sent.body.data[0]).toMatchObject({ livemode: false, apiVersion: API_VERSION, companyId: company.id, acknowledged: false, acknowledgedAt: null });
    const ids = sent.body.data.slice(0, 2).map((e: { id: string }) => e.id);
    const ack = await api(t.baseUrl, 'POST', '/v1/events/ack', { key: apiKey, body: { eventIds: [...ids, 'evt_unknown'] } });
    expect(ack.body).toEqual({ acknowledged: 2, eventIds: ids, notFound: ['evt_unknown'] });
    const after = await api(t.baseUrl, 'GET', '/v1/events?type=document.sent', { key: apiKey });
    expect(after.body.data.map((e: { acknowledged: boolean }) => e.acknowledged)).toEqual([true, true, false]);
    const other = await bootstrap(t.baseUrl);
    expect((await api(t.baseUrl, 'GET', '/v1/events', { key: other.apiKey })).body.data).toEqual([]);
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/events/ack', { key: apiKey, body: {} }), 400, 'MISSING_FIELD');
  });
});

describe('retries on the virtual clock', () => {
  it('a receiver failing 7 times then succeeding gets the event on attempt 8; each retry waits for the clock', async () => {
    const r = await receiver((n) => (n <= 7 ? 503 : 200));
    const s = await sandboxWithHook(r.url, ['document.delivered']);
    const [event] = await emit({ companyId: s.company.id, type: 'document.delivered', data: { documentId: 'doc_9' } });
    await r.waitFor(1);
    for (let attempt = 2; attempt <= 8; attempt++) {
      await recorded(s.hook.id, attempt - 1);
      // Not due on wall time: the next attempt waits 30 s to 12 h of business time.
      await new Promise((res) => setTimeout(res, attempt === 2 ? 1_500 : 200));
      expect(r.requests).toHaveLength(attempt - 1);
      const adv = await api(t.baseUrl, 'POST', '/v1/sandbox/clock/advance', { key: s.apiKey, body: { companyId: s.company.id, by: '1d' } });
      expect(adv.status).toBe(200);
      await r.waitFor(attempt);
    }
    expect(r.requests.map((q) => q.headers['x-service-attempt'])).toEqual(['1', '2', '3', '4', '5', '6', '7', '8']);
    expect(new Set(r.requests.map((q) => q.headers['x-service-event-id']))).toEqual(new Set([event!.id]));
    expect(new Set(r.requests.map((q) => q.headers['x-service-delivery'])).size).toBe(1);
    for (const q of r.requests) expect(verifyWebhookSignature(q.headers['x-service-signature'] as string, q.rawBody, s.hook.secret)).toBe(true);
    const d = await eventually(async () => {
      const res = await api(t.baseUrl, 'GET', `/v1/webhooks/${s.hook.id}/deliveries`, { key: s.apiKey });
      return res.body.data[0]?.status === 'succeeded' ? res.body.data[0] : undefined;
    });
    expect(d.attempts).toBe(8);
    expect(d.attemptLog.map((a: { statusCode: number }) => a.statusCode)).toEqual([503, 503, 503, 503, 503, 503, 503, 200]);
    const hook = await api(t.baseUrl, 'GET', `/v1/webhooks/${s.hook.id}`, { key: s.apiKey });
    expect(hook.body).toMatchObject({ status: 'active', failureCount: 0 });
  }, 60_000);

  it('8 failures pause the webhook; the event stays in the log and is replayed once the webhook is active again', async () => {
    let healthy = false;
    const r = await receiver(() => (healthy ? 200 : 500));
    const s = await sandboxWithHook(r.url, ['*']);
    const [event] = await emit({ companyId: s.company.id, type: 'lifecycle.updated', data: { documentId: 'doc_3', previousStatus: 'received', currentStatus: 'approved' } });
    await r.waitFor(1);
    for (let attempt = 2; attempt <= 8; attempt++) {
      await recorded(s.hook.id, attempt - 1);
      await api(t.baseUrl, 'POST', '/v1/sandbox/clock/advance', { key: s.apiKey, body: { companyId: s.company.id, by: '1d' } });
      await r.waitFor(attempt);
    }
    const paused = await eventually(async () => {
      const res = await api(t.baseUrl, 'GET', `/v1/webhooks/${s.hook.id}`, { key: s.apiKey });
      return res.body.status === 'paused' ? res.body : undefined;
    });
    expect(paused.failureCount).toBe(8);
    const log = await api(t.baseUrl, 'GET', `/v1/webhooks/${s.hook.id}/deliveries?status=failed`, { key: s.apiKey });
    expect(log.body.data[0]).toMatchObject({ eventId: event!.id, attempts: 8, status: 'failed', nextAttemptAt: null });
    // No ninth attempt, however far the clock moves.
    await api(t.baseUrl, 'POST', '/v1/sandbox/clock/advance', { key: s.apiKey, body: { companyId: s.company.id, by: '1y' } });
    await new Promise((res) => setTimeout(res, 1_200));
    expect(r.requests).toHaveLength(8);
    expect((await api(t.baseUrl, 'GET', '/v1/events?type=lifecycle.updated', { key: s.apiKey })).body.data[0].id).toBe(event!.id);

    expectEnvelope(await api(t.baseUrl, 'POST', `/v1/webhooks/${s.hook.id}/replay`, { key: s.apiKey, body: { eventId: event!.id } }), 409, 'INVALID_TRANSITION');
    healthy = true;
    expect((await api(t.baseUrl, 'PATCH', `/v1/webhooks/${s.hook.id}`, { key: s.apiKey, body: { status: 'active' } })).body).toMatchObject({ status: 'active', failureCount: 0 });
    const replay = await api(t.baseUrl, 'POST', `/v1/webhooks/${s.hook.id}/replay`, { key: s.apiKey, body: { eventId: event!.id } });
    expect(replay.status).toBe(202);
    expect(replay.body).toMatchObject({ eventId: event!.id, status: 'pending', attempts: 0 });
    await r.waitFor(9);
    expect(r.requests[8]!.headers).toMatchObject({ 'x-service-event-id': event!.id, 'x-service-attempt': '1', 'x-service-delivery': replay.body.id });
  }, 60_000);

  it('a slow receiver does not hold back the others: fast outcomes are recorded while it is still answering', async () => {
    const fast = await receiver();
    const slow = await startReceiver(() => 200, '/slow', 12_000);
    receivers.push(slow);
    const s = await sandboxWithHook(fast.url, ['*']);
    const slowHook = await api(t.baseUrl, 'POST', '/v1/webhooks', { key: s.apiKey, body: { url: slow.url, events: ['*'] } });
    const [event] = await emit({ companyId: s.company.id, type: 'document.sent' });
    const logOf = async (id: string) => {
      const res = await api(t.baseUrl, 'GET', `/v1/webhooks/${id}/deliveries`, { key: s.apiKey });
      if (res.status !== 200) throw new Error(`delivery log: ${res.status} ${res.text}`);
      return res.body.data[0];
    };
    const fastDone = await eventually(async () => { const d = await logOf(s.hook.id); return d?.status === 'succeeded' ? d : undefined; }, 8_000, 'the fast delivery recorded', 250);
    expect(fastDone.eventId).toBe(event!.id);
    expect(await logOf(slowHook.body.id)).toMatchObject({ eventId: event!.id, status: 'pending', attempts: 0 });
    await slow.waitFor(1);
    const slowDone = await eventually(async () => { const d = await logOf(slowHook.body.id); return d?.status === 'succeeded' ? d : undefined; }, 20_000, 'the slow delivery recorded', 500);
    expect(slowDone.lastLatencyMs).toBeGreaterThanOrEqual(11_900);
  }, 60_000);

  it('a redirect is not followed and counts as a failure', async () => {
    const target = await receiver();
    const r = await receiver(() => ({ status: 302, headers: { location: target.url } }));
    const s = await sandboxWithHook(r.url, ['*']);
    await emit({ companyId: s.company.id, type: 'document.updated' });
    await r.waitFor(1);
    const d = await eventually(async () => {
      const res = await api(t.baseUrl, 'GET', `/v1/webhooks/${s.hook.id}/deliveries`, { key: s.apiKey });
      return res.body.data[0]?.attempts === 1 ? res.body.data[0] : undefined;
    });
    expect(d).toMatchObject({ status: 'pending', lastStatusCode: 302, lastError: expect.stringMatching(/redirect/) });
    expect(target.requests).toHaveLength(0);
  });
});

describe('secrets, test events and the sandbox clock', () => {
  it('during a rotation overlap both secrets sign; "send test event" reports the outcome at once', async () => {
    const r = await receiver();
    const s = await sandboxWithHook(r.url, ['*']);
    const rotated = await api(t.baseUrl, 'POST', `/v1/webhooks/${s.hook.id}/rotate-secret`, { key: s.apiKey, body: { overlapSeconds: 3600 } });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(s.hook.secret);
    expect(new Date(rotated.body.previousSecretExpiresAt).getTime()).toBeGreaterThan(Date.now() + 3_500_000);
    const test = await api(t.baseUrl, 'POST', `/v1/webhooks/${s.hook.id}/test`, { key: s.apiKey });
    expect(test.status).toBe(200);
    expect(test.body).toMatchObject({ eventType: 'webhook.test', status: 'succeeded', attempts: 1, lastStatusCode: 200, test: true });
    const got = r.requests[0]!;
    expect(got.headers['x-service-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(verifyWebhookSignature(got.headers['x-service-signature'] as string, got.rawBody, rotated.body.secret)).toBe(true);
    expect(verifyWebhookSignature(got.headers['x-service-signature'] as string, got.rawBody, s.hook.secret)).toBe(true);
    expect(JSON.parse(got.rawBody)).toMatchObject({ type: 'webhook.test', data: { webhookId: s.hook.id } });
    // A rotation without overlap: only the new secret signs.
    const hard = await api(t.baseUrl, 'POST', `/v1/webhooks/${s.hook.id}/rotate-secret`, { key: s.apiKey, body: { overlapSeconds: 0 } });
    await api(t.baseUrl, 'POST', `/v1/webhooks/${s.hook.id}/test`, { key: s.apiKey });
    const second = r.requests[1]!;
    expect(verifyWebhookSignature(second.headers['x-service-signature'] as string, second.rawBody, hard.body.secret)).toBe(true);
    expect(verifyWebhookSignature(second.headers['x-service-signature'] as string, second.rawBody, rotated.body.secret)).toBe(false);
    expect((await api(t.baseUrl, 'GET', '/v1/events', { key: s.apiKey })).body.data).toEqual([]);
  });

  it('advance moves business time (event createdAt) by compact units; reset returns to wall time; test keys and own companies only', async () => {
    const { apiKey, company } = await bootstrap(t.baseUrl);
    const adv = await api(t.baseUrl, 'POST', '/v1/sandbox/clock/advance', { key: apiKey, body: { companyId: company.id, by: '2w' } });
    expect(adv.status).toBe(200);
    expect(adv.body).toMatchObject({ companyId: company.id, offsetSeconds: 14 * 86_400 });
    const twice = await api(t.baseUrl, 'POST', '/v1/sandbox/clock/advance', { key: apiKey, body: { companyId: company.id, by: '1m' } });
    expect(twice.body.offsetSeconds).toBe(44 * 86_400);
    const [event] = await emit({ companyId: company.id, type: 'document.sent' });
    const skew = new Date(event!.createdAt).getTime() - Date.now();
    expect(Math.abs(skew - 44 * 86_400_000)).toBeLessThan(60_000);
    const reset = await api(t.baseUrl, 'POST', '/v1/sandbox/clock/reset', { key: apiKey, body: { companyId: company.id } });
    expect(reset.body.offsetSeconds).toBe(0);
    expect(Math.abs(new Date(reset.body.now).getTime() - Date.now())).toBeLessThan(60_000);
    for (const by of ['1s', '0d', '3', 'd', '1 h', '1H']) {
      expectEnvelope(await api(t.baseUrl, 'POST', '/v1/sandbox/clock/advance', { key: apiKey, body: { companyId: company.id, by } }), 400, 'INVALID_REQUEST');
    }
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/sandbox/clock/advance', { key: apiKey, body: { companyId: company.id } }), 400, 'MISSING_FIELD');
    const other = await bootstrap(t.baseUrl, { keyType: 'platform' });
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/sandbox/clock/advance', { key: other.apiKey, body: { companyId: company.id, by: '1h' } }), 404, 'COMPANY_NOT_FOUND');
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/sandbox/clock/advance', { key: apiKey, body: { companyId: other.company.id, by: '1h' } }), 403, 'COMPANY_FORBIDDEN');
    await makeLive(apiKey);
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/sandbox/clock/reset', { key: apiKey, body: { companyId: company.id } }), 403, 'TEST_MODE_ONLY');
  });
});
