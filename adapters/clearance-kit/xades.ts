/**
 * Enveloped XAdES-BES signatures (ETSI EN 319 132, XAdES 1.3.2) for the clearance connectors, on
 * top of xml-crypto: it writes and checks the XMLDSig part (C14N, digests, SignedInfo); this module
 * adds the XAdES qualifying properties (SigningTime, SigningCertificate with the certificate's
 * digest and issuer/serial), the ECDSA signature method xml-crypto lacks, and the checks a verifier
 * owes beyond "the references match": that the whole document and the signed properties are what
 * was signed, and that the certificate they name is the one in KeyInfo.
 *
 * The signature is ds:Signature with two references:
 * 1. `URI=""` — the whole document, transforms enveloped-signature then inclusive C14N 1.0;
 * 2. `Type="http://uri.etsi.org/01903#SignedProperties"` — the SignedProperties in the signature's
 *    own ds:Object, exclusive C14N.
 * SignedInfo is canonicalised with exclusive C14N; the method is RSA-SHA256 or ECDSA-SHA256
 * (RFC 6931; the value is r‖s as RFC 4050 has it). Any XMLDSig verifier (xmlsec1) checks it.
 *
 * Keys: the private key never has to be in this process. Signing goes through a {@link Signer},
 * whose `sign(data)` returns the signature value. {@link pemSigner} is the one built here (a PEM
 * key read from the connector's secrets); an HSM plugs in the same way — see {@link Signer}.
 */
import { createHash, createPrivateKey, sign as cryptoSign, verify as cryptoVerify, randomUUID, X509Certificate, type KeyObject } from 'node:crypto';
import { createRequire } from 'node:module';
import { SignedXml } from 'xml-crypto';
import type { Secret } from '../sdk/index.ts';
import { parseXmlHardened } from '../../mappings/xml/parse.ts';
import { escapeXml } from '../../mappings/xml/writer.ts';

export const NS = {
  ds: 'http://www.w3.org/2000/09/xmldsig#',
  xades: 'http://uri.etsi.org/01903/v1.3.2#',
} as const;

export const ALGORITHMS = {
  'rsa-sha256': 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
  'ecdsa-sha256': 'http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha256',
} as const;
export type SignatureMethod = keyof typeof ALGORITHMS;

const SHA256 = 'http://www.w3.org/2001/04/xmlenc#sha256';
const ENVELOPED = 'http://www.w3.org/2000/09/xmldsig#enveloped-signature';
const C14N = 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315';
const EXC_C14N = 'http://www.w3.org/2001/10/xml-exc-c14n#';
const SIGNED_PROPERTIES_TYPE = 'http://uri.etsi.org/01903#SignedProperties';

/**
 * Who signs. `sign(data)` returns the XMLDSig signature value of `data` (the canonical SignedInfo)
 * with `method`: PKCS#1 v1.5 over SHA-256 for RSA, r‖s over SHA-256 for ECDSA (IEEE P1363 form, not
 * DER). `certificatePem` is the signer's certificate, named in KeyInfo and SigningCertificate.
 *
 * **PKCS#11 (an HSM or a smart card).** Nothing here needs the key itself, so an HSM-held key is
 * another `Signer`: open a session with a PKCS#11 binding (pkcs11js or graphene-pk11), find the
 * private key object by its label or id, and implement `sign` as `C_SignInit` + `C_Sign` with
 * `CKM_SHA256_RSA_PKCS` (RSA) or `CKM_ECDSA_SHA256` (EC — its output is already r‖s); the
 * certificate comes from the token (`CKO_CERTIFICATE`) or the configuration. The PIN is a secret
 * option like a PEM key. `sign` is async, so a network HSM or a cloud KMS fits the same way. We do
 * not ship a PKCS#11 signer: no deployment asks for one yet, and a binding is a native module.
 */
export interface Signer {
  method: SignatureMethod;
  certificatePem: string;
  sign(data: Buffer): Promise<Buffer>;
}

/** The method a key of this type signs with (RSA or EC; others are refused). */
export function methodOf(key: KeyObject): SignatureMethod {
  if (key.asymmetricKeyType === 'rsa') return 'rsa-sha256';
  if (key.asymmetricKeyType === 'ec') return 'ecdsa-sha256';
  throw new Error(`a ${key.asymmetricKeyType ?? 'symmetric'} key cannot make an XAdES signature here (RSA or EC)`);
}

/** A signer over a PEM private key (PKCS#8, PKCS#1 or SEC1), as a connector reads it from its secrets. */
export function pemSigner(privateKeyPem: string | Secret, certificatePem: string): Signer {
  const key = createPrivateKey(typeof privateKeyPem === 'string' ? privateKeyPem : privateKeyPem.reveal());
  const method = methodOf(key);
  const certificate = new X509Certificate(certificatePem);
  if (!certificate.checkPrivateKey(key)) throw new Error('the private key does not belong to the certificate');
  return {
    method,
    certificatePem: certificate.toString(),
    sign: async (data) => cryptoSign('sha256', data, method === 'ecdsa-sha256' ? { key, dsaEncoding: 'ieee-p1363' } : key),
  };
}

