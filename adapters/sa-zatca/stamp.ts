/**
 * The cryptographic stamp of ZATCA's security features standard, on the invoice `mappings/zatca`
 * renders: 1. the invoice hash (SHA-256 of the C14N invoice without UBLExtensions, Signature, QR);
 * 2. the signature — ECDSA (secp256k1, the CSID certificate's key) over SHA-256 of that hash,
 * DER-encoded, as ZATCA defines it (it signs the hash, not SignedInfo: an XMLDSig verifier does not
 * check the value; ZATCA and our simulator verify it with the certificate's public key); 3. the
 * XAdES SignedProperties (SigningTime, SigningCertificate: the certificate's SHA-256 digest, issuer
 * and serial) and their digest (exclusive C14N, SHA-256); 4. the `ext:UBLExtensions` block with the
 * ds:Signature naming both digests, the value and the certificate; 5. the QR (TLV tags 1–8, and 9
 * on a simplified invoice). The key stays behind the clearance kit's `Signer` (a PEM secret here;
 * an HSM the same way).
 */
import { createHash, X509Certificate } from 'node:crypto';
import { createRequire } from 'node:module';
import forge from 'node-forge';
import { ExclusiveCanonicalization } from 'xml-crypto';
import type { Signer } from '../clearance-kit/xades.ts';
import { certificateDigest } from '../clearance-kit/xades.ts';
import type { CanonicalInvoice } from '../../mappings/canonical/model.ts';
import { canonicalToZatca, encodeZatcaQr, zatcaInvoiceHash, zatcaVatNumber, type ZatcaFacts } from '../../mappings/zatca/index.ts';
import { escapeXml } from '../../mappings/xml/writer.ts';

const NS = {
  sig: 'urn:oasis:names:specification:ubl:schema:xsd:CommonSignatureComponents-2',
  sac: 'urn:oasis:names:specification:ubl:schema:xsd:SignatureAggregateComponents-2',
  sbc: 'urn:oasis:names:specification:ubl:schema:xsd:SignatureBasicComponents-2',
  ds: 'http://www.w3.org/2000/09/xmldsig#',
  xades: 'http://uri.etsi.org/01903/v1.3.2#',
} as const;
const C14N11 = 'http://www.w3.org/2006/12/xml-c14n11';
const EXC_C14N = 'http://www.w3.org/2001/10/xml-exc-c14n#';
const XPATH = 'http://www.w3.org/TR/1999/REC-xpath-19991116';
const SHA256 = 'http://www.w3.org/2001/04/xmlenc#sha256';
const ECDSA_SHA256 = 'http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha256';

interface XNode { nodeType: number; localName?: string; namespaceURI?: string | null; childNodes: ArrayLike<XNode> }
const { DOMParser } = createRequire(import.meta.url)('@xmldom/xmldom') as { DOMParser: new () => { parseFromString(xml: string, type: string): { documentElement: XNode } } };

/** An r‖s ECDSA value (what a `Signer` gives, XMLDSig's form) as the DER SEQUENCE ZATCA writes. */
export function ecdsaDer(p1363: Buffer): Buffer {
  const half = p1363.length / 2;
  const int = (b: Buffer) => forge.asn1.create(forge.asn1.Class.UNIVERSAL, forge.asn1.Type.INTEGER, false, forge.util.createBuffer(Buffer.concat([b[0]! & 0x80 ? Buffer.from([0]) : Buffer.alloc(0), b]).toString('binary')).getBytes());
  const trim = (b: Buffer) => { let i = 0; while (i < b.length - 1 && b[i] === 0 && !(b[i + 1]! & 0x80)) i++; return b.subarray(i); };
  const seq = forge.asn1.create(forge.asn1.Class.UNIVERSAL, forge.asn1.Type.SEQUENCE, true, [int(trim(p1363.subarray(0, half))), int(trim(p1363.subarray(half)))]);
  return Buffer.from(forge.asn1.toDer(seq).getBytes(), 'binary');
}

