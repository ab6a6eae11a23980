/**
 * The reachability self-test (`POST /v1/companies/{id}/reachability-test`) on a loopback Peppol
 * network shaped like peppol-as4.spec.ts: a DNS server for the SML zone, the platform's own SMP and
 * access point (peppol-as4, POP000001) under a generated G3-shaped test PKI with revocation checked
 * hard, and an SMP stand-in that answers wrongly on purpose. A registered company whose SML entry
 * points at our SMP passes every hop (the test message is acknowledged by our own inbound route and
 * not stored); a broken SMP entry fails hop `smp` naming the cause; a participant the SML does not
 * know fails hop `sml`.
 */
import { randomInt } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestApp, api, bootstrap, type TestApp } from '../support/app.ts';
import type { SmlDns } from '../support/sml-dns.ts';
import type { PeppolTestPki } from '../support/peppol-pki.ts';
import { startLoopbackPeppol, type LoopbackPeppol } from '../support/peppol-network.ts';
import { BILLING_DOCUMENT_TYPES, BILLING_PROCESS, DOCUMENT_SCHEME, PARTICIPANT_SCHEME, naptrName } from '../../mappings/identifiers/peppol-network.ts';
import { buildSbd, sbdhFor } from '../../mappings/peppol/sbdh.ts';
import { packUserMessage } from '../../adapters/peppol-kit/as4/exchange.ts';
import { largeJsonInvoice } from '../support/hostile-inputs.ts';
import type { ReachabilityView } from '../../services/tenancy/tenancy.contract.ts';
import { randomGermanVat } from '../support/vat.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
process.env.EINV_SMP_MODE = 'test';
process.env.EINV_RATE_LIMITS = 'free=100000,pro=100000';


let t: TestApp;
let net: LoopbackPeppol;
let sml: SmlDns;
let pki: PeppolTestPki;
/** An SMP stand-in in front of ours: what it does to each participant's signed metadata. */
let brokenSmp: { server: Server; url: string; faults: Map<string, 'bad-signature' | 'http-500' | 'no-metadata'> };
let owner: string;

