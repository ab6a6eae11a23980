/**
 * The request log through the real gateway and PostgreSQL: every mutation and every error is
 * captured per organization (successful reads are not, unless the server flag is on: see
 * request-log-reads.spec.ts), with its trace; list filters and cursor pages; summary with exact
 * throttled counts; timeseries.
 */
import pg from 'pg';
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';
import { call } from '../../services/shared/call.ts';
import { prune } from '../../services/requests/requests.contract.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';

let t: TestApp;
beforeAll(async () => { t = await startTestApp(); });
afterAll(async () => { await t.stop(); });

/** Writes what the gateway buffered (it otherwise flushes on its own within 200 ms). */
async function flushLog(): Promise<void> {
  const gateway = t.app.broker.getLocalService('gateway') as unknown as { guarantees: { log: { flush(): Promise<void> } } };
  await gateway.guarantees.log.flush();
}

describe('capture', () => {
  it('logs mutations and errors with method, path, status, key, duration; not successful reads', async () => {
    const { apiKey } = await bootstrap(t.baseUrl);
    const created = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: apiKey, body: { name: 'logged' } });
    expect(created.status).toBe(201);
    const missing = await api(t.baseUrl, 'GET', '/v1/companies/comp_nope', { key: apiKey });
    expect(missing.status).toBe(404);
    const me = await api(t.baseUrl, 'GET', '/v1/me', { key: apiKey });
    expect(me.status).toBe(200);
    await flushLog();

    const list = await api(t.baseUrl, 'GET', '/v1/requests', { key: apiKey });
    expect(list.status).toBe(200);
    const ids = list.body.data.map((r: { id: string }) => r.id);
    expect(ids).toEqual([missing.headers.get('x-request-id'), created.headers.get('x-request-id')]);
    expect(ids).not.toContain(me.headers.get('x-request-id'));
    const [notFound, mutation] = list.body.data;
    expect(mutation).toMatchObject({ method: 'POST', path: '/v1/api-keys', status: 201, apiKeyId: me.body.apiKeyId, userId: null, errorCode: null });
    expect(notFound).toMatchObject({ method: 'GET', path: '/v1/companies/comp_nope', status: 404, errorCode: 'COMPANY_NOT_FOUND' });
    expect(mutation.durationMs).toBeGreaterThan(0);
    expect(new Date(mutation.createdAt).getTime()).toBeLessThanOrEqual(new Date(notFound.createdAt).getTime());
  });

  it('GET /v1/requests/<id>: the full trace with the service call, timing, and the validation diff of a 400', async () => {
    const { apiKey } = await bootstrap(t.baseUrl);
    const ok = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: apiKey, headers: { 'idempotency-key': 'trace-1' }, body: { name: 'traced' } });
    const bad = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: apiKey, body: { name: 'x', keyType: 'root' } });
    expect(bad.status).toBe(400);
    await flushLog();

    const trace = await api(t.baseUrl, 'GET', `/v1/requests/${ok.headers.get('x-request-id')}`, { key: apiKey });
    expect(trace.status).toBe(200);
    expect(trace.body).toMatchObject({ method: 'POST', status: 201, action: 'tenancy.createApiKey', idempotencyKey: 'trace-1', replayed: false, validation: [] });
    expect(trace.body.upstreamCalls).toEqual([{ action: 'tenancy.createApiKey', durationMs: expect.any(Number), level: 1 }]);
    expect(trace.body.timing.durationMs).toBe(trace.body.durationMs);
    expect(new Date(trace.body.timing.completedAt).getTime()).toBeGreaterThanOrEqual(new Date(trace.body.timing.receivedAt).getTime());

    const badTrace = await api(t.baseUrl, 'GET', `/v1/requests/${bad.headers.get('x-request-id')}`, { key: apiKey });
    expect(badTrace.body).toMatchObject({ status: 400, errorCode: 'INVALID_ENUM', upstreamCalls: [] });
    expect(badTrace.body.validation).toEqual([expect.objectContaining({ field: 'keyType', rule: 'enumValue' })]);

    // Another organization sees none of it.
    const stranger = (await bootstrap(t.baseUrl)).apiKey;
    expectEnvelope(await api(t.baseUrl, 'GET', `/v1/requests/${ok.headers.get('x-request-id')}`, { key: stranger }), 404, 'RESOURCE_NOT_FOUND');
    // Its log holds its own calls only (its 404 just now, at most), never the first organization's.
    const theirs = (await api(t.baseUrl, 'GET', '/v1/requests', { key: stranger })).body.data.map((r: { id: string }) => r.id);
    for (const id of [ok.headers.get('x-request-id'), bad.headers.get('x-request-id')]) expect(theirs).not.toContain(id);
  });

  it('marks idempotent replays in the log', async () => {
    const { apiKey } = await bootstrap(t.baseUrl);
    const headers = { 'idempotency-key': 'replayed-in-log' };
    await api(t.baseUrl, 'POST', '/v1/api-keys', { key: apiKey, headers, body: { name: 'r' } });
    const replay = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: apiKey, headers, body: { name: 'r' } });
    await flushLog();
    const trace = await api(t.baseUrl, 'GET', `/v1/requests/${replay.headers.get('x-request-id')}`, { key: apiKey });
    expect(trace.body).toMatchObject({ status: 201, replayed: true, upstreamCalls: [] });
  });
});

