/**
 * Issue 11, attacks 5 to 8 and parts of 9 and 10, replayed against a real server and PostgreSQL:
 * NUL bytes (and lone surrogates) answered 500 once they reached SQL, and dropped the request-log
 * batch they shared with other tenants; raw sends replayed the answer of another query string;
 * replays kept and returned one-time secrets, with another requestId than their header; a claim
 * left by a crashed process blocked retries for two minutes; a raw body with format=ubl-xml was refused.
 */
import { readFileSync } from 'node:fs';
import { reissued } from '../support/issuers.ts';
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';
import { corpusPath } from '../support/corpus.ts';
import { sql } from './support.ts';
import { requestHash } from '../../services/gateway/idempotency.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
// A short claim lease, so a claim left by a dead process lapses within the test.
process.env.EINV_IDEMPOTENCY_CLAIM_MS = '1000';
process.env.EINV_RATE_LIMITS = 'free=100000';

let t: TestApp;
let org: Awaited<ReturnType<typeof bootstrap>>;
beforeAll(async () => {
  t = await startTestApp();
  org = await bootstrap(t.baseUrl);
});
afterAll(async () => { await t.stop(); });

async function flushLog(): Promise<void> {
  const gateway = t.app.broker.getLocalService('gateway') as unknown as { guarantees: { log: { flush(): Promise<void> } } };
  await gateway.guarantees.log.flush();
}

const NUL = '\u0000';

describe('a NUL byte anywhere is a 400 naming the field, never a 500', () => {
  // Every row has four entries: with fewer, jest would pass a `done` callback as the body.
  const cases: Array<[string, string, string, unknown]> = [
    ['POST', '/v1/webhooks', 'url', { url: `https://example.test/h${NUL}`, events: ['*'] }],
    ['POST', '/v1/api-keys', 'name', { name: `key${NUL}` }],
    ['POST', '/v1/integrations', 'name', { name: `erp${NUL}` }],
    ['POST', '/v1/documents/send', 'document.number', { type: 'invoice', format: 'json', to: '0208:0403170701', document: { number: `INV${NUL}1` } }],
    ['POST', '/v1/documents/search', 'filters.number', { filters: { number: `A${NUL}` } }],
    ['POST', '/v1/events/ack', 'eventIds[0]', { eventIds: [`evt_${NUL}`] }],
    ['POST', '/v1/sandbox/clock/advance', 'by', { by: `1h${NUL}` }],
    ['POST', '/v1/sandbox/clock/reset', 'companyId', { companyId: `comp_${NUL}` }],
    ['POST', '/v1/documents/doc_x/actions', 'note', { action: 'add-note', note: `n${NUL}` }],
    ['POST', '/v1/webhooks/wh_x/replay', 'eventId', { eventId: `evt_${NUL}` }],
    ['GET', '/v1/documents/doc_%00x', 'id', undefined],
    ['GET', '/v1/webhooks/wh_%00', 'id', undefined],
    ['GET', '/v1/requests?path=%00', 'path', undefined],
    // A key of a JSON object is a string PostgreSQL must store too (jsonb).
    ['POST', '/v1/documents/send', 'metadata.a\u0000b', { type: 'invoice', format: 'json', to: '0208:0403170701', metadata: { [`a${NUL}b`]: 1 }, document: {} }],
    // An unpaired UTF-16 surrogate is not valid UTF-8: refused the same way.
    ['POST', '/v1/api-keys', 'name', { name: 'key\uD800' }],
  ];

  it.each(cases)('%s %s → 400 INVALID_REQUEST on %s', async (method, path, field, body) => {
    const res = await api(t.baseUrl, method, path, { key: org.apiKey, ...(body !== undefined ? { body } : {}) });
    expectEnvelope(res, 400, 'INVALID_REQUEST');
    expect(res.body.error.details[0]).toMatchObject({ field, rule: 'storableText' });
  });
});