/** xml-crypto's SignatureAlgorithm, as the instance-level registry wants it (a class). */
type AlgorithmClass = SignedXml['SignatureAlgorithms'][string];

/** Signing through a Signer: xml-crypto hands over the canonical SignedInfo and waits for the value. */
function signingAlgorithm(signer: Signer): AlgorithmClass {
  return class {
    getAlgorithmName() { return ALGORITHMS[signer.method]; }
    getSignature(signedInfo: string | Buffer, _key: unknown, callback?: (err: Error | null, value?: string) => void): string | void {
      if (!callback) throw new Error('an XAdES signature is computed asynchronously (the Signer may be an HSM)');
      signer.sign(Buffer.from(signedInfo)).then((value) => callback(null, value.toString('base64')), (err: Error) => callback(err));
    }
    verifySignature(): boolean { throw new Error('a signing algorithm does not verify'); }
  } as unknown as AlgorithmClass;
}

/** ECDSA-SHA256 verification (r‖s values), which xml-crypto does not ship. */
class EcdsaSha256 {
  getAlgorithmName() { return ALGORITHMS['ecdsa-sha256']; }
  getSignature(): string { throw new Error('verification only'); }
  verifySignature(material: string, key: string | Buffer, signatureValue: string): boolean {
    return cryptoVerify('sha256', Buffer.from(material), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(signatureValue, 'base64'));
  }
}

/** RFC 4514 form of a certificate's issuer (node lists the RDNs issuer-first, one a line). */
function issuerName(cert: X509Certificate): string {
  return cert.issuer.split('\n').filter(Boolean).reverse().join(', ');
}

/** The certificate's digest as SigningCertificate carries it (SHA-256 of the DER, base64). */
export function certificateDigest(cert: X509Certificate): string {
  return createHash('sha256').update(cert.raw).digest('base64');
}

export interface SignOptions {
  /** SigningTime (from the host's clock, not `Date.now()`). */
  signingTime: Date;
  /** Where the signature goes: an XPath to an element of the document and how (default: appended to the root). */
  location?: { reference: string; action: 'append' | 'prepend' | 'before' | 'after' };
  /** Prefixes the XPath of `location` uses. */
  namespaces?: Record<string, string>;
}

/** The XAdES QualifyingProperties of this signature (xades namespace declared here; ds comes from the Signature). */
function qualifyingProperties(signatureId: string, propertiesId: string, cert: X509Certificate, signingTime: Date): string {
  return `<xades:QualifyingProperties xmlns:xades="${NS.xades}" Target="#${signatureId}">`
    + `<xades:SignedProperties Id="${propertiesId}"><xades:SignedSignatureProperties>`
    + `<xades:SigningTime>${signingTime.toISOString()}</xades:SigningTime>`
    + '<xades:SigningCertificate><xades:Cert>'
    + `<xades:CertDigest><ds:DigestMethod Algorithm="${SHA256}"/><ds:DigestValue>${certificateDigest(cert)}</ds:DigestValue></xades:CertDigest>`
    + `<xades:IssuerSerial><ds:X509IssuerName>${escapeXml(issuerName(cert))}</ds:X509IssuerName>`
    + `<ds:X509SerialNumber>${BigInt(`0x${cert.serialNumber}`).toString(10)}</ds:X509SerialNumber></xades:IssuerSerial>`
    + '</xades:Cert></xades:SigningCertificate>'
    + '</xades:SignedSignatureProperties></xades:SignedProperties></xades:QualifyingProperties>';
}

/** Signs `xml` with an enveloped XAdES-BES signature; returns the signed document. */
export async function signEnveloped(xml: string, signer: Signer, options: SignOptions): Promise<string> {
  parseXmlHardened(xml, 'document to sign');
  const cert = new X509Certificate(signer.certificatePem);
  const signatureId = `xades-${randomUUID()}`;
  const propertiesId = `${signatureId}-signedprops`;
  const sig = new SignedXml({
    // The key is the Signer's; xml-crypto only insists that something is there.
    privateKey: Buffer.from('held-by-the-signer'),
    publicCert: cert.toString(),
    signatureAlgorithm: ALGORITHMS[signer.method],
    canonicalizationAlgorithm: EXC_C14N,
    objects: [{ content: qualifyingProperties(signatureId, propertiesId, cert, options.signingTime) }],
  });
  sig.SignatureAlgorithms[ALGORITHMS[signer.method]] = signingAlgorithm(signer);
  sig.addReference({ xpath: '/*', isEmptyUri: true, transforms: [ENVELOPED, C14N], digestAlgorithm: SHA256 });
  sig.addReference({ xpath: `//*[@Id='${propertiesId}']`, type: SIGNED_PROPERTIES_TYPE, transforms: [EXC_C14N], digestAlgorithm: SHA256 });
  await new Promise<void>((resolve, reject) => {
    sig.computeSignature(xml, {
      prefix: 'ds',
      attrs: { Id: signatureId },
      location: options.location ?? { reference: '/*', action: 'append' },
      existingPrefixes: options.namespaces ?? {},
    }, (err) => (err ? reject(err) : resolve()));
  });
  return sig.getSignedXml();
}

