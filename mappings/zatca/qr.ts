/**
 * The QR code of a ZATCA invoice (phase 2): TLV (tag byte, length byte, UTF-8 or binary value),
 * base64 of the whole. Tags, as the security features standard lists them:
 * 1 seller name · 2 seller VAT number · 3 timestamp (issue date and time) · 4 invoice total with VAT ·
 * 5 VAT total · 6 invoice hash (its base64 text) · 7 ECDSA signature (its base64 text) · 8 the ECDSA
 * public key (DER SubjectPublicKeyInfo) · 9 for a simplified invoice, the signature of ZATCA's CA
 * over the EGS certificate (the certificate's signatureValue).
 * A value is at most 255 bytes (one length byte): longer is refused, never cut.
 */
export interface ZatcaQrFields {
  sellerName: string;
  vatNumber: string;
  timestamp: string;
  total: string;
  vatTotal: string;
  invoiceHash: string;
  signature: string;
  publicKey: Uint8Array;
  /** Simplified invoices only. */
  certificateSignature?: Uint8Array;
}

export class QrError extends Error {}

function tlv(tag: number, value: Uint8Array): Buffer {
  if (value.length > 255) throw new QrError(`QR tag ${tag} is ${value.length} bytes, over the 255 a TLV length byte holds`);
  return Buffer.concat([Buffer.from([tag, value.length]), value]);
}

/** Encodes the fields as ZATCA's TLV, base64. */
export function encodeZatcaQr(f: ZatcaQrFields): string {
  const text = (s: string) => Buffer.from(s, 'utf8');
  const parts = [
    tlv(1, text(f.sellerName)), tlv(2, text(f.vatNumber)), tlv(3, text(f.timestamp)), tlv(4, text(f.total)), tlv(5, text(f.vatTotal)),
    tlv(6, text(f.invoiceHash)), tlv(7, text(f.signature)), tlv(8, f.publicKey),
  ];
  if (f.certificateSignature) parts.push(tlv(9, f.certificateSignature));
  return Buffer.concat(parts).toString('base64');
}

/** Decodes a TLV QR (base64) into its tags' values, in order; a truncated or malformed one throws. */
export function decodeZatcaQr(base64: string): Map<number, Buffer> {
  const bytes = Buffer.from(base64, 'base64');
  if (bytes.length === 0 || bytes.length > 4096) throw new QrError(`a ZATCA QR is 1 to 4096 bytes, not ${bytes.length}`);
  const out = new Map<number, Buffer>();
  for (let i = 0; i < bytes.length;) {
    if (i + 2 > bytes.length) throw new QrError(`QR truncated at byte ${i}`);
    const tag = bytes[i]!;
    const len = bytes[i + 1]!;
    if (i + 2 + len > bytes.length) throw new QrError(`QR tag ${tag} claims ${len} bytes past the end`);
    if (out.has(tag)) throw new QrError(`QR tag ${tag} appears twice`);
    out.set(tag, bytes.subarray(i + 2, i + 2 + len));
    i += 2 + len;
  }
  return out;
}
