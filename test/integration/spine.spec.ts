/**
 * The spine end to end: real broker, real PostgreSQL, real HTTP. Tenancy, keys, scopes, key types,
 * the error envelope and request ids, body handling and pagination.
 */
import { gzipSync } from 'node:zlib';
import { request } from 'node:http';
import { createHash } from 'node:crypto';
import pg from 'pg';
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';

// Many organizations are bootstrapped from 127.0.0.1 here; the per-IP limit has its own test.
process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';

let t: TestApp;

function postOnNewConnection(path: string, payload: Buffer, headers: Record<string, string>): Promise<{ status: number; body: any; requestId: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request(`${t.baseUrl}${path}`, { method: 'POST', agent: false, headers: { ...headers, 'content-length': String(payload.length) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text), requestId: res.headers['x-request-id'] as string | undefined }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}
beforeAll(async () => { t = await startTestApp(); });
afterAll(async () => { await t.stop(); });

describe('sandbox bootstrap and identity', () => {
  it('returns a svc_test_ key once, a seeded Belgian company, next steps and an expiry; /v1/me answers who it is', async () => {
    const res = await api(t.baseUrl, 'POST', '/v1/sandbox/bootstrap', { body: { label: 'try', email: 'dev@example.com' } });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    const body = res.body;
    expect(body.apiKey).toMatch(/^svc_test_[0-9A-Za-z]{43}$/);
    expect(body.organizationId).toMatch(/^org_/);
    expect(body.company).toMatchObject({ country: 'BE', status: 'active', organizationId: body.organizationId, name: 'try Sandbox BV' });
    expect(body.company.vatNumber).toMatch(/^BE[01]\d{9}$/);
    expect(body.company.peppolId).toBe(`0208:${body.company.vatNumber.slice(2)}`);
    expect(body.nextSteps.length).toBeGreaterThan(0);
    expect(new Date(body.expiresAt).getTime()).toBeGreaterThan(Date.now() + 86_400_000);
    expect(res.headers.get('location')).toBe(`/v1/companies/${body.company.id}`);

    const me = await api(t.baseUrl, 'GET', '/v1/me', { key: body.apiKey });
    expect(me.status).toBe(200);
    expect(me.body).toEqual({
      authMethod: 'api_key', userId: null, email: 'dev@example.com', keyType: 'personal', apiKeyId: expect.stringMatching(/^key_/),
      organizationId: body.organizationId, organizationIds: [body.organizationId],
      organizations: [{ id: body.organizationId, name: 'try (sandbox)', country: 'BE', vatNumber: null }],
      scopes: ['*'], isTestMode: true,
    });
  });

  it('defaults the label to quickstart and mints platform and white-label test keys with their prefixes', async () => {
    const def = await api(t.baseUrl, 'POST', '/v1/sandbox/bootstrap', { body: {} });
    expect(def.body.company.name).toBe('quickstart Sandbox BV');
    const plat = await bootstrap(t.baseUrl, { keyType: 'platform' });
    expect(plat.apiKey).toMatch(/^svc_plat_test_/);
    const wl = await bootstrap(t.baseUrl, { keyType: 'white_label' });
    expect(wl.apiKey).toMatch(/^svc_wl_test_/);
  });

  it('stores only a SHA-256 of the key, never the key itself', async () => {
    const { apiKey } = await bootstrap(t.baseUrl);
    const client = new pg.Client({ connectionString: t.databaseUrl });
    await client.connect();
    try {
      const rows = await client.query('select * from api_keys');
      const dump = JSON.stringify(rows.rows);
      expect(dump).not.toContain(apiKey);
      const hash = createHash('sha256').update(apiKey).digest('hex');
      expect(rows.rows.some((r: { key_hash: string; key_prefix: string }) => r.key_hash === hash && apiKey.startsWith(r.key_prefix))).toBe(true);
    } finally {
      await client.end();
    }
  });

  it('rejects a label over 64 characters and a bad keyType with field details', async () => {
    const long = await api(t.baseUrl, 'POST', '/v1/sandbox/bootstrap', { body: { label: 'x'.repeat(65) } });
    expectEnvelope(long, 400, 'INVALID_REQUEST');
    expect(long.body.error.details).toEqual([expect.objectContaining({ field: 'label', rule: 'stringMax' })]);
    const bad = await api(t.baseUrl, 'POST', '/v1/sandbox/bootstrap', { body: { keyType: 'root' } });
    expectEnvelope(bad, 400, 'INVALID_ENUM');
    expect(bad.body.error.details[0]).toMatchObject({ field: 'keyType', rule: 'enumValue' });
  });
});

describe('authentication errors', () => {
  it('401 MISSING_AUTH without a header, INVALID_TOKEN for an unknown key or a malformed header', async () => {
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/me'), 401, 'MISSING_AUTH');
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/me', { key: 'svc_test_doesnotexist' }), 401, 'INVALID_TOKEN');
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/me', { headers: { authorization: 'Basic abc' } }), 401, 'INVALID_TOKEN');
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/me', { key: 'eyJhbGciOiJSUzI1NiJ9.e30.sig' }), 401, 'INVALID_TOKEN');
  });

  it('401 REVOKED_KEY after DELETE /v1/api-keys/<id>, and 404 for a key of another organization', async () => {
    const { apiKey } = await bootstrap(t.baseUrl);
    const other = await bootstrap(t.baseUrl);
    const created = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: apiKey, body: { name: 'ci' } });
    expect(created.status).toBe(201);
    expect(created.body.key).toMatch(/^svc_test_/);
    expect(created.headers.get('location')).toBe(`/v1/api-keys/${created.body.id}`);
    expectEnvelope(await api(t.baseUrl, 'DELETE', `/v1/api-keys/${created.body.id}`, { key: other.apiKey }), 404, 'RESOURCE_NOT_FOUND');
    expect((await api(t.baseUrl, 'GET', '/v1/me', { key: created.body.key })).status).toBe(200);
    const del = await api(t.baseUrl, 'DELETE', `/v1/api-keys/${created.body.id}`, { key: apiKey });
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({ id: created.body.id, revoked: true });
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/me', { key: created.body.key }), 401, 'REVOKED_KEY');
  });

  it('401 EXPIRED_TOKEN for a sandbox key past its expiry', async () => {
    const { apiKey } = await bootstrap(t.baseUrl);
    const client = new pg.Client({ connectionString: t.databaseUrl });
    await client.connect();
    await client.query(`update api_keys set expires_at = now() - interval '1 minute' where key_hash = $1`, [createHash('sha256').update(apiKey).digest('hex')]);
    await client.end();
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/me', { key: apiKey }), 401, 'EXPIRED_TOKEN');
  });
});

