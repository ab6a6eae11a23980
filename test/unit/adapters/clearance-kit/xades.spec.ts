/**
 * The clearance kit's XAdES-BES signatures: made with RSA and ECDSA keys from PEM, they verify with
 * xmlsec1 (libxmlsec1, an independent XMLDSig verifier, which checks both references and the value)
 * and with our verifier (which also checks that the document and the SignedProperties are covered
 * and that SigningCertificate names the KeyInfo certificate); a tampered document, tampered signed
 * properties or another signer fail both. A Signer that is not a PEM key (an HSM's) signs the same way.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPrivateKey, sign, X509Certificate } from 'node:crypto';
import { pemSigner, signEnveloped, verifyEnveloped, certificateDigest, type Signer } from '../../../../adapters/clearance-kit/xades.ts';
import { selfSigned } from '../../../support/openssl-pki.ts';

const rsa = selfSigned('rsa signer', { type: 'rsa' });
const ec = selfSigned('ec signer', { type: 'ec', curve: 'prime256v1' });
const other = selfSigned('someone else', { type: 'ec', curve: 'prime256v1' });

const DOC = '<inv:Invoice xmlns:inv="urn:example:invoice" xmlns:x="urn:example:x"><x:ID>INV-1</x:ID><x:Seller name="شركة الاختبار">Test &amp; Co</x:Seller><x:Total currency="SAR">115.00</x:Total></inv:Invoice>';
const at = new Date('2026-11-26T08:00:00.000Z');

/** xmlsec1's verdict on a document (the certificate given as the trusted key), and what it printed. */
function xmlsec1(xml: string, certPem: string): { ok: boolean; out: string } {
  const dir = mkdtempSync(join(tmpdir(), 'xades-'));
  writeFileSync(join(dir, 'doc.xml'), xml);
  writeFileSync(join(dir, 'cert.pem'), certPem);
  const run = spawnSync('xmlsec1', ['--verify', '--pubkey-cert-pem', join(dir, 'cert.pem'), '--id-attr:Id', 'http://uri.etsi.org/01903/v1.3.2#:SignedProperties', join(dir, 'doc.xml')], { encoding: 'utf8' });
  return { ok: run.status === 0, out: `${run.stdout}${run.stderr}` };
}

describe.each([['RSA-SHA256', rsa, 'rsa-sha256'], ['ECDSA-SHA256 (P-256)', ec, 'ecdsa-sha256']] as const)('XAdES-BES with %s', (_name, pair, method) => {
  let signed: string;
  beforeAll(async () => { signed = await signEnveloped(DOC, pemSigner(pair.keyPem, pair.certPem), { signingTime: at }); });

  it('has the XAdES shape: two references, SigningTime, SigningCertificate with the certificate digest', () => {
    expect(signed).toContain(`SignatureMethod Algorithm="http://www.w3.org/2001/04/xmldsig-more#${method}"`);
    expect(signed).toContain('<ds:Reference URI="">');
    expect(signed).toMatch(/<ds:Reference URI="#xades-[0-9a-f-]+-signedprops" Type="http:\/\/uri.etsi.org\/01903#SignedProperties">/);
    expect(signed).toContain('<xades:SigningTime>2026-11-26T08:00:00.000Z</xades:SigningTime>');
    expect(signed).toContain(`<ds:DigestValue>${certificateDigest(new X509Certificate(pair.certPem))}</ds:DigestValue>`);
    expect(signed.startsWith('<inv:Invoice')).toBe(true);
  });

  it('verifies with xmlsec1 and with our verifier', () => {
    const independent = xmlsec1(signed, pair.certPem);
    expect(independent.out).toContain('SignedInfo References (ok/all): 2/2');
    expect(independent.ok).toBe(true);
    const ours = verifyEnveloped(signed, pair.certPem);
    expect(ours).toMatchObject({ valid: true, signingTime: '2026-11-26T08:00:00.000Z' });
    expect(ours.certificate!.raw.equals(new X509Certificate(pair.certPem).raw)).toBe(true);
  });

  it('a tampered document fails both', () => {
    const tampered = signed.replace('115.00', '15.00');
    expect(xmlsec1(tampered, pair.certPem).ok).toBe(false);
    expect(verifyEnveloped(tampered)).toMatchObject({ valid: false });
  });

  it('tampered signed properties (the signing time) fail both', () => {
    const tampered = signed.replace('2026-11-26T08:00:00.000Z', '2026-11-25T08:00:00.000Z');
    expect(xmlsec1(tampered, pair.certPem).ok).toBe(false);
    expect(verifyEnveloped(tampered)).toMatchObject({ valid: false });
  });

  it('another signer is refused: by xmlsec1 with its key, by ours when the expected certificate is named', () => {
    expect(xmlsec1(signed, other.certPem).ok).toBe(false);
    expect(verifyEnveloped(signed, other.certPem)).toEqual({ valid: false, reason: 'the signer is not the expected certificate' });
  });
});

describe('signers and placement', () => {
  it('an HSM-like Signer (no PEM key in the signing code) makes the same verifiable signature', async () => {
    const key = createPrivateKey(ec.keyPem);
    const seen: Buffer[] = [];
    const hsm: Signer = { method: 'ecdsa-sha256', certificatePem: ec.certPem, sign: async (data) => { seen.push(data); return sign('sha256', data, { key, dsaEncoding: 'ieee-p1363' }); } };
    const signed = await signEnveloped(DOC, hsm, { signingTime: at, location: { reference: '//*[local-name()="ID"]', action: 'after' } });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.toString()).toMatch(/^<ds:SignedInfo/);
    expect(signed).toMatch(/<\/x:ID><ds:Signature /);
    expect(xmlsec1(signed, ec.certPem).ok).toBe(true);
    expect(verifyEnveloped(signed, ec.certPem).valid).toBe(true);
  });

  it('a key that is not the certificate\'s is refused before signing', () => {
    expect(() => pemSigner(other.keyPem, ec.certPem)).toThrow('does not belong');
  });

  it('a signature moved into another document, or a document without one, does not verify', async () => {
    const signed = await signEnveloped(DOC, pemSigner(ec.keyPem, ec.certPem), { signingTime: at });
    const sig = /<ds:Signature[\s\S]*<\/ds:Signature>/.exec(signed)![0];
    expect(verifyEnveloped(DOC.replace('</inv:Invoice>', `${sig}</inv:Invoice>`).replace('INV-1', 'INV-2')).valid).toBe(false);
    expect(verifyEnveloped(DOC)).toEqual({ valid: false, reason: 'expected one ds:Signature, found 0' });
    expect(verifyEnveloped('<a><!DOCTYPE x></a>').valid).toBe(false);
  });
});
