/**
 * `GET /v1/directory/search?source=peppol`: the Peppol Directory this deployment is configured with
 * (here a Directory on 127.0.0.1 answering its JSON search API), its matches as our listings, its
 * pages as our cursors; without q or country 400; a Directory that does not answer 503. A
 * deployment with none configured answers 503 too (test/integration/directory.spec.ts).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';
import { BILLING_DOCUMENT_TYPES } from '../../mappings/identifiers/peppol-network.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';

const PARTICIPANTS = [
  { id: '9925:be0403170701', name: 'Acme Belgium', country: 'BE', docs: [BILLING_DOCUMENT_TYPES.invoice, BILLING_DOCUMENT_TYPES['credit-note']] },
  { id: '0088:5790000435951', name: 'Acme Nordic', country: 'DK', docs: [BILLING_DOCUMENT_TYPES.invoice, 'urn:oasis:names:specification:ubl:schema:xsd:Order-2::Order##urn:fdc:peppol.eu:poacc:trns:order:3::2.1'] },
  { id: '0192:991825827', name: 'Acme Norge', country: 'NO', docs: [] },
];

let t: TestApp;
let directory: Server;
const asked: URLSearchParams[] = [];
let healthy = true;

beforeAll(async () => {
  directory = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname !== '/search/1.0/json') { res.writeHead(404).end(); return; }
    asked.push(url.searchParams);
    if (!healthy) { res.writeHead(500).end('down'); return; }
    const q = (url.searchParams.get('q') ?? '').toLowerCase();
    const country = url.searchParams.get('country');
    const found = PARTICIPANTS.filter((p) => (!q || p.name.toLowerCase().includes(q)) && (!country || p.country === country));
    const rpi = Number(url.searchParams.get('rpi') ?? 0); const rpc = Number(url.searchParams.get('rpc') ?? 20);
    const page = found.slice(rpi * rpc, (rpi + 1) * rpc);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({
      version: '1.0', 'total-result-count': found.length, 'used-result-count': page.length, 'result-page-index': rpi, 'result-page-count': rpc,
      matches: page.map((p) => ({
        participantID: { scheme: 'iso6523-actorid-upis', value: p.id },
        docTypes: p.docs.map((d) => ({ scheme: 'busdox-docid-qns', value: d })),
        entities: [{ name: [{ name: p.name }], countryCode: p.country }],
      })),
    }));
  });
  await new Promise<void>((resolve) => directory.listen(0, '127.0.0.1', resolve));
  process.env.EINV_PEPPOL_DIRECTORY_URL = `http://127.0.0.1:${(directory.address() as AddressInfo).port}`;
  t = await startTestApp();
});
afterAll(async () => {
  await t.stop();
  await new Promise((resolve) => directory.close(resolve));
  delete process.env.EINV_PEPPOL_DIRECTORY_URL;
});

it('lists the Directory\'s matches with the document types we send, page by page', async () => {
  const { apiKey } = await bootstrap(t.baseUrl, { label: 'pd-a' });
  const first = await api<{ data: unknown[]; hasMore: boolean; cursor: string | null }>(t.baseUrl, 'GET', '/v1/directory/search?source=peppol&q=acme&limit=2', { key: apiKey });
  expect(first.status).toBe(200);
  expect(first.body.data).toEqual([
    { peppolId: '9925:be0403170701', name: 'Acme Belgium', country: 'BE', documentTypes: ['invoice', 'credit-note'] },
    { peppolId: '0088:5790000435951', name: 'Acme Nordic', country: 'DK', documentTypes: ['invoice', 'purchase-order'] },
  ]);
  expect(first.body.hasMore).toBe(true);
  expect(asked.at(-1)?.get('q')).toBe('acme');

  const second = await api<{ data: Array<{ peppolId: string }>; hasMore: boolean; cursor: string | null }>(t.baseUrl, 'GET', `/v1/directory/search?source=peppol&q=acme&limit=2&cursor=${first.body.cursor}`, { key: apiKey });
  expect(second.body).toMatchObject({ data: [{ peppolId: '0192:991825827', documentTypes: [] }], hasMore: false, cursor: null });
  expect(asked.at(-1)?.get('rpi')).toBe('1');

  const byCountry = await api<{ data: Array<{ peppolId: string }> }>(t.baseUrl, 'GET', '/v1/directory/search?source=peppol&country=DK', { key: apiKey });
  expect(byCountry.body.data.map((d) => d.peppolId)).toEqual(['0088:5790000435951']);
});

it('needs q or country, refuses a cursor of another source, and answers 503 while the Directory is down', async () => {
  const { apiKey } = await bootstrap(t.baseUrl, { label: 'pd-b' });
  expectEnvelope(await api(t.baseUrl, 'GET', '/v1/directory/search?source=peppol', { key: apiKey }), 400, 'INVALID_REQUEST');
  const platformCursor = Buffer.from(JSON.stringify({ k: 'comp_01ABC' })).toString('base64url');
  expectEnvelope(await api(t.baseUrl, 'GET', `/v1/directory/search?source=peppol&q=acme&cursor=${platformCursor}`, { key: apiKey }), 400, 'INVALID_REQUEST');
  healthy = false;
  try {
    const down = await api(t.baseUrl, 'GET', '/v1/directory/search?source=peppol&q=acme', { key: apiKey });
    expectEnvelope(down, 503, 'UPSTREAM_UNAVAILABLE');
  } finally {
    healthy = true;
  }
});