describe('scopes and key types', () => {
  it('403 INSUFFICIENT_SCOPE when the key lacks the route scope; a key cannot grant scopes it lacks', async () => {
    const { apiKey } = await bootstrap(t.baseUrl);
    const narrow = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: apiKey, body: { name: 'reader', scopes: ['documents.read', 'platform'] } });
    expect(narrow.status).toBe(201);
    expect(narrow.body.scopes).toEqual(['documents.read', 'platform']);
    const denied = await api(t.baseUrl, 'GET', '/v1/companies', { key: narrow.body.key });
    expectEnvelope(denied, 403, 'INSUFFICIENT_SCOPE');
    expect(denied.body.error.requiredScope).toBe('companies.read');
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/api-keys', { key: narrow.body.key, body: { name: 'escalate', scopes: ['*'] } }), 403, 'INSUFFICIENT_SCOPE');
    expect((await api(t.baseUrl, 'GET', '/v1/me', { key: narrow.body.key })).status).toBe(200);
    expect((await api(t.baseUrl, 'GET', '/v1/companies', { key: apiKey })).status).toBe(200);
  });

  it('platform and white-label keys must name their company: COMPANY_REQUIRED, then COMPANY_FORBIDDEN for another organization', async () => {
    for (const keyType of ['platform', 'white_label']) {
      const plat = await bootstrap(t.baseUrl, { keyType });
      const stranger = await bootstrap(t.baseUrl);
      expectEnvelope(await api(t.baseUrl, 'GET', '/v1/me/company', { key: plat.apiKey }), 403, 'COMPANY_REQUIRED');
      const own = await api(t.baseUrl, 'GET', '/v1/me/company', { key: plat.apiKey, headers: { 'x-service-company': plat.company.id } });
      expect(own.status).toBe(200);
      expect(own.body.id).toBe(plat.company.id);
      expectEnvelope(await api(t.baseUrl, 'GET', '/v1/me/company', { key: plat.apiKey, headers: { 'x-service-company': stranger.company.id } }), 403, 'COMPANY_FORBIDDEN');
      expectEnvelope(await api(t.baseUrl, 'GET', '/v1/me/company', { key: plat.apiKey, headers: { 'x-service-company': 'comp_unknown' } }), 403, 'COMPANY_FORBIDDEN');
      // Organization-level routes need no company.
      expect((await api(t.baseUrl, 'GET', '/v1/me', { key: plat.apiKey })).status).toBe(200);
    }
  });

  it('a personal key acts for its own company and refuses another', async () => {
    const a = await bootstrap(t.baseUrl);
    const b = await bootstrap(t.baseUrl);
    const own = await api(t.baseUrl, 'GET', '/v1/me/company', { key: a.apiKey });
    expect(own.body.id).toBe(a.company.id);
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/me/company', { key: a.apiKey, headers: { 'x-service-company': b.company.id } }), 403, 'COMPANY_FORBIDDEN');
  });

  it('keys are bound to their organization and ignore the organization header', async () => {
    const a = await bootstrap(t.baseUrl);
    const b = await bootstrap(t.baseUrl);
    for (const header of ['x-service-organization-id', 'organization-id']) {
      const res = await api(t.baseUrl, 'GET', '/v1/companies', { key: a.apiKey, headers: { [header]: b.organizationId } });
      expect(res.status).toBe(200);
      expect(res.body.data.map((c: { id: string }) => c.id)).toEqual([a.company.id]);
    }
  });

  it('finds a company by id, vat: and peppol:, and 404 COMPANY_NOT_FOUND across organizations', async () => {
    const a = await bootstrap(t.baseUrl);
    const b = await bootstrap(t.baseUrl);
    for (const ref of [a.company.id, `vat:${a.company.vatNumber}`, `peppol:${a.company.peppolId}`]) {
      const res = await api(t.baseUrl, 'GET', `/v1/companies/${encodeURIComponent(ref)}`, { key: a.apiKey });
      expect({ ref, status: res.status, id: res.body.id }).toEqual({ ref, status: 200, id: a.company.id });
    }
    expectEnvelope(await api(t.baseUrl, 'GET', `/v1/companies/${b.company.id}`, { key: a.apiKey }), 404, 'COMPANY_NOT_FOUND');
  });
});