/** The signature of the CA over the certificate (QR tag 9): the certificate's signatureValue bits. */
export function certificateSignature(cert: X509Certificate): Buffer {
  // Bit strings left undecoded (forge's typings know only the old boolean form of the options).
  const asn = forge.asn1.fromDer(forge.util.createBuffer(cert.raw.toString('binary')), { decodeBitStrings: false } as unknown as boolean);
  const bits = (asn.value as forge.asn1.Asn1[])[2]!.value as string;
  // A BIT STRING's first byte counts the unused bits (0 for a signature).
  return Buffer.from(bits, 'binary').subarray(1);
}

/** The certificate body as ZATCA's KeyInfo and binarySecurityToken carry it (base64 DER, no armour). */
export const certificateBase64 = (cert: X509Certificate): string => cert.raw.toString('base64');

function signedPropertiesXml(cert: X509Certificate, signingTime: string): string {
  const issuer = cert.issuer.split('\n').filter(Boolean).reverse().join(', ');
  return `<xades:SignedProperties Id="xadesSignedProperties"><xades:SignedSignatureProperties>`
    + `<xades:SigningTime>${signingTime}</xades:SigningTime>`
    + '<xades:SigningCertificate><xades:Cert>'
    + `<xades:CertDigest><ds:DigestMethod Algorithm="${SHA256}"/><ds:DigestValue>${certificateDigest(cert)}</ds:DigestValue></xades:CertDigest>`
    + `<xades:IssuerSerial><ds:X509IssuerName>${escapeXml(issuer)}</ds:X509IssuerName><ds:X509SerialNumber>${BigInt(`0x${cert.serialNumber}`).toString(10)}</ds:X509SerialNumber></xades:IssuerSerial>`
    + '</xades:Cert></xades:SigningCertificate></xades:SignedSignatureProperties></xades:SignedProperties>';
}

/** SHA-256 (base64) of the exclusive C14N of the SignedProperties element found in `xml` (a stamped invoice or the extension alone). */
export function signedPropertiesDigest(xml: string): string {
  const find = (n: XNode): XNode | undefined => {
    if (n.nodeType === 1 && n.localName === 'SignedProperties' && n.namespaceURI === NS.xades) return n;
    for (const c of Array.from(n.childNodes)) { const f = find(c); if (f) return f; }
    return undefined;
  };
  const node = find(new DOMParser().parseFromString(xml, 'text/xml').documentElement);
  if (!node) throw new Error('no xades:SignedProperties');
  return createHash('sha256').update(new ExclusiveCanonicalization().process(node as never, {}) as string, 'utf8').digest('base64');
}

