/**
 * Peppol discovery end to end, on 127.0.0.1 only: a company registered through this deployment is
 * published by its SMP; an SML zone (a real DNS server) points the participant at that SMP; the
 * peppol-discovery connector, asked by the platform like any connector, resolves participant → DNS
 * U-NAPTR → SMP → signed endpoint, verifies the SMP signature against its trust store, keeps the
 * answer (a second check asks neither DNS nor SMP), and tells an unregistered participant from a
 * registered one. An SMP signed by a certificate outside the trust store is refused.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { selfSignedCertificate } from '../support/certificates.ts';
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';
import { largeJsonInvoice } from '../support/hostile-inputs.ts';
import { startSmlDns, type SmlDns } from '../support/sml-dns.ts';
import { makeLive } from '../support/live-key.ts';
import { smpKeys } from '../../services/smp/smp-keys.ts';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { X509Certificate } from 'node:crypto';
import { signedServiceMetadataXml, serviceGroupXml } from '../../services/smp/smp-documents.ts';
import { DiscoveryClient } from '../../adapters/peppol-kit/discovery.ts';
import { BILLING_DOCUMENT_TYPES, DOCUMENT_SCHEME, WILDCARD_DOCUMENT_SCHEME, PARTICIPANT_SCHEME } from '../../mappings/identifiers/peppol-network.ts';
import { randomGermanVat } from '../support/vat.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
process.env.EINV_SMP_MODE = 'test';

let t: TestApp;
let sml: SmlDns;
const dir = mkdtempSync(join(tmpdir(), 'einv-discovery-'));


beforeAll(async () => {
  sml = await startSmlDns();
  // The SMP of this deployment signs with its development certificate; trust exactly that one.
  const trustFile = join(dir, 'smp-trust.pem');
  writeFileSync(trustFile, smpKeys().certificatePem);
  Object.assign(process.env, {
    EINV_CONNECTORS: 'sandbox-network,peppol-discovery',
    EINV_CONNECTOR_PEPPOL_DISCOVERY_SML_ZONE: sml.zone,
    EINV_CONNECTOR_PEPPOL_DISCOVERY_DNS_SERVERS: sml.server,
    EINV_CONNECTOR_PEPPOL_DISCOVERY_TRUST_FILE: trustFile,
    // the SMP of this test answers over plain HTTP on 127.0.0.1
    EINV_CONNECTOR_PEPPOL_DISCOVERY_REQUIRE_HTTPS: 'false',
  });
  t = await startTestApp();
});
afterAll(async () => {
  await t.stop();
  await sml.close();
  for (const k of ['EINV_SMP_MODE', 'EINV_CONNECTORS', 'EINV_CONNECTOR_PEPPOL_DISCOVERY_SML_ZONE', 'EINV_CONNECTOR_PEPPOL_DISCOVERY_DNS_SERVERS', 'EINV_CONNECTOR_PEPPOL_DISCOVERY_TRUST_FILE', 'EINV_CONNECTOR_PEPPOL_DISCOVERY_REQUIRE_HTTPS']) delete process.env[k];
});

const check = (peppolId: string, documentType = 'invoice') =>
  t.app.broker.call('adapter.peppol-discovery.check', { recipient: { peppolId }, documentType, livemode: true }) as Promise<{ known: boolean; canReceive: boolean; documentTypes: string[]; peppolId?: string }>;

async function registeredCompany(label: string): Promise<{ peppolId: string }> {
  const org = await bootstrap(t.baseUrl, { label, keyType: 'platform' });
  const company = (await api<{ id: string; peppolId: string }>(t.baseUrl, 'POST', '/v1/companies', { key: org.apiKey, body: { vatNumber: randomGermanVat() } })).body;
  expect((await api(t.baseUrl, 'POST', `/v1/companies/${company.id}/register`, { key: org.apiKey })).status).toBe(200);
  return company;
}

it('resolves a participant through the SML zone and the SMP it names, then answers from its cache', async () => {
  const company = await registeredCompany('disc-a');
  sml.register(company.peppolId, `${t.baseUrl}/smp`);

  const first = await check(company.peppolId);
  expect(first).toEqual({
    known: true, canReceive: true, documentTypes: ['invoice', 'credit-note', 'purchase-order'], peppolId: company.peppolId,
    endpoint: { url: expect.stringMatching(/\/connectors\/peppol-as4\/as4$/), transportProfile: 'peppol-transport-as4-v2_0', certificateSubject: expect.stringContaining('CN='), certificateNotAfter: expect.any(String) },
  });

  const queries = sml.queries;
  sml.unregister(company.peppolId); // were it asked again, the zone would now say NXDOMAIN
  expect((await check(company.peppolId)).canReceive).toBe(true);
  expect(sml.queries).toBe(queries);
});

it('POST /v1/directory/verify with a live key answers from the real lookup, with the endpoint, then from its cache', async () => {
  const company = await registeredCompany('disc-v');
  sml.register(company.peppolId, `${t.baseUrl}/smp`);
  const caller = await bootstrap(t.baseUrl, { label: 'disc-live' });
  await makeLive(t.databaseUrl, caller.apiKey);

  const first = await api<Record<string, unknown>>(t.baseUrl, 'POST', '/v1/directory/verify', { key: caller.apiKey, body: { peppolId: company.peppolId, documentType: 'invoice' } });
  expect(first.status).toBe(200);
  expect(first.body).toMatchObject({
    peppolId: company.peppolId, registered: true, canReceive: true, network: 'peppol-discovery', cached: false,
    documentTypes: ['invoice', 'credit-note', 'purchase-order'],
    endpoint: { url: expect.stringMatching(/\/connectors\/peppol-as4\/as4$/), transportProfile: 'peppol-transport-as4-v2_0', certificateSubject: expect.stringContaining('CN=') },
  });
  const queries = sml.queries;
  const again = await api<Record<string, unknown>>(t.baseUrl, 'POST', '/v1/directory/verify', { key: caller.apiKey, body: { peppolId: company.peppolId, documentType: 'invoice' } });
  expect(again.body).toMatchObject({ canReceive: true, cached: true });
  expect(sml.queries).toBe(queries);

  const unknown = await api<Record<string, unknown>>(t.baseUrl, 'POST', '/v1/directory/verify', { key: caller.apiKey, body: { peppolId: '0208:0555555555', documentType: 'invoice' } });
  expect(unknown.body).toMatchObject({ registered: false, canReceive: false, network: 'peppol-discovery', endpoint: null });
});

it('a live send asks the network\'s directory first: 422 for a participant the SML does not know, 503 (nothing carries it yet) for one it does', async () => {
  const company = await registeredCompany('disc-s');
  sml.register(company.peppolId, `${t.baseUrl}/smp`);
  const sender = await bootstrap(t.baseUrl, { label: 'disc-sender' });
  await makeLive(t.databaseUrl, sender.apiKey);
  const send = (to: string) => api(t.baseUrl, 'POST', '/v1/documents/send', { key: sender.apiKey, body: { type: 'invoice', format: 'json', to, document: largeJsonInvoice('LIVE-1', 1, sender.company.vatNumber) } });
  expectEnvelope(await send('0208:0444444444'), 422, 'RECIPIENT_NOT_FOUND');
  expectEnvelope(await send(company.peppolId), 503, 'UPSTREAM_UNAVAILABLE');
});

it('a participant the SML does not know is not known; one the SMP does not publish is known but cannot receive', async () => {
  expect(await check('0208:0999999999')).toEqual({ known: false, canReceive: false, documentTypes: [], peppolId: '0208:0999999999' });

  // In the zone, pointing at our SMP, but not registered there (the SMP answers 404): the SML
  // listing is stale, nobody receives for it.
  sml.register('0208:0888888888', `${t.baseUrl}/smp`);
  expect(await check('0208:0888888888')).toMatchObject({ known: true, canReceive: false, documentTypes: [] });
});

it('refuses an SMP whose signature does not chain to the trust store', async () => {
  const company = await registeredCompany('disc-b');
  sml.register(company.peppolId, `${t.baseUrl}/smp`);
  const strangerTrust = join(dir, 'stranger.pem');
  writeFileSync(strangerTrust, selfSignedCertificate('PXX000000').certPem); // an SMP certificate nobody here trusts
  const other = await startTestAppWithTrust(strangerTrust);
  try {
    await expect(other.app.broker.call('adapter.peppol-discovery.check', { recipient: { peppolId: company.peppolId }, documentType: 'invoice', livemode: true }))
      .rejects.toMatchObject({ message: expect.stringMatching(/not trusted/) });
  } finally {
    await other.stop();
    process.env.EINV_CONNECTOR_PEPPOL_DISCOVERY_TRUST_FILE = join(dir, 'smp-trust.pem');
  }
});

/** A second deployment (its own broker) whose discovery trusts another certificate only. */
async function startTestAppWithTrust(trustFile: string): Promise<TestApp> {
  process.env.EINV_CONNECTOR_PEPPOL_DISCOVERY_TRUST_FILE = trustFile;
  return startTestApp({ services: ['tenancy', 'adapter.peppol-discovery'] });
}

