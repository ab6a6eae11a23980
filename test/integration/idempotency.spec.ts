/**
 * Idempotency-Key on real PostgreSQL: the first answer is stored and replayed byte for byte
 * (status, body, Content-Type, Location); a different body is 409 IDEMPOTENCY_BODY_MISMATCH; a
 * key still running is 409 IDEMPOTENCY_IN_PROGRESS; keys are scoped to the calling key; 20
 * identical concurrent requests execute once; stored answers survive a restart and expire after
 * 24 hours; the sandbox flush drops the calling key's cache.
 */
import { sqlOn } from '../support/lost-answer.ts';
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp, replayedText } from '../support/app.ts';
import { call } from '../../services/shared/call.ts';
import { flushOrganization } from '../../services/idempotency/idempotency.contract.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';

let t: TestApp;
beforeAll(async () => { t = await startTestApp(); });
afterAll(async () => { await t.stop(); });

async function keyNames(baseUrl: string, apiKey: string): Promise<string[]> {
  const res = await api(baseUrl, 'GET', '/v1/api-keys?limit=100', { key: apiKey });
  expect(res.status).toBe(200);
  return (res.body.data as Array<{ name: string }>).map((k) => k.name);
}

const sql = (text: string, values: unknown[] = []) => sqlOn(t.databaseUrl, text, values);

describe('Idempotency-Key', () => {
  it('replays the first answer byte for byte: status, body, Content-Type and Location; the action ran once', async () => {
    const { apiKey } = await bootstrap(t.baseUrl);
    const headers = { 'idempotency-key': 'create-ci-key-1' };
    const first = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: apiKey, headers, body: { name: 'ci' } });
    expect(first.status).toBe(201);
    const again = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: apiKey, headers, body: { name: 'ci' } });
    expect(again.status).toBe(201);
    // Byte for byte, but for the full key: a one-time secret is never stored, and the replay says so.
    expect(again.text).toBe(replayedText(first.text));
    expect(again.headers.get('idempotent-replay-redacted')).toBe('key');
    expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(again.headers.get('location')).toMatch(/^\/v1\/api-keys\/key_/);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    // Each answer has its own request id.
    expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect((await keyNames(t.baseUrl, apiKey)).filter((n) => n === 'ci')).toHaveLength(1);
  });

  it('409 IDEMPOTENCY_BODY_MISMATCH for the same key with a different body', async () => {
    const { apiKey } = await bootstrap(t.baseUrl);
    const headers = { 'idempotency-key': 'k-mismatch' };
    expect((await api(t.baseUrl, 'POST', '/v1/api-keys', { key: apiKey, headers, body: { name: 'a' } })).status).toBe(201);
    const res = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: apiKey, headers, body: { name: 'b' } });
    expectEnvelope(res, 409, 'IDEMPOTENCY_BODY_MISMATCH');
    expect(res.body.error.type).toBe('conflict_error');
    expect(await keyNames(t.baseUrl, apiKey)).not.toContain('b');
  });

  it('scopes keys to the calling key: another key of the organization runs its own request', async () => {
    const { apiKey } = await bootstrap(t.baseUrl);
    const second = (await api(t.baseUrl, 'POST', '/v1/api-keys', { key: apiKey, body: { name: 'second' } })).body.key as string;
    const headers = { 'idempotency-key': 'shared-name' };
    const a = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: apiKey, headers, body: { name: 'scoped' } });
    const b = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: second, headers, body: { name: 'scoped' } });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.body.id).not.toBe(a.body.id);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
  });

  it('refuses a key over 255 characters with 400, and accepts exactly 255', async () => {
    const { apiKey } = await bootstrap(t.baseUrl);
    const long = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: apiKey, headers: { 'idempotency-key': 'x'.repeat(256) }, body: { name: 'long' } });
    expectEnvelope(long, 400, 'INVALID_REQUEST');
    expect(long.body.error.details[0]).toMatchObject({ field: 'Idempotency-Key' });
    expect((await api(t.baseUrl, 'POST', '/v1/api-keys', { key: apiKey, headers: { 'idempotency-key': 'y'.repeat(255) }, body: { name: 'max' } })).status).toBe(201);
  });

  it('executes 20 identical concurrent requests exactly once; the others see IDEMPOTENCY_IN_PROGRESS or the replay', async () => {
    const { apiKey, company } = await bootstrap(t.baseUrl, { keyType: 'platform' });
    const headers = { 'idempotency-key': 'burst-1' };
    // A personal key made by a platform key names its company (a personal key acts for one company).
    const body = { name: 'burst', companyId: company.id };
    const answers = await Promise.all(Array.from({ length: 20 }, () => api(t.baseUrl, 'POST', '/v1/api-keys', { key: apiKey, headers, body })));
    const created = answers.filter((r) => r.status === 201);
    const inProgress = answers.filter((r) => r.status === 409);
    expect(created.length + inProgress.length).toBe(20);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const r of inProgress) expectEnvelope(r, 409, 'IDEMPOTENCY_IN_PROGRESS');
    // Every 201 is the same answer: one execution, replayed.
    expect(new Set(created.map((r) => replayedText(r.text))).size).toBe(1);
    expect(created.filter((r) => r.headers.get('idempotent-replayed') !== 'true')).toHaveLength(1);
    expect((await keyNames(t.baseUrl, apiKey)).filter((n) => n === 'burst')).toHaveLength(1);
    // Once done, a retry gets the stored answer.
    const after = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: apiKey, headers, body });
    expect(after.text).toBe(replayedText(created[0]!.text));
  });

  it('keeps stored answers across a restart, and forgets them after 24 hours', async () => {
    const { apiKey } = await bootstrap(t.baseUrl);
    const headers = { 'idempotency-key': 'durable-1' };
    const first = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: apiKey, headers, body: { name: 'durable' } });
    expect(first.status).toBe(201);
    const restarted = await startTestApp({ databaseUrl: t.databaseUrl });
    try {
      const replay = await api(restarted.baseUrl, 'POST', '/v1/api-keys', { key: apiKey, headers, body: { name: 'durable' } });
      expect(replay.status).toBe(201);
      expect(replay.text).toBe(replayedText(first.text));
      // 24 hours later the key is free again: the request runs anew.
      await sql("update idempotency_keys set expires_at = now() - interval '1 second', created_at = now() - interval '24 hours' where key = $1", ['durable-1']);
      const fresh = await api(restarted.baseUrl, 'POST', '/v1/api-keys', { key: apiKey, headers, body: { name: 'durable' } });
      expect(fresh.status).toBe(201);
      expect(fresh.body.id).not.toBe(first.body.id);
      expect(fresh.headers.get('idempotent-replayed')).toBeNull();
    } finally {
      await restarted.stop({ keepDatabase: true });
    }
    const stored = await sql('select extract(epoch from expires_at - created_at)::int as ttl from idempotency_keys where key = $1', ['durable-1']);
    expect(stored.rows[0].ttl).toBe(86_400);
  });

  it('never stores a throttled answer (429): the key is released and a later retry runs', async () => {
    const { apiKey } = await bootstrap(t.baseUrl);
    const headers = { 'idempotency-key': 'revoke-unknown' };
    const first = await api(t.baseUrl, 'POST', '/v1/sandbox/rate-limit/exhaust', { key: apiKey, headers: { 'idempotency-key': 'exhaust-1' }, body: { durationSeconds: 3 } });
    expect(first.status).toBe(200);
    // Throttled answers (429) are never stored: once the forced limit ends the same key runs.
    const throttled = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: apiKey, headers, body: { name: 'after-throttle' } });
    expect(throttled.status).toBe(429);
    await new Promise((r) => setTimeout(r, Math.max(0, new Date(first.body.exhaustedUntil).getTime() - Date.now()) + 150));
    const ran = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: apiKey, headers, body: { name: 'after-throttle' } });
    expect(ran.status).toBe(201);
    expect(ran.headers.get('idempotent-replayed')).toBeNull();
  });
});

