/**
 * Issue 11, attacks 5 and 6, replayed against a real server and PostgreSQL: NUL bytes (and lone
 * surrogates) in any field answered 500 once they reached SQL, and a request carrying one dropped
 * the request-log batch it shared with other tenants' requests.
 */
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
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