describe('envelope, request ids and routing', () => {
  it('an unknown route is a 404 envelope; every answer has a fresh req_ id', async () => {
    const res = await api(t.baseUrl, 'GET', '/v1/nothing-here');
    expectEnvelope(res, 404, 'ROUTE_NOT_FOUND');
    expect(res.body.error.docUrl).toMatch(/#ROUTE_NOT_FOUND$/);
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/me'), 404, 'ROUTE_NOT_FOUND');
    // Restricted mapping: an action name as a path is not reachable.
    expectEnvelope(await api(t.baseUrl, 'POST', '/tenancy/provision', { body: {} }), 404, 'ROUTE_NOT_FOUND');
    const ids = new Set<string>();
    for (let i = 0; i < 5; i++) ids.add((await api(t.baseUrl, 'GET', '/health/liveness')).headers.get('x-request-id')!);
    expect(ids.size).toBe(5);
  });

  it('validation errors name field and rule: MISSING_FIELD, INVALID_REQUEST for bodies that are not objects or not JSON', async () => {
    const { apiKey } = await bootstrap(t.baseUrl);
    const missing = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: apiKey, body: { scopes: ['send'] } });
    expectEnvelope(missing, 400, 'MISSING_FIELD');
    expect(missing.body.error.details).toEqual([{ field: 'name', rule: 'required', message: expect.stringContaining('name') }]);
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/api-keys', { key: apiKey, body: { name: 'x', scopes: ['nope'] } }), 400, 'INVALID_ENUM');
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/api-keys', { key: apiKey, body: [1, 2] }), 400, 'INVALID_REQUEST');
    const notJson = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: apiKey, rawBody: '{"name":', headers: { 'content-type': 'application/json' } });
    expectEnvelope(notJson, 400, 'INVALID_REQUEST');
    expect(notJson.body.error.details[0]).toMatchObject({ field: 'body', rule: 'json' });
  });

  it('path parameters cannot be overridden from the body or the query', async () => {
    const { apiKey } = await bootstrap(t.baseUrl);
    const first = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: apiKey, body: { name: 'keep' } });
    const res = await api(t.baseUrl, 'DELETE', `/v1/api-keys/key_nope?id=${first.body.id}`, { key: apiKey });
    expectEnvelope(res, 404, 'RESOURCE_NOT_FOUND');
    expect((await api(t.baseUrl, 'GET', '/v1/me', { key: first.body.key })).status).toBe(200);
  });
});

