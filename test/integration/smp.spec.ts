/**
 * This deployment's SMP: a registered company's service group and its signed service metadata,
 * read the way the network reads them (percent-encoded identifiers), the signature verified with
 * xml-crypto against the certificate in its KeyInfo, and refused once tampered with.
 */
import { INVOICE_RESPONSE_DOCUMENT_TYPE_ID, INVOICE_RESPONSE_PROFILE_ID } from '../../mappings/peppol/invoice-response.ts';
import { SignedXml } from 'xml-crypto';
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';
import { randomGermanVat } from '../support/vat.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
// A test-network deployment: its SMP publishes the sandbox companies registered through it.
process.env.EINV_SMP_MODE = 'test';

let t: TestApp;
beforeAll(async () => { t = await startTestApp(); });
afterAll(async () => { await t.stop(); delete process.env.EINV_SMP_MODE; });

const INVOICE = 'busdox-docid-qns::urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1';
const pid = (peppolId: string) => encodeURIComponent(`iso6523-actorid-upis::${peppolId}`);
const get = (path: string) => fetch(`${t.baseUrl}${path}`);

function verify(xml: string): { valid: boolean; certificate: string } {
  // The enveloped signature is the document's last child; its certificate is in its KeyInfo.
  const signature = xml.slice(xml.indexOf('<ds:Signature'), xml.indexOf('</ds:Signature>') + '</ds:Signature>'.length);
  const certificate = /<ds:X509Certificate>([^<]+)<\/ds:X509Certificate>/.exec(signature)![1]!;
  const pem = `-----BEGIN CERTIFICATE-----\n${certificate.match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`;
  const sig = new SignedXml({ publicCert: pem });
  sig.loadSignature(signature);
  return { valid: sig.checkSignature(xml), certificate };
}

it('publishes a registered company: service group, then signed metadata that verifies; tampering breaks it', async () => {
  const org = await bootstrap(t.baseUrl, { label: 'smp', keyType: 'platform' });
  const company = (await api(t.baseUrl, 'POST', '/v1/companies', { key: org.apiKey, body: { vatNumber: randomGermanVat() } })).body;
  expect((await get(`/smp/${pid(company.peppolId)}`)).status).toBe(404);
  expect((await api(t.baseUrl, 'POST', `/v1/companies/${company.id}/register`, { key: org.apiKey })).status).toBe(200);

  const group = await get(`/smp/${pid(company.peppolId)}`);
  expect(group.status).toBe(200);
  expect(group.headers.get('content-type')).toMatch(/^application\/xml/);
  const groupXml = await group.text();
  expect(groupXml).toContain(`<id:ParticipantIdentifier scheme="iso6523-actorid-upis">${company.peppolId}</id:ParticipantIdentifier>`);
  const hrefs = [...groupXml.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));
  // Invoices, credit notes, Invoice Responses to what the company sent, and purchase orders (BIS Order 3.0).
  expect(hrefs).toHaveLength(4);
  expect(hrefs[2]!.endsWith(`/services/${encodeURIComponent(`busdox-docid-qns::${INVOICE_RESPONSE_DOCUMENT_TYPE_ID}`)}`)).toBe(true);
  const responses = await (await get(`/smp/${pid(company.peppolId)}/services/${encodeURIComponent(`busdox-docid-qns::${INVOICE_RESPONSE_DOCUMENT_TYPE_ID}`)}`)).text();
  expect(responses).toContain(`<id:ProcessIdentifier scheme="cenbii-procid-ubl">${INVOICE_RESPONSE_PROFILE_ID}</id:ProcessIdentifier>`);
  expect(verify(responses).valid).toBe(true);
  // Absolute, with both identifiers percent-encoded, as the specification asks.
  expect(hrefs[0]).toMatch(/^https?:\/\/[^/]+\/smp\//);
  expect(hrefs[0]!.endsWith(`/smp/${pid(company.peppolId)}/services/${encodeURIComponent(INVOICE)}`)).toBe(true);

  const metadata = await get(`/smp/${pid(company.peppolId)}/services/${encodeURIComponent(INVOICE)}`);
  expect(metadata.status).toBe(200);
  const xml = await metadata.text();
  expect(xml).toMatch(/^<\?xml[^>]*>\s*<smp:SignedServiceMetadata/);
  expect(xml).toContain('transportProfile="peppol-transport-as4-v2_0"');
  expect(xml).toContain('<ds:SignatureMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"/>');
  expect(xml).toContain('<ds:CanonicalizationMethod Algorithm="http://www.w3.org/TR/2001/REC-xml-c14n-20010315"/>');
  expect(xml).toContain('<ds:DigestMethod Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"/>');
  expect(xml).toContain('X509SubjectName');
  expect(verify(xml).valid).toBe(true);
  expect(verify(xml.replace('/connectors/peppol-as4/as4', '/elsewhere/as4')).valid).toBe(false);

  // Not a type it receives, not a participant registered here, and a removed company: 404.
  expect((await get(`/smp/${pid(company.peppolId)}/services/${encodeURIComponent('busdox-docid-qns::urn:example:unknown')}`)).status).toBe(404);
  expect((await get(`/smp/${pid('0208:0999999999')}`)).status).toBe(404);
  // Without an SML (EINV_SML_URL unset) no participant can migrate through this deployment.
  for (let i = 0; i < 100 && !(await api<{ smpRegistered: boolean }>(t.baseUrl, 'GET', `/v1/companies/${company.id}`, { key: org.apiKey })).body.smpRegistered; i++) await new Promise((r) => setTimeout(r, 100));
  expectEnvelope(await api(t.baseUrl, 'POST', `/v1/companies/${company.id}/migration-key`, { key: org.apiKey }), 503, 'UPSTREAM_UNAVAILABLE');
  expect((await api(t.baseUrl, 'DELETE', `/v1/companies/${company.id}`, { key: org.apiKey })).status).toBe(200);
  const gone = await api(t.baseUrl, 'GET', `/smp/${pid(company.peppolId)}`);
  expectEnvelope(gone, 404, 'RESOURCE_NOT_FOUND');
});