it('one tenant\'s NUL request never drops another tenant\'s request-log entries from the batch they share', async () => {
  const other = await bootstrap(t.baseUrl);
  const ids: string[] = [];
  // The other organization's five requests and the hostile one land in one buffer, flushed together.
  for (let i = 0; i < 5; i++) {
    const res = await api(t.baseUrl, 'GET', `/v1/companies/comp_missing_${i}`, { key: other.apiKey });
    expect(res.status).toBe(404);
    ids.push(res.headers.get('x-request-id')!);
  }
  const hostile = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: org.apiKey, body: { name: `x${NUL}y`, [`k${NUL}`]: `v${NUL}` } });
  expect(hostile.status).toBe(400);
  await flushLog();

  const listed = await api(t.baseUrl, 'GET', '/v1/requests?limit=100', { key: other.apiKey });
  expect(listed.body.data.map((r: { id: string }) => r.id).sort()).toEqual([...ids].sort());
  // The hostile request is on record too, its unstorable characters replaced.
  const own = await api(t.baseUrl, 'GET', `/v1/requests/${hostile.headers.get('x-request-id')}`, { key: org.apiKey });
  expect(own.status).toBe(200);
  expect(own.body).toMatchObject({ status: 400, errorCode: 'INVALID_REQUEST' });
  expect(JSON.stringify(own.body)).not.toContain('\\u0000');
});

