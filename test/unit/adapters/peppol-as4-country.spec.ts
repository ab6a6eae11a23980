/**
 * The one rule for this access point's own country, the SBDH COUNTRY_C1 of every message it
 * originates itself (MLS, Invoice Response, CDAR, Peppol Reporting): the `countryC1` option when
 * set, else the C= of its certificate, else none — health failed and nothing originated, naming
 * the option; a bad option value stops the start. A business document keeps its sender's country.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { memoryHost } from '../../../adapters/sdk/contract-suite.ts';
import peppolAs4 from '../../../adapters/peppol-as4/peppol-as4.connector.ts';
import { accessPointOf, countryOfAccessPoint, countryRuleOf } from '../../../adapters/peppol-as4/access-point.ts';
import { envelopeForPeppol } from '../../../adapters/peppol-as4/documents.ts';
import { gunzipPayload } from '../../../adapters/peppol-kit/as4/payload.ts';
import { readSbd } from '../../../mappings/peppol/sbdh.ts';
import { BILLING_DOCUMENT_TYPES, BILLING_PROCESS } from '../../../mappings/identifiers/peppol-network.ts';
import { accessPointFiles } from '../../support/peppol-pki.ts';
import { UBL_BE_INVOICE } from '../../support/ubl-be-invoice.ts';

const { pki, dir, certificateFile, smpTrustFile } = accessPointFiles('as4-country-');
const noCountryFile = join(dir, 'ap-no-country.pem');
writeFileSync(noCountryFile, pki.apWithoutCountry.certificatePem);

/** The AP with ap1's certificate (C=NO) or the one without C=, and the options given. */
const hostWith = (config: Record<string, string>, withoutCountry = false) => memoryHost([], {
  config: { trustFile: smpTrustFile, smlZone: 'sml.test.local', pki: 'test', revocation: 'off', certificateFile: withoutCountry ? noCountryFile : certificateFile, ...config },
  secrets: { privateKey: (withoutCountry ? pki.apWithoutCountry : pki.ap1).privateKeyPem },
});

describe('countryRuleOf', () => {
  it('the option wins over the certificate; the certificate C= when no option; none when neither', () => {
    expect(countryRuleOf('DK', 'C=NO\nO=Test AP\nCN=POP000001')).toBe('DK');
    expect(countryRuleOf(undefined, 'C=NO\nO=Test AP\nCN=POP000001')).toBe('NO');
    expect(countryRuleOf(undefined, 'O=Test AP\nOU=PEPPOL TEST AP\nCN=POP000007')).toBeUndefined();
    expect(countryRuleOf(undefined, undefined)).toBeUndefined();
  });
});

describe("the access point's own country", () => {
  it('the countryC1 option wins over the certificate (any case, read as the upper-case code)', async () => {
    const host = hostWith({ countryC1: 'dk' });
    await peppolAs4.start!(host);
    expect(countryOfAccessPoint(accessPointOf(host))).toBe('DK');
    expect((await peppolAs4.health!(host)).status).toBe('ok');
  });

  it("without the option, the C= of the access point's certificate", async () => {
    expect(pki.ap1.certificate.subject).toMatch(/^C=NO$/m);
    const host = hostWith({});
    await peppolAs4.start!(host);
    expect(countryOfAccessPoint(accessPointOf(host))).toBe('NO');
  });

  it('a certificate without C= and no option: no guess — health failed naming the option, reports refused before any lookup', async () => {
    expect(pki.apWithoutCountry.certificate.subject).not.toMatch(/^C=/m);
    const host = hostWith({}, true);
    await peppolAs4.start!(host);
    const health = await peppolAs4.health!(host);
    expect(health).toEqual({ status: 'failed', message: expect.stringContaining("this access point's country is unknown") });
    expect(health.message).toContain('countryC1 (EINV_CONNECTOR_PEPPOL_AS4_COUNTRY_C1)');
    expect(() => countryOfAccessPoint(accessPointOf(host))).toThrow(expect.objectContaining({ kind: 'transient', code: 'AP_COUNTRY_UNKNOWN' }));
    const report = peppolAs4.report!({
      reportId: 'rep-1', livemode: false, kind: 'network-statistics', country: '*', reporter: { peppolId: null, name: null, organizationId: 'o', companyId: 'c' },
      documentIds: [], payload: { content: '', contentType: 'application/xml', xml: '<TransactionStatisticsReport xmlns="urn:fdc:peppol:transaction-statistics-report:1.1"/>' },
    }, host);
    await expect(report).rejects.toMatchObject({ kind: 'transient', code: 'AP_COUNTRY_UNKNOWN', message: expect.stringContaining('EINV_CONNECTOR_PEPPOL_AS4_COUNTRY_C1') });
    // Nothing was looked up: the memory host has no network, and its refusal would be HTTP_NETWORK_ERROR.
  });

  it('a certificate without C= and the option set: the option, and health ok', async () => {
    const host = hostWith({ countryC1: 'BE' }, true);
    await peppolAs4.start!(host);
    expect(countryOfAccessPoint(accessPointOf(host))).toBe('BE');
    expect((await peppolAs4.health!(host)).status).toBe('ok');
  });

  it.each(['Belgium', 'XX', '1A', 'B3', 'BEL'])('a countryC1 that is no ISO 3166-1 alpha-2 code (%s) stops the start, naming the option', async (value) => {
    await expect(peppolAs4.start!(hostWith({ countryC1: value }))).rejects.toThrow(
      `connector peppol-as4: option countryC1 (EINV_CONNECTOR_PEPPOL_AS4_COUNTRY_C1) must be an ISO 3166-1 alpha-2 country code such as BE or NO (got "${value}")`,
    );
  });
});

describe("a business document's COUNTRY_C1 is its sender's, never the access point's", () => {
  const invoice = UBL_BE_INVOICE.replace(/<cbc:CustomizationID>[^<]+</, '<cbc:CustomizationID>urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0<');
  const envelope = (documentXml: string, countryC1?: string) => envelopeForPeppol({
    documentXml, sender: '0208:0123456749', receiver: '0208:0987654321', documentTypeId: BILLING_DOCUMENT_TYPES.invoice, processId: BILLING_PROCESS.value,
    ...(countryC1 ? { countryC1 } : {}), instanceIdentifier: 'doc-1', now: '2026-11-26T10:00:00Z',
  });
  const countryOf = (outcome: ReturnType<typeof envelope>) => {
    if (!outcome.ok) throw new Error(outcome.message);
    return readSbd(gunzipPayload(Buffer.from(outcome.compressedSbd), 1_000_000)).header.countryC1;
  };

  it("the sender's country the caller gives, else the invoice's seller country (BT-40)", () => {
    expect(countryOf(envelope(invoice, 'dk'))).toBe('DK');
    expect(countryOf(envelope(invoice))).toBe('BE');
  });

  it('an invoice naming no seller country: SBDH_ERROR saying so, no fallback', () => {
    // The seller's address comes first in the document: drop its country only.
    const withoutSellerCountry = invoice.replace('<cac:Country><cbc:IdentificationCode>BE</cbc:IdentificationCode></cac:Country>', '');
    expect(withoutSellerCountry).not.toBe(invoice);
    expect(envelope(withoutSellerCountry)).toEqual({ ok: false, code: 'SBDH_ERROR', message: expect.stringContaining('BT-40') });
  });
});
