/**
 * Monthly document quotas and the payload-derived idempotency key. No sending operation exists yet
 * (documents are another issue), so this test publishes a stand-in send through the real gateway
 * (`gatewayPublishing`) with the two contract flags a send will carry: `consumesDocumentQuota`
 * and `idempotencyKeyFromPayload`. The quota store is the real one (PostgreSQL).
 */
import pg from 'pg';
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';
import { defineAction, implement, STRICT_REMOVE } from '../../services/shared/contract.ts';
import { principalOf } from '../../services/shared/auth.ts';
import { DomainError } from '../../services/shared/errors.ts';
import { call } from '../../services/shared/call.ts';
import { SERVICE_CATALOGUE } from '../../services/index.ts';
import { gatewayPublishing } from '../../services/gateway/gateway.service.ts';
import { documentQuota, consumeDocumentQuota } from '../../services/limits/limits.contract.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';

const executions: string[] = [];
const send = defineAction<{ number: string }, { id: string; number: string; organizationId: string }>('quotatest', 'send', {
  params: { ...STRICT_REMOVE, number: { type: 'string', min: 1 } },
  http: {
    method: 'POST', path: '/v1/quota-test/send', access: 'send', status: 201, tag: 'Test', summary: 'Stand-in for POST /v1/documents/send',
    location: (r: { id: string }) => `/v1/quota-test/${r.id}`, consumesDocumentQuota: true, idempotencyKeyFromPayload: true,
    response: { type: 'object' },
  },
});
const sendBatch = defineAction<{ numbers: string[] }, { sent: number }>('quotatest', 'sendBatch', {
  params: { ...STRICT_REMOVE, numbers: { type: 'array', items: 'string', min: 1, max: 100 } },
  http: {
    method: 'POST', path: '/v1/quota-test/send/batch', access: 'send', tag: 'Test', summary: 'Stand-in for POST /v1/documents/send/batch',
    consumesDocumentQuota: (params) => (params.numbers as unknown[]).length,
    response: { type: 'object' },
  },
});
const QuotaTestService = {
  name: 'quotatest',
  actions: {
    sendBatch: implement(sendBatch, async (ctx) => ({ sent: ctx.params.numbers.length })),
    send: implement(send, async (ctx) => {
      if (ctx.params.number === 'REFUSED') throw new DomainError('UBL_VALIDATION_FAILED', 'refused by the stand-in');
      executions.push(ctx.params.number);
      // A nested call, as a real send makes (validation, routing…): it shows in the request log's trace.
      await call(ctx, documentQuota, { organizationId: principalOf(ctx).organizationId });
      return { id: `doc_${executions.length}`, number: ctx.params.number, organizationId: principalOf(ctx).organizationId };
    }),
  },
};

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({
    services: Object.keys(SERVICE_CATALOGUE).filter((name) => name !== 'gateway'),
    extraServices: [gatewayPublishing([send, sendBatch]), QuotaTestService],
  });
});
afterAll(async () => { await t.stop(); });

/** A bootstrap organization made a live one on the given plan (before its first authenticated call). */
async function organization(plan: string, sandbox: boolean) {
  const org = await bootstrap(t.baseUrl);
  const client = new pg.Client({ connectionString: t.databaseUrl });
  await client.connect();
  try { await client.query('update organizations set plan = $1, sandbox = $2 where id = $3', [plan, sandbox, org.organizationId]); } finally { await client.end(); }
  return org;
}

const sendMany = (apiKey: string, prefix: string, n: number) =>
  Promise.all(Array.from({ length: n }, (_, i) => api(t.baseUrl, 'POST', '/v1/quota-test/send', { key: apiKey, body: { number: `${prefix}-${i}` } })));

