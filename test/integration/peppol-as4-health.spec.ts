/**
 * The access point in the platform's health: a key that does not load makes readiness degraded
 * (503, the connector named with the reason) without stopping the platform, and the certificate's
 * expiry shows in /health/contracts — ok far from it, a warning within the configured days; a
 * certificate naming no country without the countryC1 option is as unready, naming the option.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestApp, api, type TestApp } from '../support/app.ts';
import { accessPointFiles } from '../support/peppol-pki.ts';

const { pki, dir, certificateFile, smpTrustFile: smpTrust } = accessPointFiles('as4-health-');

const BASE = {
  EINV_CONNECTORS: 'sandbox-network,peppol-as4',
  EINV_CONNECTOR_PEPPOL_AS4_TRUST_FILE: smpTrust,
  EINV_CONNECTOR_PEPPOL_AS4_PKI: 'test',
  EINV_CONNECTOR_PEPPOL_AS4_CERTIFICATE_FILE: certificateFile,
};

async function withApp(env: Record<string, string>, body: (t: TestApp) => Promise<void>): Promise<void> {
  Object.assign(process.env, BASE, env);
  const t = await startTestApp();
  try {
    await body(t);
  } finally {
    await t.stop();
    for (const k of Object.keys({ ...BASE, ...env })) delete process.env[k];
  }
}

interface Health { status: string; connectors?: Record<string, { status: string; message: string }>; services?: Record<string, { status: string; error: string | null }> }

it('a key that does not load: readiness degraded, naming the connector and why; the API still answers', async () => {
  await withApp({ EINV_CONNECTOR_PEPPOL_AS4_PRIVATE_KEY: pki.ap2.privateKeyPem }, async (t) => {
    const ready = await api<Health>(t.baseUrl, 'GET', '/health/readiness');
    expect(ready.status).toBe(503);
    expect(ready.body.status).toBe('degraded');
    expect(ready.body.connectors?.['adapter.peppol-as4']).toEqual({ status: 'failed', message: expect.stringContaining('cannot be loaded') });
    expect((await api(t.baseUrl, 'GET', '/health/liveness')).status).toBe(200);
  });
}, 60_000);

it('the certificate expiry in /health/contracts: ok, then a warning within certificateWarningDays', async () => {
  await withApp({ EINV_CONNECTOR_PEPPOL_AS4_PRIVATE_KEY: pki.ap1.privateKeyPem }, async (t) => {
    const ready = await api<Health>(t.baseUrl, 'GET', '/health/readiness');
    expect(ready.body.connectors?.['adapter.peppol-as4']).toEqual({ status: 'ok', message: expect.stringContaining('POP000001') });
    await t.app.broker.call('health.runContractChecks', {});
    const contracts = await api<Health>(t.baseUrl, 'GET', '/health/contracts');
    expect(contracts.body.services?.['adapter.peppol-as4']).toMatchObject({ status: 'ok', error: null });
  });
  await withApp({ EINV_CONNECTOR_PEPPOL_AS4_PRIVATE_KEY: pki.ap1.privateKeyPem, EINV_CONNECTOR_PEPPOL_AS4_CERTIFICATE_WARNING_DAYS: '100000' }, async (t) => {
    await t.app.broker.call('health.runContractChecks', {});
    const contracts = await api<Health>(t.baseUrl, 'GET', '/health/contracts');
    expect(contracts.status).toBe(200);
    expect(contracts.body.services?.['adapter.peppol-as4']).toMatchObject({ status: 'warning', error: expect.stringMatching(/expires in \d+ days/) });
  });
}, 60_000);

it('a certificate without C= and no countryC1: readiness degraded, naming the option to set — never a guessed country', async () => {
  const noCountryFile = join(dir, 'ap-no-country.pem');
  writeFileSync(noCountryFile, pki.apWithoutCountry.certificatePem);
  await withApp({ EINV_CONNECTOR_PEPPOL_AS4_CERTIFICATE_FILE: noCountryFile, EINV_CONNECTOR_PEPPOL_AS4_PRIVATE_KEY: pki.apWithoutCountry.privateKeyPem }, async (t) => {
    const ready = await api<Health>(t.baseUrl, 'GET', '/health/readiness');
    expect(ready.status).toBe(503);
    expect(ready.body.connectors?.['adapter.peppol-as4']).toEqual({ status: 'failed', message: expect.stringContaining('set the option countryC1 (EINV_CONNECTOR_PEPPOL_AS4_COUNTRY_C1)') });
  });
  await withApp({ EINV_CONNECTOR_PEPPOL_AS4_CERTIFICATE_FILE: noCountryFile, EINV_CONNECTOR_PEPPOL_AS4_PRIVATE_KEY: pki.apWithoutCountry.privateKeyPem, EINV_CONNECTOR_PEPPOL_AS4_COUNTRY_C1: 'BE' }, async (t) => {
    const ready = await api<Health>(t.baseUrl, 'GET', '/health/readiness');
    expect(ready.body.connectors?.['adapter.peppol-as4']).toEqual({ status: 'ok', message: expect.stringContaining('POP000007') });
  });
}, 60_000);