describe('GET /v1/requests: filters and cursor pages', () => {
  it('filters by method, path prefix, status, key and time; pages newest first without gaps or repeats', async () => {
    const { apiKey } = await bootstrap(t.baseUrl);
    const second = (await api(t.baseUrl, 'POST', '/v1/api-keys', { key: apiKey, body: { name: 'second' } })).body;
    for (let i = 0; i < 4; i++) await api(t.baseUrl, 'POST', '/v1/api-keys', { key: apiKey, body: { name: `p${i}` } });
    await api(t.baseUrl, 'DELETE', `/v1/api-keys/${second.id}`, { key: apiKey });
    await api(t.baseUrl, 'GET', '/v1/companies/comp_x', { key: apiKey });
    await flushLog();

    const all: Array<{ id: string }> = [];
    let cursor: string | null = null;
    do {
      const page: { body: { data: Array<{ id: string }>; hasMore: boolean; cursor: string | null } } = await api(t.baseUrl, 'GET', `/v1/requests?limit=3${cursor ? `&cursor=${cursor}` : ''}`, { key: apiKey });
      all.push(...page.body.data);
      cursor = page.body.hasMore ? page.body.cursor : null;
    } while (cursor);
    expect(all).toHaveLength(7);
    expect(new Set(all.map((r) => r.id)).size).toBe(7);
    expect([...all.map((r) => r.id)].sort().reverse()).toEqual(all.map((r) => r.id));

    const posts = await api(t.baseUrl, 'GET', '/v1/requests?method=POST', { key: apiKey });
    expect(posts.body.data).toHaveLength(5);
    const deletes = await api(t.baseUrl, 'GET', '/v1/requests?method=DELETE', { key: apiKey });
    expect(deletes.body.data).toEqual([expect.objectContaining({ path: `/v1/api-keys/${second.id}` })]);
    expect((await api(t.baseUrl, 'GET', '/v1/requests?path=/v1/companies', { key: apiKey })).body.data).toHaveLength(1);
    expect((await api(t.baseUrl, 'GET', '/v1/requests?path=/v1/api-keys/', { key: apiKey })).body.data).toHaveLength(1);
    expect((await api(t.baseUrl, 'GET', '/v1/requests?status=404', { key: apiKey })).body.data).toHaveLength(1);
    expect((await api(t.baseUrl, 'GET', '/v1/requests?status=201', { key: apiKey })).body.data).toHaveLength(5);
    expect((await api(t.baseUrl, 'GET', `/v1/requests?apiKeyId=${second.id}`, { key: apiKey })).body.data).toEqual([]);
    const future = new Date(Date.now() + 60_000).toISOString();
    expect((await api(t.baseUrl, 'GET', `/v1/requests?since=${future}`, { key: apiKey })).body.data).toEqual([]);
    expect((await api(t.baseUrl, 'GET', `/v1/requests?until=${future}`, { key: apiKey })).body.data).toHaveLength(7);
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/requests?cursor=garbage', { key: apiKey }), 400, 'INVALID_REQUEST');
  });
});