describe('monthly document quota', () => {
  it('free plan: 50 documents a month, never more under concurrency, then 429 QUOTA_EXCEEDED with Retry-After', async () => {
    const org = await organization('free', false);
    const answers = await sendMany(org.apiKey, 'free', 55);
    expect(answers.filter((r) => r.status === 201)).toHaveLength(50);
    const refused = answers.filter((r) => r.status === 429);
    expect(refused).toHaveLength(5);
    for (const r of refused) {
      expectEnvelope(r, 429, 'QUOTA_EXCEEDED');
      expect(r.body.error.type).toBe('rate_limit_error');
      const retryAfter = Number(r.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(31 * 86_400);
      // Rate-limit headers are there too.
      expect(r.headers.get('ratelimit-limit')).toBe('60');
    }
    const usage = await call(t.app.broker, documentQuota, { organizationId: org.organizationId });
    expect(usage).toEqual({ organizationId: org.organizationId, period: new Date().toISOString().slice(0, 7), used: 50, limit: 50 });
    expect(executions.filter((n) => n.startsWith('free-'))).toHaveLength(50);
  });

  it('starter plan: 500; white-label: unlimited; sandbox organizations: none, whatever the plan', async () => {
    const starter = await organization('starter', false);
    await expect(call(t.app.broker, consumeDocumentQuota, { organizationId: starter.organizationId, count: 500 })).resolves.toMatchObject({ used: 500, limit: 500 });
    await expect(call(t.app.broker, consumeDocumentQuota, { organizationId: starter.organizationId })).rejects.toMatchObject({ type: 'QUOTA_EXCEEDED' });
    const wl = await organization('white_label', false);
    await expect(call(t.app.broker, consumeDocumentQuota, { organizationId: wl.organizationId, count: 1000 })).resolves.toMatchObject({ used: 1000, limit: null });
    const sandbox = await organization('free', true);
    const answers = await sendMany(sandbox.apiKey, 'sandbox', 55);
    expect(answers.every((r) => r.status === 201)).toBe(true);
    expect(await call(t.app.broker, documentQuota, { organizationId: sandbox.organizationId })).toMatchObject({ used: 55, limit: null });
  });
});

describe('what counts', () => {
  it('a failed send gives its document back; a batch counts its items', async () => {
    const org = await organization('free', false);
    const refused = await api(t.baseUrl, 'POST', '/v1/quota-test/send', { key: org.apiKey, body: { number: 'REFUSED' } });
    expectEnvelope(refused, 422, 'UBL_VALIDATION_FAILED');
    const usage = () => call(t.app.broker, documentQuota, { organizationId: org.organizationId });
    // The refund runs right after the answer.
    for (let i = 0; i < 50 && (await usage()).used !== 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect((await usage()).used).toBe(0);
    const batch = await api(t.baseUrl, 'POST', '/v1/quota-test/send/batch', { key: org.apiKey, body: { numbers: Array.from({ length: 30 }, (_, i) => `B-${i}`) } });
    expect(batch.status).toBe(200);
    expect((await usage()).used).toBe(30);
    const tooMany = await api(t.baseUrl, 'POST', '/v1/quota-test/send/batch', { key: org.apiKey, body: { numbers: Array.from({ length: 21 }, (_, i) => `C-${i}`) } });
    expectEnvelope(tooMany, 429, 'QUOTA_EXCEEDED');
    expect((await usage()).used).toBe(30);
  });
});

describe('a send without Idempotency-Key gets a key derived from its payload', () => {
  it('the same payload twice is one send (replayed, counted once); a different payload is another send', async () => {
    const org = await organization('free', false);
    const first = await api(t.baseUrl, 'POST', '/v1/quota-test/send', { key: org.apiKey, body: { number: 'INV-1' } });
    expect(first.status).toBe(201);
    const again = await api(t.baseUrl, 'POST', '/v1/quota-test/send', { key: org.apiKey, body: { number: 'INV-1' } });
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const other = await api(t.baseUrl, 'POST', '/v1/quota-test/send', { key: org.apiKey, body: { number: 'INV-2' } });
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    expect(executions.filter((n) => n === 'INV-1')).toHaveLength(1);
    expect((await call(t.app.broker, documentQuota, { organizationId: org.organizationId })).used).toBe(2);
    // The request log traces the send and what it called, at every depth.
    const gateway = t.app.broker.getLocalService('gateway') as unknown as { guarantees: { log: { flush(): Promise<void> } } };
    await gateway.guarantees.log.flush();
    const trace = await api(t.baseUrl, 'GET', `/v1/requests/${first.headers.get('x-request-id')}`, { key: org.apiKey });
    expect(trace.body.upstreamCalls).toEqual([
      { action: 'quotatest.send', durationMs: expect.any(Number), level: 1 },
      { action: 'limits.documentQuota', durationMs: expect.any(Number), level: 2 },
      { action: 'tenancy.organizationProfile', durationMs: expect.any(Number), level: 3 },
    ]);
    expect(trace.body.upstreamCalls[0].durationMs).toBeGreaterThanOrEqual(trace.body.upstreamCalls[1].durationMs);
    // An explicit key wins over the derived one.
    const explicit = await api(t.baseUrl, 'POST', '/v1/quota-test/send', { key: org.apiKey, headers: { 'idempotency-key': 'mine' }, body: { number: 'INV-1' } });
    expect(explicit.headers.get('idempotent-replayed')).toBeNull();
    expect(executions.filter((n) => n === 'INV-1')).toHaveLength(2);
  });
});