function ublExtensions(parts: { invoiceHash: string; propertiesDigest: string; signatureValue: string; cert: X509Certificate; signedProperties: string }): string {
  const transform = (xpath: string) => `<ds:Transform Algorithm="${XPATH}"><ds:XPath>${escapeXml(xpath)}</ds:XPath></ds:Transform>`;
  return '<ext:UBLExtensions><ext:UBLExtension>'
    + '<ext:ExtensionURI>urn:oasis:names:specification:ubl:dsig:enveloped:xades</ext:ExtensionURI>'
    + `<ext:ExtensionContent><sig:UBLDocumentSignatures xmlns:sig="${NS.sig}" xmlns:sac="${NS.sac}" xmlns:sbc="${NS.sbc}">`
    + '<sac:SignatureInformation><cbc:ID>urn:oasis:names:specification:ubl:signature:1</cbc:ID>'
    + '<sbc:ReferencedSignatureID>urn:oasis:names:specification:ubl:signature:Invoice</sbc:ReferencedSignatureID>'
    + `<ds:Signature xmlns:ds="${NS.ds}" Id="signature"><ds:SignedInfo>`
    + `<ds:CanonicalizationMethod Algorithm="${C14N11}"/><ds:SignatureMethod Algorithm="${ECDSA_SHA256}"/>`
    + '<ds:Reference Id="invoiceSignedData" URI=""><ds:Transforms>'
    + transform('not(//ancestor-or-self::ext:UBLExtensions)') + transform('not(//ancestor-or-self::cac:Signature)')
    + transform("not(//ancestor-or-self::cac:AdditionalDocumentReference[cbc:ID='QR'])")
    + `<ds:Transform Algorithm="${C14N11}"/></ds:Transforms>`
    + `<ds:DigestMethod Algorithm="${SHA256}"/><ds:DigestValue>${parts.invoiceHash}</ds:DigestValue></ds:Reference>`
    + '<ds:Reference Type="http://uri.etsi.org/01903#SignedProperties" URI="#xadesSignedProperties">'
    + `<ds:Transforms><ds:Transform Algorithm="${EXC_C14N}"/></ds:Transforms>`
    + `<ds:DigestMethod Algorithm="${SHA256}"/><ds:DigestValue>${parts.propertiesDigest}</ds:DigestValue></ds:Reference>`
    + `</ds:SignedInfo><ds:SignatureValue>${parts.signatureValue}</ds:SignatureValue>`
    + `<ds:KeyInfo><ds:X509Data><ds:X509Certificate>${certificateBase64(parts.cert)}</ds:X509Certificate></ds:X509Data></ds:KeyInfo>`
    + `<ds:Object><xades:QualifyingProperties xmlns:xades="${NS.xades}" Target="signature">${parts.signedProperties}</xades:QualifyingProperties></ds:Object>`
    + '</ds:Signature></sac:SignatureInformation></sig:UBLDocumentSignatures></ext:ExtensionContent></ext:UBLExtension></ext:UBLExtensions>';
}

export interface StampedInvoice {
  /** The stamped invoice (UTF-8 XML), what ZATCA receives. */
  xml: string;
  /** Its hash (base64): ZATCA's `invoiceHash` and the next invoice's PIH. */
  invoiceHash: string;
  /** The QR's TLV, base64. */
  qr: string;
  /** The ECDSA signature (base64 DER). */
  signature: string;
}

/** Renders and stamps one invoice of the EGS unit whose certificate and key `signer` holds. */
export async function stampInvoice(c: CanonicalInvoice, facts: ZatcaFacts, signer: Signer): Promise<StampedInvoice> {
  if (signer.method !== 'ecdsa-sha256') throw new Error('a ZATCA stamp is ECDSA (secp256k1): the EGS key is not an EC key');
  const cert = new X509Certificate(signer.certificatePem);
  const invoiceHash = zatcaInvoiceHash(canonicalToZatca(c, facts));
  const signature = ecdsaDer(await signer.sign(Buffer.from(invoiceHash, 'base64'))).toString('base64');
  const signingTime = `${c.issueDate}T${facts.issueTime}`;
  const signedProperties = signedPropertiesXml(cert, signingTime);
  const propertiesDigest = signedPropertiesDigest(`<xades:QualifyingProperties xmlns:xades="${NS.xades}" xmlns:ds="${NS.ds}">${signedProperties}</xades:QualifyingProperties>`);
  const qr = encodeZatcaQr({
    sellerName: c.seller.name,
    vatNumber: zatcaVatNumber(c.seller.vatId) ?? '',
    timestamp: signingTime,
    total: c.totals.taxInclusive ?? c.totals.payable ?? '0.00',
    vatTotal: c.totals.vatTotal ?? '0.00',
    invoiceHash,
    signature,
    publicKey: cert.publicKey.export({ type: 'spki', format: 'der' }),
    ...(facts.kind === 'simplified' ? { certificateSignature: certificateSignature(cert) } : {}),
  });
  const xml = canonicalToZatca(c, facts, { ublExtensions: ublExtensions({ invoiceHash, propertiesDigest, signatureValue: signature, cert, signedProperties }), qr });
  // The stamp's parts are outside the hash: the stamped invoice hashes as the unsigned one did.
  if (zatcaInvoiceHash(xml) !== invoiceHash) throw new Error('the stamped invoice does not hash as the unsigned one (a bug in the stamp)');
  return { xml, invoiceHash, qr, signature };
}
