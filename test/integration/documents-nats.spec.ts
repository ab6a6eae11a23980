/**
 * Documents in scaled mode: the gateway on one broker, documents, validation and the sandbox-network
 * adapter on another, joined by a real nats-server. A hybrid PDF goes from one sandbox organization
 * to another and comes back byte for byte through the representation paths.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { issuers } from '../support/issuers.ts';
import { startTestApp, api, bootstrap, type TestApp } from '../support/app.ts';
import { corpusPath } from '../support/corpus.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
process.env.EINV_RATE_LIMITS = 'free=100000';

let edge: TestApp;
let core: TestApp;

beforeAll(async () => {
  const { SERVICE_CATALOGUE } = await import('../../services/index.ts');
  const namespace = `t${randomBytes(4).toString('hex')}`;
  const transporter = { type: 'NATS' as const, options: { url: process.env.EINV_TEST_NATS_URL! } };
  const domain = Object.keys(SERVICE_CATALOGUE).filter((s) => s !== 'gateway');
  core = await startTestApp({ services: domain, broker: { namespace, nodeID: 'core-docs', transporter } });
  edge = await startTestApp({ services: ['gateway'], databaseUrl: core.databaseUrl, broker: { namespace, nodeID: 'edge-docs', transporter } });
  await edge.app.broker.waitForServices(['tenancy', 'sandbox', 'documents', 'adapter.sandbox-network'], 10_000);
});
afterAll(async () => {
  await edge.stop({ keepDatabase: true });
  await core.stop();
});

it('sends a hybrid PDF across NATS and serves its representations byte for byte', async () => {
  // The hybrid PDF is issued by Bei Spiel GmbH (DE136695976): sent by that company.
  const [a, b] = [await issuers(edge.baseUrl, ['DE136695976'], 'nats-a'), await bootstrap(edge.baseUrl, { label: 'nats-b' })];
  const pdf = readFileSync(corpusPath('mustangproject/validator/src/test/resources/validXRechnung.pdf'));
  const sent = await api(edge.baseUrl, 'POST', '/v1/documents/send', { key: a.apiKey, headers: a.as('DE136695976'), body: { type: 'invoice', format: 'auto', to: b.company.peppolId, file: { content: pdf.toString('base64') } } });
  expect(sent.status).toBe(201);
  const until = Date.now() + 15_000;
  let incoming: { id: string; links: Record<string, string> } | undefined;
  while (!incoming && Date.now() < until) {
    const found = await api(edge.baseUrl, 'POST', '/v1/documents/search', { key: b.apiKey, body: { filters: { direction: 'incoming' } } });
    incoming = found.body.data[0];
    if (!incoming) await new Promise((r) => setTimeout(r, 100));
  }
  expect(incoming).toBeDefined();
  const res = await fetch(`${edge.baseUrl}${incoming!.links.pdf!}`, { headers: { authorization: `Bearer ${b.apiKey}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/pdf');
  expect(Buffer.from(await res.arrayBuffer()).equals(pdf)).toBe(true);
  const xml = await api(edge.baseUrl, 'GET', incoming!.links.xml!, { key: b.apiKey });
  expect(xml.headers.get('content-type')).toMatch(/^application\/xml/);
  expect(xml.text).toContain('CrossIndustryInvoice');
  const raw = await api(edge.baseUrl, 'POST', '/v1/documents/send?type=invoice&filename=a.bin', { key: a.apiKey, rawBody: Buffer.from([0, 1, 2, 250]), headers: { ...a.as('DE136695976'), 'content-type': 'application/octet-stream' } });
  expect(raw.status).toBe(201);
  const back = Buffer.from(await (await fetch(`${edge.baseUrl}/v1/documents/${raw.body.id}/original`, { headers: { authorization: `Bearer ${a.apiKey}` } })).arrayBuffer());
  expect([...back]).toEqual([0, 1, 2, 250]);
});