describe('summary and timeseries', () => {
  let apiKey: string;
  let organizationId: string;
  let apiKeyId: string;
  beforeAll(async () => {
    ({ apiKey, organizationId } = await bootstrap(t.baseUrl));
    apiKeyId = (await api(t.baseUrl, 'GET', '/v1/me', { key: apiKey })).body.apiKeyId;
    for (let i = 0; i < 3; i++) expect((await api(t.baseUrl, 'POST', '/v1/api-keys', { key: apiKey, body: { name: `s${i}` } })).status).toBe(201);
    const exhausted = await api(t.baseUrl, 'POST', '/v1/sandbox/rate-limit/exhaust', { key: apiKey, body: { durationSeconds: 3 } });
    expect(exhausted.status).toBe(200);
    const throttled = await Promise.all(Array.from({ length: 7 }, () => api(t.baseUrl, 'GET', '/v1/me', { key: apiKey })));
    expect(throttled.map((r) => r.status)).toEqual(Array(7).fill(429));
    await flushLog();
    // Reads of the summary need the forced limit gone.
    await new Promise((r) => setTimeout(r, Math.max(0, new Date(exhausted.body.exhaustedUntil).getTime() - Date.now()) + 150));
  });

  it('summary by key: totals, errors, the exact throttled count, peak per minute, the plan limit, last request', async () => {
    const res = await api(t.baseUrl, 'GET', '/v1/requests/summary?by=key', { key: apiKey });
    expect(res.status).toBe(200);
    expect(res.body.by).toBe('key');
    expect(res.body.data).toHaveLength(1);
    const row = res.body.data[0];
    expect(row).toMatchObject({ apiKeyId, totalRequests: 11, errorRequests: 7, throttledRequests: 7, rateLimitPerMinute: 60 });
    // All 11 requests fall in one or two calendar minutes.
    expect(row.peakRequestsPerMinute).toBeGreaterThanOrEqual(6);
    expect(row.peakRequestsPerMinute).toBeLessThanOrEqual(11);
    expect(Date.now() - new Date(row.lastRequestAt).getTime()).toBeLessThan(60_000);
    // No user (JWT) callers in this organization.
    expect((await api(t.baseUrl, 'GET', '/v1/requests/summary?by=user', { key: apiKey })).body.data).toEqual([]);
    const past = await api(t.baseUrl, 'GET', `/v1/requests/summary?until=${new Date(Date.now() - 3_600_000).toISOString()}`, { key: apiKey });
    expect(past.body.data).toEqual([]);
  });

  it('timeseries per minute and per hour add up to the log; another organization is refused', async () => {
    for (const bucket of ['minute', 'hour']) {
      const res = await api(t.baseUrl, 'GET', `/v1/requests/timeseries?bucket=${bucket}`, { key: apiKey });
      expect(res.status).toBe(200);
      const rows = res.body.data as Array<{ ts: string; total: number; errors: number; throttled: number; maxDurationMs: number }>;
      const sum = (k: 'total' | 'errors' | 'throttled') => rows.reduce((a, r) => a + r[k], 0);
      expect({ total: sum('total'), errors: sum('errors'), throttled: sum('throttled') }).toEqual({ total: 11, errors: 7, throttled: 7 });
      for (const r of rows) {
        expect(r.maxDurationMs).toBeGreaterThan(0);
        const ts = new Date(r.ts);
        expect(ts.getUTCSeconds()).toBe(0);
        if (bucket === 'hour') expect(ts.getUTCMinutes()).toBe(0);
      }
    }
    const byKey = await api(t.baseUrl, 'GET', `/v1/requests/timeseries?bucket=minute&apiKeyId=${apiKeyId}&organizationId=${organizationId}`, { key: apiKey });
    expect(byKey.body.data.reduce((a: number, r: { total: number }) => a + r.total, 0)).toBe(11);
    expect((await api(t.baseUrl, 'GET', '/v1/requests/timeseries?apiKeyId=key_other', { key: apiKey })).body.data).toEqual([]);
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/requests/timeseries?organizationId=org_other', { key: apiKey }), 403, 'ORGANIZATION_FORBIDDEN');
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/requests/timeseries?bucket=day', { key: apiKey }), 400, 'INVALID_ENUM');
    const wide = await api(t.baseUrl, 'GET', `/v1/requests/timeseries?bucket=minute&since=${new Date(Date.now() - 2 * 86_400_000).toISOString()}`, { key: apiKey });
    expectEnvelope(wide, 400, 'INVALID_REQUEST');
  });
});

describe('retention', () => {
  it('prunes entries older than the retention (90 days by default), nothing newer', async () => {
    const { apiKey } = await bootstrap(t.baseUrl);
    const recent = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: apiKey, body: { name: 'recent' } });
    const old = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: apiKey, body: { name: 'old' } });
    await flushLog();
    const client = new pg.Client({ connectionString: t.databaseUrl });
    await client.connect();
    try {
      await client.query("update request_log set created_at = now() - interval '91 days' where id = $1", [old.headers.get('x-request-id')]);
    } finally {
      await client.end();
    }
    const result = await call(t.app.broker, prune, {});
    expect(result.deleted).toBeGreaterThanOrEqual(1);
    expectEnvelope(await api(t.baseUrl, 'GET', `/v1/requests/${old.headers.get('x-request-id')}`, { key: apiKey }), 404, 'RESOURCE_NOT_FOUND');
    expect((await api(t.baseUrl, 'GET', `/v1/requests/${recent.headers.get('x-request-id')}`, { key: apiKey })).status).toBe(200);
  });
});