async function startBrokenSmp(): Promise<typeof brokenSmp> {
  const faults: typeof brokenSmp['faults'] = new Map();
  const server = createServer((req, res) => {
    void (async () => {
      const path = req.url ?? '/';
      const decoded = decodeURIComponent(path);
      const participant = [...faults.keys()].find((p) => decoded.toLowerCase().includes(`::${p.toLowerCase()}`));
      const fault = participant ? faults.get(participant) : undefined;
      const isMetadata = decoded.includes('/services/');
      if (isMetadata && fault === 'http-500') return res.writeHead(500, { 'content-type': 'text/plain' }).end('internal error');
      if (isMetadata && fault === 'no-metadata') return res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      const upstream = await fetch(`${t.baseUrl}${path}`);
      let body = await upstream.text();
      // The endpoint address changed after signing: the signature no longer covers what is served.
      if (isMetadata && fault === 'bad-signature') body = body.replace(/Address>http:\/\/127\.0\.0\.1:\d+/, 'Address>http://attacker.invalid');
      res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/xml' }).end(body);
    })().catch((err: Error) => { if (!res.headersSent) res.writeHead(502).end(err.message); });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, faults, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/smp` };
}

beforeAll(async () => {
  net = await startLoopbackPeppol('einv-reach-', { negativeCacheTtlMs: '0' });
  ({ pki, sml } = net);
  t = await startTestApp();
  brokenSmp = await startBrokenSmp();
  owner = (await bootstrap(t.baseUrl, { label: 'reach', keyType: 'platform' })).apiKey;
}, 60_000);

afterAll(async () => {
  await t?.stop();
  await new Promise((resolve) => brokenSmp?.server.close(resolve));
  await net?.close();
  for (const k of ['EINV_SMP_MODE', 'EINV_RATE_LIMITS']) delete process.env[k];
});

async function company(options: { register: boolean }): Promise<{ id: string; peppolId: string }> {
  const created = await api<{ id: string; peppolId: string }>(t.baseUrl, 'POST', '/v1/companies', { key: owner, body: { vatNumber: randomGermanVat() } });
  expect(created.status).toBe(201);
  if (options.register) expect((await api(t.baseUrl, 'POST', `/v1/companies/${created.body.id}/register`, { key: owner })).status).toBe(200);
  return created.body;
}

const reachabilityTest = (id: string, body?: Record<string, unknown>) => api<ReachabilityView>(t.baseUrl, 'POST', `/v1/companies/${id}/reachability-test`, { key: owner, ...(body ? { body } : {}) });

it('a registered company whose SML entry points at our SMP: every hop passes, and the test message is not stored', async () => {
  const c = await company({ register: true });
  sml.register(c.peppolId, `${t.baseUrl}/smp`);
  const res = await reachabilityTest(c.id);
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ companyId: c.id, peppolId: c.peppolId, documentType: 'invoice', network: 'peppol-as4', reachable: true });
  expect(res.body.hops.map((h) => [h.hop, h.ok])).toEqual([['sml', true], ['smp', true], ['certificate', true], ['endpoint', true], ['receipt', true], ['inbound', true]]);
  const [smlHop, smpHop, certificate, endpoint, receipt, inbound] = res.body.hops;
  expect(smlHop!.detail).toContain(naptrName(c.peppolId, sml.zone));
  expect(smlHop!.detail).toContain(`${t.baseUrl}/smp`);
  expect(smpHop!.detail).toMatch(/service group HTTP 200.*metadata HTTP 200, signature valid.*endpoint http:\/\/127\.0\.0\.1:\d+\/connectors\/peppol-as4\/as4 \(peppol-transport-as4-v2_0/);
  expect(certificate!.detail).toContain('POP000001');
  expect(endpoint!.detail).toMatch(/HTTP 200/);
  expect(receipt!.detail).toMatch(/signed by POP000001, verified/);
  expect(inbound!.detail).toContain('not stored');
  expect(res.body.hops.every((h) => Number.isInteger(h.ms) && h.ms >= 0)).toBe(true);

  const credit = await reachabilityTest(c.id, { documentType: 'credit-note' });
  expect(credit.body).toMatchObject({ documentType: 'credit-note', reachable: true });
  // Acknowledged by our own inbound route, never booked.
  const inbox = await api<{ data: unknown[] }>(t.baseUrl, 'GET', '/v1/documents?direction=incoming', { key: owner });
  expect(inbox.body.data).toHaveLength(0);
}, 60_000);

it.each([
  { fault: 'bad-signature' as const, cause: /metadata .* HTTP 200, signature refused: .*(signature|digest)/i },
  { fault: 'http-500' as const, cause: /service group HTTP 200 .*; metadata http:\/\/127\.0\.0\.1:\d+\/smp\/.*: HTTP 500$/ },
  { fault: 'no-metadata' as const, cause: /no service metadata for .*Invoice-2::Invoice##.*the service group lists: busdox-docid-qns::/ },
])('a broken SMP entry ($fault): reachable false, hop smp fails naming the cause', async ({ fault, cause }) => {
  const c = await company({ register: true });
  brokenSmp.faults.set(c.peppolId, fault);
  sml.register(c.peppolId, brokenSmp.url);
  const res = await reachabilityTest(c.id);
  expect(res.status).toBe(200);
  expect(res.body.reachable).toBe(false);
  expect(res.body.hops.map((h) => [h.hop, h.ok])).toEqual([['sml', true], ['smp', false]]);
  expect(res.body.hops[1]!.detail).toMatch(cause);
}, 60_000);

it('a participant the SML does not know: hop sml fails with the name asked', async () => {
  const c = await company({ register: true });
  const res = await reachabilityTest(c.id);
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ reachable: false, hops: [{ hop: 'sml', ok: false }] });
  expect(res.body.hops).toHaveLength(1);
  expect(res.body.hops[0]!.detail).toContain(naptrName(c.peppolId, sml.zone));
  expect(res.body.hops[0]!.detail).toContain('not registered in the SML');
}, 60_000);

it('an unknown company is 404 COMPANY_NOT_FOUND; one not registered on the network 409 INVALID_TRANSITION', async () => {
  const unknown = await api<{ error: { code: string } }>(t.baseUrl, 'POST', '/v1/companies/company_nope/reachability-test', { key: owner });
  expect(unknown.status).toBe(404);
  expect(unknown.body.error.code).toBe('COMPANY_NOT_FOUND');
  const c = await company({ register: false });
  const unregistered = await api<{ error: { code: string; message: string } }>(t.baseUrl, 'POST', `/v1/companies/${c.id}/reachability-test`, { key: owner });
  expect(unregistered.status).toBe(409);
  expect(unregistered.body.error).toMatchObject({ code: 'INVALID_TRANSITION', message: expect.stringContaining('not registered') });
}, 60_000);

it('a message named like a test message but sent by another access point is an ordinary message: stored', async () => {
  const c = await company({ register: true });
  const seller = await bootstrap(t.baseUrl, { label: 'reach-render' });
  const xml = (await api<{ renderedXml: string }>(t.baseUrl, 'POST', '/v1/documents/validate', { key: seller.apiKey, body: { format: 'json', type: 'invoice', document: largeJsonInvoice('REACH-FOREIGN-1', 1, seller.company.vatNumber) } })).body.renderedXml;
  const invoice = BILLING_DOCUMENT_TYPES.invoice;
  const sbd = buildSbd(sbdhFor({ documentXml: xml, sender: '0088:5790000000011', receiver: c.peppolId, documentTypeId: invoice, processId: BILLING_PROCESS.value, countryC1: 'DK' }), xml);
  const m = packUserMessage({
    header: {
      messageId: `probe-${randomInt(1e9)}@einv`, timestamp: new Date().toISOString(), conversationId: 'reach', fromParty: 'POP000002', toParty: 'POP000001',
      process: { scheme: BILLING_PROCESS.scheme, value: BILLING_PROCESS.value }, documentType: { scheme: DOCUMENT_SCHEME, value: invoice },
      originalSender: { scheme: PARTICIPANT_SCHEME, value: '0088:5790000000011' }, finalRecipient: { scheme: PARTICIPANT_SCHEME, value: c.peppolId },
    },
    sbd: Buffer.from(sbd), key: { certificate: pki.ap2.certificate, privateKey: pki.ap2.privateKey }, receiverCertificate: pki.ap1.certificate,
  });
  const res = await fetch(`${t.baseUrl}/connectors/peppol-as4/as4`, { method: 'POST', headers: { 'content-type': m.contentType }, body: new Uint8Array(m.body) });
  expect(await res.text()).toContain('NonRepudiationInformation');
  const inbox = await api<{ data: Array<{ number: string }> }>(t.baseUrl, 'GET', '/v1/documents?direction=incoming', { key: owner });
  expect(inbox.body.data.map((d) => d.number)).toContain('REACH-FOREIGN-1');
}, 60_000);