describe('Idempotency', () => {
  const raw = Buffer.from('%PDF-1.4 scanned invoice');
  const deposit = (query: string, key = org.apiKey) => api(t.baseUrl, 'POST', `/v1/documents/send?${query}`, { key, rawBody: raw, headers: { 'content-type': 'application/pdf' } });

  it('a raw send\'s derived key covers the query string: the same bytes with another query run anew', async () => {
    const first = await deposit('type=invoice&filename=a.pdf&to=0208:0403170701');
    const second = await deposit('type=invoice&filename=a.pdf&to=0208:0876543210');
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect(second.body.id).not.toBe(first.body.id);
    // The same query again is the same send: replayed.
    const again = await deposit('type=invoice&filename=a.pdf&to=0208:0403170701');
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
  });

  it('a 4xx is not replayed once the query is corrected', async () => {
    expectEnvelope(await deposit('type=invoices&filename=b.pdf'), 400, 'INVALID_ENUM');
    const corrected = await deposit('type=invoice&filename=b.pdf');
    expect(corrected.status).toBe(201);
    expect(corrected.headers.get('idempotent-replayed')).toBeNull();
  });

  it('one-time secrets are never stored: a replay returns them masked and says so', async () => {
    const created: Array<[string, string, Record<string, unknown>, string]> = [
      ['/v1/api-keys', 'key', { name: 'replayed' }, 'svc_test_'],
      ['/v1/integrations', 'clientSecret', { name: 'replayed' }, ''],
      ['/v1/webhooks', 'secret', { url: 'https://example.test/hooks', events: ['*'] }, 'whsec_'],
    ];
    for (const [path, field, body, prefix] of created) {
      const headers = { 'idempotency-key': `secret-${path}` };
      const first = await api(t.baseUrl, 'POST', path, { key: org.apiKey, headers, body });
      expect(first.status).toBe(201);
      const secret = first.body[field] as string;
      expect(secret.startsWith(prefix) && secret.length > prefix.length + 8).toBe(true);
      const replay = await api(t.baseUrl, 'POST', path, { key: org.apiKey, headers, body });
      expect(replay.status).toBe(201);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.headers.get('idempotent-replay-redacted')).toBe(field);
      expect(replay.body.id).toBe(first.body.id);
      expect(replay.text).not.toContain(secret);
      const rows = await sql<{ body: string }>(t, "select encode(response_body, 'escape') as body from idempotency_keys where key = $1", [headers['idempotency-key']]);
      expect(rows).toHaveLength(1);
      expect(rows[0]!.body).not.toContain(secret);
    }
  });

  it('a replayed error names the request that answered: body requestId equals X-Request-Id', async () => {
    const headers = { 'idempotency-key': 'replayed-error' };
    const first = await api(t.baseUrl, 'POST', '/v1/documents/doc_missing/actions', { key: org.apiKey, headers, body: { action: 'archive' } });
    expect(first.status).toBe(404);
    const replay = await api(t.baseUrl, 'POST', '/v1/documents/doc_missing/actions', { key: org.apiKey, headers, body: { action: 'archive' } });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expectEnvelope(replay, 404, first.body.error.code);
    expect(replay.body.error.requestId).not.toBe(first.body.error.requestId);
  });

  it('a claim left by a crashed process lapses within its lease: the retry runs instead of 409 for minutes', async () => {
    const me = await api(t.baseUrl, 'GET', '/v1/me', { key: org.apiKey });
    const body = { name: 'after-crash' };
    // The claim row exactly as a gateway killed mid-request leaves it: processing, never renewed again.
    await sql(t, `insert into idempotency_keys (scope, key, organization_id, method, path, request_hash, state, locked_until, created_at, expires_at)
      values ($1, 'crashed-1', $2, 'POST', '/v1/api-keys', $3, 'processing', now() + interval '1 second', now(), now() + interval '1 day')`,
    [me.body.apiKeyId, org.organizationId, requestHash('POST', '/v1/api-keys', 'application/json', body, undefined)]);
    const headers = { 'idempotency-key': 'crashed-1' };
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/api-keys', { key: org.apiKey, headers, body }), 409, 'IDEMPOTENCY_IN_PROGRESS');
    await new Promise((r) => setTimeout(r, 1_500));
    const retried = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: org.apiKey, headers, body });
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
  });

  it('a live request keeps its claim past the lease: the lease is renewed while it runs', async () => {
    // One second of lease against a validation of 4,000 lines that runs longer: the claim is watched
    // while the request is out, and must never lapse (a lapsed claim would let a retry run it twice).
    const headers = { 'idempotency-key': 'long-running' };
    const lines = Array.from({ length: 4000 }, (_, i) => ({ description: `Line ${i}`, quantity: 1, unit: 'C62', unitPrice: 10, vatRate: 21 }));
    const seller = { name: 'Acme SPRL', vatNumber: 'BE0403170701', address: { street: 'Rue Neuve 1', city: 'Brussels', postalCode: '1000', country: 'BE' } };
    const buyer = { name: 'Client SA', vatNumber: 'BE0876543210', address: { street: 'Rue 2', city: 'Gent', postalCode: '9000', country: 'BE' } };
    const pending = api(t.baseUrl, 'POST', '/v1/documents/validate', { key: org.apiKey, headers, body: { format: 'json', type: 'invoice', document: { number: 'LONG-1', issueDate: '2026-03-01', seller, buyer, lines } } });
    const started = Date.now();
    const seen: string[] = [];
    let heldPastLease = false;
    for (let i = 0; i < 300; i++) {
      const rows = await sql<{ state: string; ahead: boolean }>(t, "select state, locked_until > now() as ahead from idempotency_keys where key = 'long-running'");
      if (rows[0]) seen.push(rows[0].state === 'processing' ? (rows[0].ahead ? 'held' : 'lapsed') : rows[0].state);
      if (rows[0]?.state === 'processing' && rows[0].ahead && Date.now() - started > 2_000) heldPastLease = true;
      if (rows[0]?.state === 'completed') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect((await pending).status).toBe(200);
    expect(seen).not.toContain('lapsed');
    expect(heldPastLease).toBe(true);
  });
});

it('a raw body with format=ubl-xml in the query is the XML itself, as the README says', async () => {
  const recipient = await bootstrap(t.baseUrl);
  const number = `RAW-UBL-${Date.now()}`;
  const xml = reissued(readFileSync(corpusPath('peppol-bis-invoice-3/rules/examples/base-example.xml'), 'utf8')
    .replace(/(<\/cbc:CustomizationID>[\s\S]*?<cbc:ID>)[^<]+(<\/cbc:ID>)/, `$1${number}$2`), org.company);
  const res = await api(t.baseUrl, 'POST', `/v1/documents/send?type=invoice&format=ubl-xml&to=${recipient.company.peppolId}`, { key: org.apiKey, rawBody: xml, headers: { 'content-type': 'application/xml' } });
  expect(res.status).toBe(201);
  expect(res.body).toMatchObject({ format: 'ubl-xml', number, deliveryStatus: 'pending' });
});
