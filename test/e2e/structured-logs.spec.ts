/**
 * Structured logs as ops get them: `node server.ts` with MOL_LOG_FORMAT=json at debug level (the
 * most a process writes), a full exchange through it (API key, OAuth client credentials, a webhook
 * with its signing secret, a send delivered to the other organization, the webhook delivered to a
 * real receiver), and then its whole output: every line one JSON object naming its service, the
 * request's lines carrying its request and organization ids, and nowhere the key, the secrets, the
 * token or the invoice's content.
 */
import { startServer, stop, waitFor } from '../support/server-process.ts';
import { freePort } from '../support/servers.ts';
import { createTestDatabase } from '../support/database.ts';
import { api } from '../support/app.ts';
import { startReceiver, eventually } from '../support/webhook-receiver.ts';

const TIMEOUT_MS = 120_000;

it('JSON lines with service, request and organization ids; no key, secret, token or document content', async () => {
  const db = await createTestDatabase();
  const port = String(await freePort());
  const receiver = await startReceiver();
  const server = startServer({
    PORT: port, DATABASE_URL: db.url, EINV_MIGRATE_ON_START: 'true', NATS_URL: '', SERVICES: '', REDIS_URL: '',
    MOL_LOG_FORMAT: 'json', MOL_LOG_LEVEL: 'debug', EINV_ACCESS_LOG: 'true', EINV_BOOTSTRAP_PER_IP_PER_HOUR: '1000', EINV_WORKERS: '1',
  });
  const base = `http://127.0.0.1:${port}`;
  const secrets: string[] = [];
  const contents: string[] = [];
  let sendRequestId = '';
  let organizationId = '';
  try {
    await waitFor(`${base}/health/liveness`, server);
    const a = (await api(base, 'POST', '/v1/sandbox/bootstrap', { body: { label: 'logs-a' } })).body;
    const b = (await api(base, 'POST', '/v1/sandbox/bootstrap', { body: { label: 'logs-b' } })).body;
    organizationId = a.organizationId;
    secrets.push(a.apiKey, b.apiKey);

    const hook = await api(base, 'POST', '/v1/webhooks', { key: a.apiKey, body: { url: receiver.url, events: ['*'] } });
    expect(hook.status).toBe(201);
    secrets.push(hook.body.secret);

    const integration = await api(base, 'POST', '/v1/integrations', { key: a.apiKey, body: { name: 'erp-sync' } });
    expect(integration.status).toBe(201);
    secrets.push(integration.body.clientSecret);
    const token = await api(base, 'POST', '/oauth/token', { body: { grant_type: 'client_credentials', client_id: integration.body.clientId, client_secret: integration.body.clientSecret, audience: 'einvoicing-exchange-api' } });
    expect(token.status).toBe(200);
    secrets.push(token.body.access_token);
    expect((await api(base, 'GET', '/v1/companies', { key: token.body.access_token, headers: { 'x-service-organization-id': a.organizationId } })).status).toBe(200);
    // A wrong secret is refused: what it was is not logged either.
    const wrong = `wrong-secret-${Date.now()}-x9`;
    expect((await api(base, 'POST', '/oauth/token', { body: { grant_type: 'client_credentials', client_id: integration.body.clientId, client_secret: wrong, audience: 'einvoicing-exchange-api' } })).status).toBe(401);
    secrets.push(wrong);

    const number = `LOGS-${Date.now()}`;
    const street = `Geheimstraße ${Date.now() % 1000}`;
    const description = `Confidential advisory ${Date.now()}`;
    contents.push(number, street, description);
    const sent = await api(base, 'POST', '/v1/documents/send', {
      key: a.apiKey,
      body: { type: 'invoice', format: 'json', from: a.company.id, to: b.company.peppolId, document: {
        number, issueDate: '2026-03-01', dueDate: '2026-04-01', buyerReference: 'PO-9',
        seller: { name: 'Acme SPRL', vatNumber: a.company.vatNumber, address: { street, city: 'Brussels', postalCode: '1000', country: 'BE' } },
        buyer: { name: 'Client SA', vatNumber: 'FR40303265045', address: { street: '1 rue de Paris', city: 'Paris', postalCode: '75001', country: 'FR' } },
        lines: [{ description, quantity: 2, unit: 'HUR', unitPrice: 100, vatRate: 21 }],
      } },
    });
    expect(sent.status).toBe(201);
    sendRequestId = sent.headers.get('x-request-id')!;
    await eventually(async () => (await api(base, 'GET', `/v1/documents/${sent.body.id}`, { key: a.apiKey })).body.deliveryStatus === 'delivered', 30_000, 'delivered');
    await receiver.waitFor(1, 30_000);
    // The receiver got the invoice's events: the log must not have their bodies either.
    expect(receiver.requests.some((r) => r.rawBody.includes(sent.body.id))).toBe(true);
  } finally {
    expect(await stop(server)).toBe(0);
    await receiver.close();
    await db.drop();
  }

  const lines = server.output().split('\n').filter((l) => l.trim());
  // Console output of the entry point itself (a startup banner) aside, every line is one JSON object.
  const records = lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(records.length).toBeGreaterThan(20);
  expect(lines.filter((l) => !l.startsWith('{') && !/^(listening on|SIGTERM)/.test(l))).toEqual([]);
  for (const r of records) {
    expect(typeof r.level).toBe('number');
    expect(typeof r.time).toBe('string');
    expect(typeof r.msg).toBe('string');
    expect(typeof r.nodeID).toBe('string');
    expect(typeof (r.svc ?? r.mod)).toBe('string');
  }
  // The send's access-log line, and the lines its actions wrote, carry its ids.
  const access = records.find((r) => r.mod === 'access' && r.requestId === sendRequestId);
  expect(access).toMatchObject({ svc: 'gateway', organizationId, method: 'POST', route: '/v1/documents/send', status: 201 });
  const during = records.filter((r) => r.requestId === sendRequestId);
  expect(new Set(during.map((r) => r.svc ?? r.mod)).size).toBeGreaterThanOrEqual(2);
  for (const r of during.filter((x) => x.mod !== 'access' && x.organizationId !== undefined)) expect(r.organizationId).toBe(organizationId);

  // A leak is reported by where it happened (the line, the secret masked), never silently.
  const leaks = (needle: string) => lines.filter((l) => l.includes(needle)).map((l) => l.replaceAll(needle, '<HERE>').slice(0, 400));
  for (const secret of secrets) expect({ secret: secret.slice(0, 8), lines: leaks(secret) }).toEqual({ secret: secret.slice(0, 8), lines: [] });
  for (const content of contents) expect({ content, lines: leaks(content) }).toEqual({ content, lines: [] });
}, TIMEOUT_MS);
