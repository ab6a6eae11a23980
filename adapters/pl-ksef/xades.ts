/**
 * XAdES authentication (uwierzytelnianie.md §2.1, auth/podpis-xades.md): the `AuthTokenRequest`
 * (challenge, the NIP context, `certificateSubject`) signed enveloped in XAdES-BES with the
 * taxpayer's certificate — a qualified seal (organizationIdentifier `VATPL-{NIP}`), a qualified
 * signature (serialNumber `TINPL-{NIP}`), or a KSeF certificate. XMLDSig is xml-crypto's (RSA-SHA256,
 * exclusive C14N, SHA-256 digests); this module only adds the XAdES qualifying properties
 * (SigningTime, SigningCertificate with the certificate's SHA-256 and issuer/serial) as the signed
 * Object the second reference points to.
 */
import { X509Certificate, createHash } from 'node:crypto';
import { SignedXml } from 'xml-crypto';

export const AUTH_NS = 'http://ksef.mf.gov.pl/auth/token/2.0';
const DS = 'http://www.w3.org/2000/09/xmldsig#';
const XADES = 'http://uri.etsi.org/01903/v1.3.2#';
const EXC_C14N = 'http://www.w3.org/2001/10/xml-exc-c14n#';
const SHA256 = 'http://www.w3.org/2001/04/xmlenc#sha256';

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The unsigned `AuthTokenRequest` for a challenge and a NIP context. */
export function authTokenRequest(challenge: string, nip: string): string {
  return `<?xml version="1.0" encoding="utf-8"?><AuthTokenRequest xmlns="${AUTH_NS}"><Challenge>${esc(challenge)}</Challenge><ContextIdentifier><Nip>${esc(nip)}</Nip></ContextIdentifier><SubjectIdentifierType>certificateSubject</SubjectIdentifierType></AuthTokenRequest>`;
}

/** The RFC 4514 issuer name XAdES's IssuerSerial wants (most significant RDN last in node's output, reversed here). */
function issuerName(cert: X509Certificate): string {
  return cert.issuer.split('\n').filter(Boolean).reverse().join(', ');
}

/** Signs the request enveloped, XAdES-BES; `keyPem` and `certPem` are the taxpayer's. */
export function signXades(xml: string, keyPem: string, certPem: string, signingTime: Date): string {
  const cert = new X509Certificate(certPem);
  const der = Buffer.from(cert.raw);
  const certBase64 = der.toString('base64');
  const serial = BigInt(`0x${cert.serialNumber}`).toString(10);
  const signedProperties = `<xades:QualifyingProperties xmlns:xades="${XADES}" Target="#Signature"><xades:SignedProperties Id="SignedProperties"><xades:SignedSignatureProperties>`
    + `<xades:SigningTime>${signingTime.toISOString().replace(/\.\d{3}Z$/, 'Z')}</xades:SigningTime>`
    + `<xades:SigningCertificate><xades:Cert><xades:CertDigest><ds:DigestMethod xmlns:ds="${DS}" Algorithm="${SHA256}"/><ds:DigestValue xmlns:ds="${DS}">${createHash('sha256').update(der).digest('base64')}</ds:DigestValue></xades:CertDigest>`
    + `<xades:IssuerSerial><ds:X509IssuerName xmlns:ds="${DS}">${esc(issuerName(cert))}</ds:X509IssuerName><ds:X509SerialNumber xmlns:ds="${DS}">${serial}</ds:X509SerialNumber></xades:IssuerSerial></xades:Cert></xades:SigningCertificate>`
    + '</xades:SignedSignatureProperties></xades:SignedProperties></xades:QualifyingProperties>';

  const sig = new SignedXml({
    privateKey: keyPem,
    publicCert: certPem,
    signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    canonicalizationAlgorithm: EXC_C14N,
    objects: [{ content: signedProperties }],
    getKeyInfoContent: () => `<ds:X509Data><ds:X509Certificate>${certBase64}</ds:X509Certificate></ds:X509Data>`,
  });
  sig.addReference({ xpath: '/*', isEmptyUri: true, transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', EXC_C14N], digestAlgorithm: SHA256 });
  sig.addReference({ xpath: "//*[local-name(.)='SignedProperties']", type: 'http://uri.etsi.org/01903#SignedProperties', transforms: [EXC_C14N], digestAlgorithm: SHA256 });
  sig.computeSignature(xml, { prefix: 'ds', attrs: { Id: 'Signature' }, location: { reference: '/*', action: 'append' } });
  return sig.getSignedXml();
}
