/**
 * The SML registration end to end, on 127.0.0.1: registering a company makes this deployment's SMP
 * register its participant with the SML (SOAP 1.1 over mutual TLS with the SMP certificate), the
 * SML publishes it in its DNS zone, and the Peppol discovery of another deployment now finds it
 * through DNS and our SMP; deleting the company removes it from the SML. A participant another
 * SMP holds stays unpublished here (the SML refuses it) until it arrives with that provider's
 * migration key; a company leaving gets a key the next provider migrates it with. The SML refuses
 * a client without the SMP certificate.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';
import { startSmlDns, type SmlDns } from '../support/sml-dns.ts';
import { startSmlSimulator, type SmlSimulator } from '../support/sml-simulator.ts';
import { smpKeys } from '../../services/smp/smp-keys.ts';
import { eventually } from '../support/webhook-receiver.ts';
import { SmlClient, smlEnvelope } from '../../services/smp/sml-client.ts';
import { randomGermanVat } from '../support/vat.ts';

const SMP_ID = 'EINV-TEST-SMP';
process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
process.env.EINV_SMP_MODE = 'test';

let t: TestApp;
let dns: SmlDns;
let sml: SmlSimulator;
const dir = mkdtempSync(join(tmpdir(), 'einv-sml-'));
const ENV = ['EINV_SMP_MODE', 'EINV_SML_URL', 'EINV_SML_SMP_ID', 'EINV_SML_CA_FILE', 'EINV_CONNECTORS', 'EINV_CONNECTOR_PEPPOL_DISCOVERY_SML_ZONE', 'EINV_CONNECTOR_PEPPOL_DISCOVERY_DNS_SERVERS', 'EINV_CONNECTOR_PEPPOL_DISCOVERY_TRUST_FILE', 'EINV_CONNECTOR_PEPPOL_DISCOVERY_REQUIRE_HTTPS'];

beforeAll(async () => {
  dns = await startSmlDns();
  const smpCertificate = smpKeys().certificatePem;
  sml = await startSmlSimulator([smpCertificate], dns);
  const caFile = join(dir, 'sml-ca.pem');
  writeFileSync(caFile, sml.caPem);
  const trustFile = join(dir, 'smp-trust.pem');
  writeFileSync(trustFile, smpCertificate);
  Object.assign(process.env, {
    EINV_SML_URL: sml.url, EINV_SML_SMP_ID: SMP_ID, EINV_SML_CA_FILE: caFile,
    EINV_CONNECTORS: 'sandbox-network,peppol-discovery',
    EINV_CONNECTOR_PEPPOL_DISCOVERY_SML_ZONE: dns.zone,
    EINV_CONNECTOR_PEPPOL_DISCOVERY_DNS_SERVERS: dns.server,
    EINV_CONNECTOR_PEPPOL_DISCOVERY_TRUST_FILE: trustFile,
    EINV_CONNECTOR_PEPPOL_DISCOVERY_REQUIRE_HTTPS: 'false',
  });
  t = await startTestApp();
  sml.smpUrls.set(SMP_ID, `${t.baseUrl}/smp`);
});
afterAll(async () => {
  await t.stop();
  await sml.close();
  await dns.close();
  for (const k of ENV) delete process.env[k];
});


async function newCompany(label: string) {
  const org = await bootstrap(t.baseUrl, { label, keyType: 'platform' });
  const company = (await api<{ id: string; peppolId: string }>(t.baseUrl, 'POST', '/v1/companies', { key: org.apiKey, body: { vatNumber: randomGermanVat() } })).body;
  return { org, company };
}
const smpRegistered = async (key: string, id: string) => (await api<{ smpRegistered: boolean }>(t.baseUrl, 'GET', `/v1/companies/${id}`, { key })).body.smpRegistered;
const discover = (peppolId: string) => t.app.broker.call('adapter.peppol-discovery.check', { recipient: { peppolId }, documentType: 'invoice', livemode: true }) as Promise<{ known: boolean; canReceive: boolean }>;

it('a registered company is registered with the SML over mutual TLS, found through DNS and our SMP, and removed when deleted', async () => {
  const { org, company } = await newCompany('sml-a');
  expect((await api(t.baseUrl, 'POST', `/v1/companies/${company.id}/register`, { key: org.apiKey })).status).toBe(200);
  await eventually(async () => ((await smpRegistered(org.apiKey, company.id)) ? true : undefined), 15_000, 'the company to be published');

  const pid = company.peppolId.toLowerCase();
  expect(sml.owners.get(pid)).toBe(SMP_ID);
  expect(sml.calls.find((c) => c.participantId === pid)).toMatchObject({ operation: 'CreateParticipantIdentifier', smpId: SMP_ID, clientSubject: expect.any(String) });
  expect(await discover(company.peppolId)).toMatchObject({ known: true, canReceive: true });

  expect((await api(t.baseUrl, 'DELETE', `/v1/companies/${company.id}`, { key: org.apiKey })).status).toBe(200);
  await eventually(async () => (sml.owners.has(pid) ? undefined : true), 15_000, 'the SML entry to go');
  expect(sml.calls.filter((c) => c.participantId === pid).map((c) => c.operation)).toEqual(['CreateParticipantIdentifier', 'DeleteParticipantIdentifier']);
});

it('a participant another SMP holds stays unpublished here: the SML refuses it', async () => {
  const { org, company } = await newCompany('sml-b');
  const pid = company.peppolId.toLowerCase();
  sml.owners.set(pid, 'OTHER-PROVIDER-SMP');
  expect((await api(t.baseUrl, 'POST', `/v1/companies/${company.id}/register`, { key: org.apiKey })).status).toBe(200);
  await eventually(async () => (sml.calls.some((c) => c.participantId === pid) ? true : undefined), 15_000, 'the SML to be asked');
  await new Promise((r) => setTimeout(r, 300));
  expect(await smpRegistered(org.apiKey, company.id)).toBe(false);
  expect(sml.owners.get(pid)).toBe('OTHER-PROVIDER-SMP');
});

it('the SML is reached only with the SMP certificate (mutual TLS)', async () => {
  const noClientCert = new Agent({ connect: { ca: sml.caPem } });
  try {
    await expect(request(`${sml.url}/manageparticipantidentifier`, { method: 'POST', dispatcher: noClientCert, body: smlEnvelope('create', SMP_ID, '0208:0123456789') }))
      .rejects.toThrow();
  } finally {
    await noClientCert.close();
  }
  expect(sml.owners.has('0208:0123456789')).toBe(false);
});

it('a company leaving gets a migration key; the next provider takes the participant over with it, and only with it', async () => {
  const { org, company } = await newCompany('sml-leave');
  const pid = company.peppolId.toLowerCase();
  // not published yet: nothing to migrate
  expectEnvelope(await api(t.baseUrl, 'POST', `/v1/companies/${company.id}/migration-key`, { key: org.apiKey }), 409, 'INVALID_TRANSITION');
  await api(t.baseUrl, 'POST', `/v1/companies/${company.id}/register`, { key: org.apiKey });
  await eventually(async () => ((await smpRegistered(org.apiKey, company.id)) ? true : undefined), 15_000, 'the company to be published');

  const prepared = await api<{ migrationKey: string; peppolId: string }>(t.baseUrl, 'POST', `/v1/companies/${company.id}/migration-key`, { key: org.apiKey });
  expect(prepared.status).toBe(200);
  expect(prepared.body).toMatchObject({ companyId: company.id, peppolId: company.peppolId, migrationKey: expect.stringMatching(/^[A-Za-z0-9]{24}$/) });
  expect(sml.migrationKeys.get(pid)).toBe(prepared.body.migrationKey);

  // The next provider (another SMP at the same SML) migrates with the key: a wrong one is refused.
  const next = new SmlClient({ url: sml.url, smpId: 'NEXT-PROVIDER-SMP', certificatePem: smpKeys().certificatePem, keyPem: smpKeys().privateKeyPem, caPem: sml.caPem, timeoutMs: 5000 });
  try {
    await expect(next.migrate(company.peppolId, 'not-the-key-0000')).rejects.toMatchObject({ kind: 'BadRequest' });
    expect(sml.owners.get(pid)).toBe(SMP_ID);
    await next.migrate(company.peppolId, prepared.body.migrationKey);
    expect(sml.owners.get(pid)).toBe('NEXT-PROVIDER-SMP');
  } finally {
    await next.close();
  }
});

it('a company arriving from another provider registers with that provider\'s key and is published at once', async () => {
  const { org, company } = await newCompany('sml-arrive');
  const pid = company.peppolId.toLowerCase();
  sml.owners.set(pid, 'PREVIOUS-PROVIDER-SMP');
  sml.migrationKeys.set(pid, 'KEY-FROM-PREVIOUS-PROVIDER');

  const wrong = await api(t.baseUrl, 'POST', `/v1/companies/${company.id}/register`, { key: org.apiKey, body: { migrationKey: 'SOMETHING-ELSE-123' } });
  expectEnvelope(wrong, 400, 'INVALID_REQUEST');
  expect(sml.owners.get(pid)).toBe('PREVIOUS-PROVIDER-SMP');

  const res = await api<{ smpRegistered: boolean; registrationStatus: string }>(t.baseUrl, 'POST', `/v1/companies/${company.id}/register`, { key: org.apiKey, body: { migrationKey: 'KEY-FROM-PREVIOUS-PROVIDER' } });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ registrationStatus: 'active', smpRegistered: true });
  expect(sml.owners.get(pid)).toBe(SMP_ID);
  expect(await discover(company.peppolId)).toMatchObject({ known: true, canReceive: true });
  const events = await api<{ data: Array<{ type: string; data: { companyId: string } }> }>(t.baseUrl, 'GET', '/v1/events?type=company.smp_registered', { key: org.apiKey });
  expect(events.body.data.some((e) => e.data.companyId === company.id)).toBe(true);
});