export interface Verification {
  valid: boolean;
  /** Why not, when not valid. */
  reason?: string;
  /** The signer's certificate (from KeyInfo) and the signing time, when the signature verified. */
  certificate?: X509Certificate;
  signingTime?: string;
}

interface XmlNode { nodeType: number; localName?: string; namespaceURI?: string | null; childNodes: ArrayLike<XmlNode>; textContent: string | null; getAttribute?(n: string): string | null; hasAttribute?(n: string): boolean; parentNode: XmlNode | null }
const { DOMParser } = createRequire(import.meta.url)('@xmldom/xmldom') as { DOMParser: new () => { parseFromString(xml: string, type: string): XmlNode & { documentElement: XmlNode; getElementsByTagNameNS(ns: string, l: string): ArrayLike<XmlNode> } } };

const elements = (n: XmlNode, ns: string, local: string): XmlNode[] => Array.from(n.childNodes).filter((c) => c.nodeType === 1 && c.localName === local && c.namespaceURI === ns);
const path = (n: XmlNode, steps: Array<[string, string]>): XmlNode[] => steps.reduce<XmlNode[]>((level, [ns, l]) => level.flatMap((p) => elements(p, ns, l)), [n]);
const textOf = (n: XmlNode | undefined) => (n?.textContent ?? '').trim();

/**
 * Verifies the document's one enveloped XAdES-BES signature: every reference and the signature value
 * (xml-crypto), then that the references cover the whole document (`URI=""`, enveloped) and this
 * signature's SignedProperties, and that SigningCertificate is the KeyInfo certificate. Whether that
 * certificate is one to trust is the caller's question (`expectedCertificatePem` answers it here).
 */
export function verifyEnveloped(xml: string, expectedCertificatePem?: string): Verification {
  const fail = (reason: string): Verification => ({ valid: false, reason });
  try {
    parseXmlHardened(xml, 'signed document');
  } catch (err) {
    return fail((err as Error).message);
  }
  if (/<!DOCTYPE/i.test(xml)) return fail('a DOCTYPE is not allowed');
  const doc = new DOMParser().parseFromString(xml, 'text/xml');
  const signatures = Array.from(doc.getElementsByTagNameNS(NS.ds, 'Signature'));
  if (signatures.length !== 1) return fail(`expected one ds:Signature, found ${signatures.length}`);
  const signature = signatures[0]!;
  const certText = textOf(path(signature, [[NS.ds, 'KeyInfo'], [NS.ds, 'X509Data'], [NS.ds, 'X509Certificate']])[0]);
  if (!certText) return fail('KeyInfo names no X509Certificate');
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(Buffer.from(certText.replace(/\s+/g, ''), 'base64'));
  } catch {
    return fail('the KeyInfo certificate does not parse');
  }
  if (expectedCertificatePem && !certificate.raw.equals(new X509Certificate(expectedCertificatePem).raw)) return fail('the signer is not the expected certificate');

  const sig = new SignedXml({ publicCert: certificate.toString() });
  sig.SignatureAlgorithms[ALGORITHMS['ecdsa-sha256']] = EcdsaSha256 as unknown as AlgorithmClass;
  try {
    sig.loadSignature(signature as unknown as Parameters<SignedXml["loadSignature"]>[0]);
    if (!sig.checkSignature(xml)) return fail('a reference does not match its digest');
  } catch (err) {
    return fail((err as Error).message);
  }

  const references = path(signature, [[NS.ds, 'SignedInfo'], [NS.ds, 'Reference']]);
  const whole = references.find((r) => r.getAttribute!('URI') === '' && r.hasAttribute!('URI'));
  if (!whole || !path(whole, [[NS.ds, 'Transforms'], [NS.ds, 'Transform']]).some((t) => t.getAttribute!('Algorithm') === ENVELOPED)) {
    return fail('the signature does not cover the whole document (URI="" with the enveloped transform)');
  }
  const propsRef = references.find((r) => r.getAttribute!('Type') === SIGNED_PROPERTIES_TYPE);
  const props = path(signature, [[NS.ds, 'Object'], [NS.xades, 'QualifyingProperties'], [NS.xades, 'SignedProperties']])[0];
  if (!propsRef || !props || propsRef.getAttribute!('URI') !== `#${props.getAttribute!('Id')}`) return fail('the SignedProperties of this signature are not signed');
  const signed = path(props, [[NS.xades, 'SignedSignatureProperties']])[0];
  const signingTime = textOf(path(signed!, [[NS.xades, 'SigningTime']])[0]);
  if (!signingTime) return fail('SigningTime is missing');
  const certDigest = textOf(path(signed!, [[NS.xades, 'SigningCertificate'], [NS.xades, 'Cert'], [NS.xades, 'CertDigest'], [NS.ds, 'DigestValue']])[0]);
  if (certDigest !== certificateDigest(certificate)) return fail('SigningCertificate is not the KeyInfo certificate');
  return { valid: true, certificate, signingTime };
}