describe('another SMP on 127.0.0.1', () => {
  const PINT_JP = 'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:peppol:pint:billing-1@jp-1::2.1';
  const PINT_WILDCARD = 'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:peppol:pint:billing-1*::2.1';
  let smp: Server;
  let base = '';
  const requested: string[] = [];
  beforeAll(async () => {
    const endpoint = { address: 'https://ap.other.example/as4', serviceDescription: 'other AP', technicalContactUrl: 'mailto:ops@other.example' };
    smp = createServer((req, res) => {
      const path = decodeURIComponent(req.url ?? '');
      requested.push(path);
      const send = (status: number, body = '') => res.writeHead(status, { 'content-type': 'application/xml' }).end(body);
      // 0208:0777777777 publishes PINT through a wildcard registration only
      if (path === `/${PARTICIPANT_SCHEME}::0208:0777777777`) return send(200, serviceGroupXml(base, '0208:0777777777'));
      if (path === `/${PARTICIPANT_SCHEME}::0208:0777777777/services/${WILDCARD_DOCUMENT_SCHEME}::${PINT_WILDCARD}`) return send(200, signedServiceMetadataXml('0208:0777777777', PINT_WILDCARD, endpoint, smpKeys()));
      // 0208:0666666666 answers with metadata signed for somebody else (a replay)
      if (path === `/${PARTICIPANT_SCHEME}::0208:0666666666`) return send(200, serviceGroupXml(base, '0208:0666666666'));
      if (path.startsWith(`/${PARTICIPANT_SCHEME}::0208:0666666666/services/`)) return send(200, signedServiceMetadataXml('0208:0777777777', BILLING_DOCUMENT_TYPES.invoice, endpoint, smpKeys()));
      return send(404);
    });
    await new Promise<void>((resolve) => smp.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(smp.address() as AddressInfo).port}`;
    sml.register('0208:0777777777', base);
    sml.register('0208:0666666666', base);
  });
  afterAll(async () => { await new Promise((resolve) => smp.close(resolve)); });

  const client = () => new DiscoveryClient({
    smlZone: sml.zone, dnsServers: [sml.server], legacyCname: false, trust: [new X509Certificate(smpKeys().certificatePem)],
    get: async (url) => { const r = await fetch(url); return { status: r.status, body: await r.text() }; },
    now: () => new Date(), cacheTtlMs: 0, negativeCacheTtlMs: 0,
  });

  it('resolves a PINT document type through the wildcard registration that covers it, most specific first', async () => {
    const found = await client().discover('0208:0777777777', PINT_JP);
    expect(found.endpoints.map((e) => e.url)).toEqual(['https://ap.other.example/as4']);
    const services = requested.filter((p) => p.startsWith(`/${PARTICIPANT_SCHEME}::0208:0777777777/services/`)).map((p) => p.split('/services/')[1]);
    expect(services).toEqual([`${DOCUMENT_SCHEME}::${PINT_JP}`, `${WILDCARD_DOCUMENT_SCHEME}::${PINT_JP.replace('@jp-1::', '@jp-1*::')}`, `${WILDCARD_DOCUMENT_SCHEME}::${PINT_WILDCARD}`]);
  });

  it('refuses signed metadata that is another participant\'s', async () => {
    await expect(client().discover('0208:0666666666', BILLING_DOCUMENT_TYPES.invoice)).rejects.toThrow(/not the participant and document type asked/);
  });
});