describe('POST /v1/sandbox/idempotency/flush', () => {
  it("drops the calling key's cache only: the same key then runs again", async () => {
    const { apiKey } = await bootstrap(t.baseUrl);
    const other = (await api(t.baseUrl, 'POST', '/v1/api-keys', { key: apiKey, body: { name: 'other' } })).body.key as string;
    const headers = { 'idempotency-key': 'flush-me' };
    const first = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: apiKey, headers, body: { name: 'f1' } });
    const otherFirst = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: other, headers, body: { name: 'f2' } });
    const flushed = await api(t.baseUrl, 'POST', '/v1/sandbox/idempotency/flush', { key: apiKey });
    expect(flushed.status).toBe(200);
    expect(flushed.body).toEqual({ flushed: 1 });
    const rerun = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: apiKey, headers, body: { name: 'f1' } });
    expect(rerun.status).toBe(201);
    expect(rerun.body.id).not.toBe(first.body.id);
    const otherReplay = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: other, headers, body: { name: 'f2' } });
    expect(otherReplay.text).toBe(replayedText(otherFirst.text));
  });

  it('flushOrganization (for the sandbox reset) drops every key of the organization, no other', async () => {
    const a = await bootstrap(t.baseUrl);
    const b = await bootstrap(t.baseUrl);
    const headers = { 'idempotency-key': 'org-flush' };
    await api(t.baseUrl, 'POST', '/v1/api-keys', { key: a.apiKey, headers, body: { name: 'a1' } });
    await api(t.baseUrl, 'POST', '/v1/api-keys', { key: a.apiKey, headers: { 'idempotency-key': 'org-flush-2' }, body: { name: 'a2' } });
    const bFirst = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: b.apiKey, headers, body: { name: 'b1' } });
    expect(await call(t.app.broker, flushOrganization, { organizationId: a.organizationId })).toEqual({ flushed: 2 });
    expect((await api(t.baseUrl, 'POST', '/v1/api-keys', { key: a.apiKey, headers, body: { name: 'a1' } })).headers.get('idempotent-replayed')).toBeNull();
    expect((await api(t.baseUrl, 'POST', '/v1/api-keys', { key: b.apiKey, headers, body: { name: 'b1' } })).text).toBe(replayedText(bFirst.text));
  });
});
