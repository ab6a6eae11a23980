/**
 * peppol-as4 on its own, under the SDK's in-memory host: the health it reports (its key loads or
 * not, its certificate far from expiry, close to it, expired), the network it serves following its
 * PKI (a check in the other mode is not its to answer), a send without a key being transient, and
 * the per-destination circuit breaker.
 */
import { join } from 'node:path';
import { memoryHost } from '../../../adapters/sdk/contract-suite.ts';
import { ConnectorError } from '../../../adapters/sdk/index.ts';
import peppolAs4 from '../../../adapters/peppol-as4/peppol-as4.connector.ts';
import { DestinationBreakers } from '../../../adapters/peppol-as4/access-point.ts';
import { accessPointFiles } from '../../support/peppol-pki.ts';

const { pki, dir, certificateFile, smpTrustFile: smpTrust } = accessPointFiles('as4-unit-');

const hostWith = (config: Record<string, string | number | boolean>, secrets: Record<string, string> = { privateKey: pki.ap1.privateKeyPem }, now?: Date) =>
  memoryHost([], { config: { trustFile: smpTrust, smlZone: 'sml.test.local', pki: 'test', revocation: 'off', ...config }, secrets, ...(now ? { now: () => now } : {}) });

describe('health', () => {
  const notAfter = new Date(pki.ap1.certificate.validTo);

  it('ok with its key loaded and the certificate far from expiry', async () => {
    expect(await peppolAs4.health!(hostWith({ certificateFile }))).toEqual({ status: 'ok', message: expect.stringContaining('POP000001') });
  });

  it('a warning within certificateWarningDays of expiry, naming the days left', async () => {
    const twentyDaysBefore = new Date(notAfter.getTime() - 20.5 * 86_400_000);
    const h = await peppolAs4.health!(hostWith({ certificateFile }, undefined, twentyDaysBefore));
    expect(h).toEqual({ status: 'warning', message: expect.stringContaining('expires in 20 days') });
  });

  it('failed once the certificate has expired', async () => {
    expect((await peppolAs4.health!(hostWith({ certificateFile }, undefined, new Date(notAfter.getTime() + 86_400_000)))).status).toBe('failed');
  });

  it('failed, saying why, when the key cannot be loaded — and sends are transient, never lost', async () => {
    const missing = hostWith({ certificateFile: join(dir, 'absent.pem') });
    expect(await peppolAs4.health!(missing)).toEqual({ status: 'failed', message: expect.stringContaining('cannot be loaded') });
    const mismatched = hostWith({ certificateFile }, { privateKey: pki.ap2.privateKeyPem });
    expect((await peppolAs4.health!(mismatched)).status).toBe('failed');
    const send = peppolAs4.send!({ documentId: 'd1', livemode: false, type: 'invoice', number: '1', sender: { peppolId: '0088:1', name: null, organizationId: 'o', companyId: 'c' }, recipient: { peppolId: '0088:2' }, payload: { content: '', contentType: 'application/xml' }, attempt: 1 }, missing);
    await expect(send).rejects.toMatchObject({ kind: 'transient', code: 'AP_KEY_UNAVAILABLE' });
    await expect(send).rejects.toBeInstanceOf(ConnectorError);
  });
});

it('serves the network its PKI names: a check in the other mode is not its to answer', async () => {
  const testNetwork = hostWith({ certificateFile });
  expect(await peppolAs4.check!({ recipient: { peppolId: '0088:5790000000011' }, documentType: 'invoice', livemode: true }, testNetwork)).toEqual({ known: false, canReceive: false, documentTypes: [] });
});

it('leaves a failing destination alone for the cool-down, then lets one try through', () => {
  const breakers = new DestinationBreakers({ threshold: 3, cooldownMs: 1000 });
  const url = 'https://ap.example/as4';
  for (let i = 0; i < 2; i++) breakers.failed(url, 0);
  expect(breakers.blockedFor(url, 0)).toBe(0);
  breakers.failed(url, 0);
  expect(breakers.blockedFor(url, 500)).toBe(500);
  expect(breakers.blockedFor(url, 1000)).toBe(0);
  expect(breakers.blockedFor('https://other.example/as4', 500)).toBe(0);
  breakers.succeeded(url);
  breakers.failed(url, 2000);
  expect(breakers.blockedFor(url, 2000)).toBe(0);
});
