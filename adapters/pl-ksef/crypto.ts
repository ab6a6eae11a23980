/**
 * The cryptography KSeF 2.0 prescribes, with node:crypto only: the KSeF token and each session's
 * symmetric key are encrypted with the Ministry of Finance's public key (RSAES-OAEP, SHA-256 and
 * MGF1-SHA-256); an invoice travels AES-256-CBC encrypted (PKCS#7 padding) under the session's key
 * and the IV declared when the session opens; hashes are SHA-256 in base64. The KOD I verification
 * link (kody-qr.md) carries the invoice file's hash in base64url.
 */
import { X509Certificate, constants, createCipheriv, createHash, createPublicKey, publicEncrypt, randomBytes, type KeyObject } from 'node:crypto';

/**
 * The Ministry's public key from what configuration or `GET /security/public-key-certificates` gives:
 * a PEM certificate, a PEM public key, or a base64 DER certificate.
 */
export function ministryKeyOf(material: string): KeyObject {
  const text = material.trim();
  if (text.includes('BEGIN CERTIFICATE')) return new X509Certificate(text).publicKey;
  if (text.includes('BEGIN')) return createPublicKey(text);
  return new X509Certificate(Buffer.from(text, 'base64')).publicKey;
}

/** RSAES-OAEP with SHA-256 and MGF1-SHA-256, as both the token and the session key are encrypted. */
export function rsaOaepEncrypt(key: KeyObject, data: Buffer): Buffer {
  return publicEncrypt({ key, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, data);
}

/** The `{token}|{timestampMs}` string of token authentication, encrypted for the Ministry (base64). */
export function encryptKsefToken(key: KeyObject, token: string, challengeTimestampMs: number): string {
  return rsaOaepEncrypt(key, Buffer.from(`${token}|${challengeTimestampMs}`, 'utf8')).toString('base64');
}

export interface SessionKey { key: Buffer; iv: Buffer }

/** A fresh 256-bit key and 128-bit IV for one interactive session. */
export function newSessionKey(): SessionKey {
  return { key: randomBytes(32), iv: randomBytes(16) };
}

/** AES-256-CBC with PKCS#7 padding (node's default), under the session's key and IV. */
export function encryptInvoice(session: SessionKey, plain: Buffer): Buffer {
  const cipher = createCipheriv('aes-256-cbc', session.key, session.iv);
  return Buffer.concat([cipher.update(plain), cipher.final()]);
}

export function sha256Base64(data: Buffer): string {
  return createHash('sha256').update(data).digest('base64');
}

/**
 * KOD I, the verification link printed as a QR code on an online invoice's visual form:
 * `<qr base>/invoice/{seller NIP}/{P_1 as DD-MM-YYYY}/{SHA-256 of the invoice file, base64url}`.
 */
export function kodIUrl(qrBaseUrl: string, sellerNip: string, issueDate: string, invoiceHashBase64: string): string {
  const [y, m, d] = issueDate.split('-');
  const hash = Buffer.from(invoiceHashBase64, 'base64').toString('base64url');
  return `${qrBaseUrl.replace(/\/+$/, '')}/invoice/${sellerNip}/${d}-${m}-${y}/${hash}`;
}