describe('request bodies', () => {
  it('decompresses a gzip body', async () => {
    const res = await api(t.baseUrl, 'POST', '/v1/sandbox/bootstrap', {
      rawBody: gzipSync(JSON.stringify({ label: 'zipped' })),
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    });
    expect(res.status).toBe(201);
    expect(res.body.company.name).toBe('zipped Sandbox BV');
  });

  it('a gzip bomb gets 413 PAYLOAD_TOO_LARGE, not an out-of-memory', async () => {
    // 64 MB of spaces inside a JSON string compress to about 64 KB (the JSON cap is 1 MB).
    const bomb = gzipSync(Buffer.concat([Buffer.from('{"label":"'), Buffer.alloc(64 * 1024 * 1024, 0x20), Buffer.from('"}')]), { level: 6 });
    expect(bomb.length).toBeLessThan(256 * 1024);
    const before = process.memoryUsage().rss;
    // A connection of its own: building the bomb kept this process busy, so a pooled keep-alive
    // socket may be one the server is closing right now.
    const res = await postOnNewConnection('/v1/sandbox/bootstrap', bomb, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(res.body.error.requestId).toBe(res.requestId);
    expect(process.memoryUsage().rss - before).toBeLessThan(100 * 1024 * 1024);
  });

  it('413 for a plain JSON body over the limit, 400 for a body that claims gzip but is not, 415 for an unknown encoding', async () => {
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/sandbox/bootstrap', { body: { label: 'x', pad: 'y'.repeat(2 * 1024 * 1024) } }), 413, 'PAYLOAD_TOO_LARGE');
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/sandbox/bootstrap', { rawBody: '{"label":"a"}', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } }), 400, 'INVALID_REQUEST');
    expectEnvelope(await api(t.baseUrl, 'POST', '/v1/sandbox/bootstrap', { rawBody: '{}', headers: { 'content-type': 'application/json', 'content-encoding': 'br' } }), 415, 'UNSUPPORTED_MEDIA_TYPE');
  });
});

describe('cursor pagination', () => {
  it('pages through keys newest first with opaque cursors; bad cursors are 400, negative ones the first page', async () => {
    const { apiKey } = await bootstrap(t.baseUrl);
    for (let i = 0; i < 24; i++) await api(t.baseUrl, 'POST', '/v1/api-keys', { key: apiKey, body: { name: `k${i}` } });
    const first = await api(t.baseUrl, 'GET', '/v1/api-keys', { key: apiKey });
    expect(first.body.data).toHaveLength(20);
    expect(first.body.hasMore).toBe(true);
    expect(first.body.data[0].name).toBe('k23');
    expect(first.body.data[0].key).toBeUndefined();
    const second = await api(t.baseUrl, 'GET', `/v1/api-keys?limit=20&cursor=${first.body.cursor}`, { key: apiKey });
    expect(second.body).toMatchObject({ hasMore: false, cursor: null });
    expect(second.body.data).toHaveLength(5);
    const all = [...first.body.data, ...second.body.data].map((k: { id: string }) => k.id);
    expect(new Set(all).size).toBe(25);

    const small = await api(t.baseUrl, 'GET', '/v1/api-keys?limit=3&cursor=-1', { key: apiKey });
    expect(small.body.data.map((k: { id: string }) => k.id)).toEqual(all.slice(0, 3));
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/api-keys?cursor=garbage', { key: apiKey }), 400, 'INVALID_REQUEST');
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/api-keys?limit=101', { key: apiKey }), 400, 'INVALID_REQUEST');
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/api-keys?limit=0', { key: apiKey }), 400, 'INVALID_REQUEST');
  });
});

describe('internals never leak', () => {
  it('a stopped service is a 503 UPSTREAM_UNAVAILABLE envelope with Retry-After, not SERVICE_NOT_AVAILABLE', async () => {
    const { apiKey } = await bootstrap(t.baseUrl);
    const sandbox = t.app.broker.getLocalService('sandbox')!;
    await t.app.broker.destroyService(sandbox);
    try {
      const res = await api(t.baseUrl, 'POST', '/v1/sandbox/bootstrap', { body: {} });
      expectEnvelope(res, 503, 'UPSTREAM_UNAVAILABLE');
      expect(res.headers.get('retry-after')).toBe('5');
      expect((await api(t.baseUrl, 'GET', '/v1/me', { key: apiKey })).status).toBe(200);
    } finally {
      const { SERVICE_CATALOGUE } = await import('../../services/index.ts');
      t.app.broker.createService(SERVICE_CATALOGUE.sandbox!.schema);
      await t.app.broker.waitForServices(['sandbox']);
    }
  });
});
