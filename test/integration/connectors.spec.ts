/**
 * Connectors enabled by configuration only: file-drop (adapters/file-drop) and a test connector
 * found on EINV_CONNECTORS_PATH are routed to through the API with no code naming them; a partner
 * that never answers holds only its own connector's slots (other sends are delivered, no pooled
 * connection waits in a transaction); a network's own error code becomes the document's; the
 * same inbound network message handed over concurrently is one document.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createHmac } from 'node:crypto';
import { join } from 'node:path';
import { corpusPath } from '../support/corpus.ts';
import type { EntityManager } from '@mikro-orm/postgresql';
import pg from 'pg';
import { selfSignedCertificate } from '../support/certificates.ts';
import { startTestApp, api, bootstrap, type TestApp } from '../support/app.ts';
import { call } from '../../services/shared/call.ts';
import { adapterContracts } from '../../services/connectors/adapters.contract.ts';

const dirs = mkdtempSync(join(tmpdir(), 'connectors-spec-'));
const hung: ServerResponse[] = [];
const seen: string[] = [];
let closing = false;
const partner = createServer((req: IncomingMessage, res: ServerResponse) => {
  req.resume();
  seen.push(`${req.url} ${req.headers.authorization}`);
  if (req.url?.includes('hang') && !closing) { hung.push(res); return; } // never answers (until the test ends)
  if (req.url?.includes('refuse')) { res.writeHead(422).end('unknown buyer reference'); return; }
  res.writeHead(200).end(`partner-msg-${seen.length}`);
});

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
process.env.EINV_RATE_LIMITS = 'free=100000';
process.env.EINV_DELIVERY_RETRY_MS = '60000';
process.env.EINV_DELIVERY_TIMEOUT_MS = '50000';
process.env.EINV_CONNECTORS = 'sandbox-network,file-drop,slow-partner';
process.env.EINV_CONNECTORS_PATH = 'test/support/connectors';
process.env.EINV_CONNECTOR_FILE_DROP_OUTBOX_DIR = join(dirs, 'out');
process.env.EINV_CONNECTOR_FILE_DROP_INBOX_DIR = join(dirs, 'in');
process.env.EINV_CONNECTOR_FILE_DROP_PARTICIPANTS = '9999:file-drop-partner';
process.env.EINV_CONNECTOR_FILE_DROP_POLL_INTERVAL_MS = '200';
process.env.EINV_CONNECTOR_SLOW_PARTNER_TOKEN = 'partner-token-s3cret';
process.env.EINV_CONNECTOR_SLOW_PARTNER_CONCURRENCY = '10';

let t: TestApp;
let a: Awaited<ReturnType<typeof bootstrap>>;
let b: Awaited<ReturnType<typeof bootstrap>>;
beforeAll(async () => {
  await new Promise<void>((resolve) => partner.listen(0, '127.0.0.1', resolve));
  process.env.EINV_CONNECTOR_SLOW_PARTNER_URL = `http://127.0.0.1:${(partner.address() as AddressInfo).port}`;
  t = await startTestApp();
  [a, b] = [await bootstrap(t.baseUrl, { label: 'alice' }), await bootstrap(t.baseUrl, { label: 'bob' })];
});
let stopped = false;
afterAll(async () => {
  closing = true;
  for (const res of hung) res.destroy();
  // The shutdown test stopped the app and kept its database to read it (the test cluster goes at teardown).
  if (!stopped) await t?.stop();
  partner.closeAllConnections();
  await new Promise((resolve) => partner.close(resolve));
  rmSync(dirs, { recursive: true, force: true });
});

let counter = 0;
const invoice = () => ({
  number: `CON-${Date.now()}-${++counter}`, issueDate: '2026-03-01', dueDate: '2026-04-01', buyerReference: 'PO-9',
  // Issued by alice (a), who sends them.
  seller: { name: 'Acme SPRL', vatNumber: a.company.vatNumber, address: { street: 'Rue Neuve 1', city: 'Brussels', postalCode: '1000', country: 'BE' } },
  buyer: { name: 'Client SA', vatNumber: 'FR40303265045', address: { street: '1 rue de Paris', city: 'Paris', postalCode: '75001', country: 'FR' } },
  lines: [{ description: 'Consulting', quantity: 2, unit: 'HUR', unitPrice: 100, vatRate: 21 }],
});
const send = (to: string) => api(t.baseUrl, 'POST', '/v1/documents/send', { key: a.apiKey, body: { type: 'invoice', format: 'json', to, document: invoice() } });

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function settled(id: string) {
  return until(`${id} to settle`, async () => {
    const res = await api(t.baseUrl, 'GET', `/v1/documents/${id}`, { key: a.apiKey });
    return res.body.deliveryStatus !== 'pending' ? res.body : undefined;
  });
}

describe('a connector enabled only by configuration', () => {
  it('file-drop: a send to one of its participants is written to its outbox folder', async () => {
    const res = await send('9999:file-drop-partner');
    expect(res.status).toBe(201);
    expect(await settled(res.body.id)).toMatchObject({ deliveryStatus: 'delivered' });
    const written = readFileSync(join(dirs, 'out', 'test', `${res.body.id}.xml`), 'utf8');
    expect(written).toContain(res.body.number);
  });

  it('file-drop: a report through its adapter service is filed once; a second filing of that id answers the first and a broken one is refused with the connector\'s code', async () => {
    const report = adapterContracts('file-drop').report;
    const msg = {
      reportId: `rpt_${Date.now()}`, livemode: false, kind: 'transaction' as const, country: 'FR', period: '2026-11', documentIds: ['doc_1'],
      reporter: { peppolId: a.company.peppolId ?? null, name: 'Alice', organizationId: a.organizationId, companyId: a.company.id },
      payload: { content: Buffer.from('<Report n="1"/>').toString('base64'), contentType: 'application/xml' },
    };
    const first = await call(t.app.broker, report, msg);
    expect(first).toMatchObject({ outcome: 'accepted', reportId: msg.reportId, networkReportId: expect.stringMatching(/^file-drop:/) });
    expect(readFileSync(join(dirs, 'out', 'test', 'reports', `${msg.reportId}.xml`), 'utf8')).toBe('<Report n="1"/>');
    const again = await call(t.app.broker, report, { ...msg, payload: { ...msg.payload, content: Buffer.from('<Report n="2"/>').toString('base64') } });
    expect(again).toEqual(first);
    expect(readFileSync(join(dirs, 'out', 'test', 'reports', `${msg.reportId}.xml`), 'utf8')).toBe('<Report n="1"/>');
    expect(await call(t.app.broker, report, { ...msg, reportId: '../escape' })).toMatchObject({ outcome: 'rejected', errorCode: 'FILE_DROP_BAD_REPORT_ID' });
  });

  it('file-drop: an invoice dropped in its inbox reaches the company it is addressed to, once', async () => {
    const [scheme, value] = b.company.peppolId.split(':');
    const xml = readFileSync(corpusPath('peppol-bis-invoice-3', 'rules', 'examples', 'base-example.xml'), 'utf8')
      .replace('<cbc:EndpointID schemeID="0002">FR23342</cbc:EndpointID>', `<cbc:EndpointID schemeID="${scheme}">${value}</cbc:EndpointID>`)
      .replace('<cbc:ID>Snippet1</cbc:ID>', '<cbc:ID>DROP-1</cbc:ID>');
    const inbox = join(dirs, 'in', 'test');
    writeFileSync(join(inbox, 'drop-1.xml'), xml);
    await until('the dropped file to be acknowledged', async () => (existsSync(join(inbox, 'done', 'drop-1.xml')) ? true : undefined));
    writeFileSync(join(inbox, 'drop-1.xml'), xml); // dropped again: the same network message
    await until('the second drop to be acknowledged', async () => (!existsSync(join(inbox, 'drop-1.xml')) ? true : undefined));
    const found = await api(t.baseUrl, 'POST', '/v1/documents/search', { key: b.apiKey, body: { filters: { direction: 'incoming', number: 'DROP-1' } } });
    expect(found.body.data).toHaveLength(1);
    expect(found.body.data[0]).toMatchObject({ direction: 'incoming', deliveryStatus: 'received', companyId: b.company.id });
    expect(readdirSync(join(inbox, 'rejected'))).toEqual([]);
  });

  it('a permanent error keeps the network\'s own code as the document\'s errorCode, and the secret reaches only the partner', async () => {
    const res = await send('9999:slow-refuse');
    expect(res.status).toBe(201);
    expect(await settled(res.body.id)).toMatchObject({ deliveryStatus: 'failed', errorCode: 'PARTNER:422', errorMessage: expect.stringContaining('unknown buyer reference') });
    expect(seen.at(-1)).toBe('/9999%3Aslow-refuse Bearer partner-token-s3cret');
  });
});

describe('a partner that never answers', () => {
  it('holds only its own connector\'s slots: other sends are delivered and no connection waits in a transaction', async () => {
    const before = seen.length;
    const hanging = await Promise.all(Array.from({ length: 12 }, (_, i) => send(`9999:slow-hang-${i}`)));
    expect(hanging.map((r) => r.status)).toEqual(Array(12).fill(201));
    // The connector's concurrency (10) bounds what is in flight to the partner.
    await until('10 deliveries to hang', async () => (hung.length >= 10 ? true : undefined));
    await new Promise((r) => setTimeout(r, 1_500));
    expect(hung).toHaveLength(10);
    expect(seen.length - before).toBe(10);

    const em = t.app.orm!.em.fork() as EntityManager;
    // A transaction open for more than a second (the old delivery held one for as long as the partner hung).
    const idleInTx = async () => Number((await em.execute<Array<{ n: string }>>(`select count(*) as n from pg_stat_activity where datname = current_database() and xact_start < now() - interval '1 second' and pid <> pg_backend_pid()`))[0]!.n);
    expect(await idleInTx()).toBe(0);

    // Meanwhile, sends through the other connectors go out as usual (more than the pool's 10 connections).
    const started = Date.now();
    const others = await Promise.all(Array.from({ length: 12 }, (_, i) => send(i % 2 ? b.company.id : '9999:file-drop-partner')));
    const results = await Promise.all(others.map((r) => settled(r.body.id)));
    expect(results.map((d) => d.deliveryStatus)).toEqual(Array(12).fill('delivered'));
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await idleInTx()).toBe(0);

    const stillPending = await Promise.all(hanging.map(async (r) => (await api(t.baseUrl, 'GET', `/v1/documents/${r.body.id}`, { key: a.apiKey })).body.deliveryStatus));
    expect(stillPending).toEqual(Array(12).fill('pending'));
  }, 30_000);
});

describe('the inbound hand-off', () => {
  it('the same network message id handed over concurrently is one document, and every hand-off answers it', async () => {
    const { call } = await import('../../services/shared/call.ts');
    const { receiveInbound } = await import('../../services/documents/documents.contract.ts');
    const doc = {
      connectorId: 'file-drop', messageId: `net-msg-${Date.now()}`, livemode: false, type: 'purchase-order', number: 'PO-DUP-1',
      sender: { peppolId: '9999:file-drop-partner', name: 'Partner' },
      recipient: { peppolId: b.company.peppolId, organizationId: b.organizationId, companyId: b.company.id, name: 'bob' },
      payload: { content: Buffer.from('{"number":"PO-DUP-1"}').toString('base64'), contentType: 'application/json', normalized: { number: 'PO-DUP-1' } },
    };
    const answers = await Promise.all(Array.from({ length: 6 }, () => call(t.app.broker, receiveInbound, doc)));
    expect(new Set(answers.map((x) => x.documentId)).size).toBe(1);
    expect(answers.filter((x) => !x.duplicate)).toHaveLength(1);
    const found = await api(t.baseUrl, 'POST', '/v1/documents/search', { key: b.apiKey, body: { filters: { direction: 'incoming', number: 'PO-DUP-1' } } });
    expect(found.body.data).toHaveLength(1);
    expect(found.body.data[0].id).toBe(answers[0]!.documentId);
  });

  it('a connector hands over only in the modes its manifest serves', async () => {
    const { call } = await import('../../services/shared/call.ts');
    const { receiveInbound } = await import('../../services/documents/documents.contract.ts');
    const doc = {
      connectorId: 'slow-partner', messageId: `live-${Date.now()}`, livemode: true, type: 'purchase-order', number: 'PO-LIVE-1',
      sender: { peppolId: '9999:slow-partner', name: 'Partner' },
      recipient: { peppolId: b.company.peppolId, organizationId: b.organizationId, companyId: b.company.id, name: 'bob' },
      payload: { content: Buffer.from('{}').toString('base64'), contentType: 'application/json' },
    };
    await expect(call(t.app.broker, receiveInbound, doc)).rejects.toMatchObject({ message: 'Connector slow-partner does not serve live mode' });
  });
});

describe('push-receive routes under /connectors/<id>/', () => {
  const post = (path: string, body: string, headers: Record<string, string> = {}) => fetch(`${t.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const sign = (body: string) => createHmac('sha256', 'partner-token-s3cret').update(body).digest('hex');

  it('a signed push is stored once and acknowledged each time; an unsigned one never reaches the connector', async () => {
    const body = JSON.stringify({ messageId: `push-${Date.now()}`, to: b.company.peppolId, number: 'PUSH-1' });
    const unsigned = await post('/connectors/slow-partner/inbound', body);
    expect(unsigned.status).toBe(401);
    const forged = await post('/connectors/slow-partner/inbound', body, { 'x-signature': sign(`${body} `) });
    expect(forged.status).toBe(401);
    const first = await post('/connectors/slow-partner/inbound', body, { 'x-signature': sign(body) });
    expect(first.status).toBe(200);
    const stored = await first.json() as { documentId: string; duplicate: boolean };
    expect(stored.duplicate).toBe(false);
    const again = await post('/connectors/slow-partner/inbound', body, { 'x-signature': sign(body) });
    expect(await again.json()).toEqual({ documentId: stored.documentId, duplicate: true });
    const found = await api(t.baseUrl, 'POST', '/v1/documents/search', { key: b.apiKey, body: { filters: { direction: 'incoming', number: 'PUSH-1' } } });
    expect(found.body.data.map((d: { id: string }) => d.id)).toEqual([stored.documentId]);
  });

  it('an mtls route needs a verified client certificate: one forwarded by a proxy counts only when the proxy is trusted', async () => {
    // a certificate as a TLS-terminating proxy would forward it (PEM)
    const pem = selfSignedCertificate('partner-ap', { bits: 1024 }).certPem;
    const header = { 'x-client-cert': encodeURIComponent(pem) };
    expect((await post('/connectors/slow-partner/whoami', '')).status).toBe(401);
    delete process.env.EINV_TRUST_PROXY;
    expect((await post('/connectors/slow-partner/whoami', '', header)).status).toBe(401);
    process.env.EINV_TRUST_PROXY = 'true';
    try {
      const res = await post('/connectors/slow-partner/whoami', '', header);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('CN=partner-ap');
      expect((await post('/connectors/slow-partner/whoami', '', { 'x-client-cert': 'not-a-certificate' })).status).toBe(401);
    } finally {
      delete process.env.EINV_TRUST_PROXY;
    }
  });

  it('only connectors that push-receive have routes, and only the routes they declare', async () => {
    expect((await post('/connectors/sandbox-network/inbound', '{}')).status).toBe(404);
    expect((await post('/connectors/nobody/inbound', '{}')).status).toBe(404);
    expect((await post('/connectors/slow-partner/other', '{}', { 'x-signature': sign('{}') })).status).toBe(404);
  });
});

describe('shutdown', () => {
  it('stops after the broker\'s graceful wait while deliveries still hang, and records the cut attempts for a re-send', async () => {
    const pending = hung.filter((res) => !res.destroyed).length;
    expect(pending).toBeGreaterThanOrEqual(10);
    const started = Date.now();
    stopped = true;
    await t.stop({ keepDatabase: true });
    // MOL_SHUTDOWN_TIMEOUT_MS (10 s) for running calls, then the connector's requests are cut.
    expect(Date.now() - started).toBeLessThan(14_000);
    const db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
    try {
      const { rows } = await db.query(`select count(*)::int as n from documents where receiver_peppol_id like '9999:slow-hang-%' and delivery_status = 'pending' and delivery_attempts = 1 and error_message like '%connector stopped%'`);
      expect(rows[0].n).toBeGreaterThanOrEqual(10);
    } finally {
      await db.end();
    }
  }, 40_000);
});

