/**
 * The AS4 payload's compression and encryption (peppol-transport.md §1.6, §1.7, P5–P7): the SBD is
 * gzipped, the gzip bytes are encrypted with AES-128-GCM under a fresh key (IV(12) ‖ ciphertext ‖
 * tag(16), no AAD) and that key is wrapped with RSA-OAEP (SHA-256 digest, MGF1-SHA-256) for the
 * receiver's certificate. The receiver reverses each step; gunzip is capped (zip bombs).
 *
 * Failures on input are `As4PayloadError` with the ebMS code to answer: EBMS:0102
 * (FailedDecryption) for a key that does not unwrap or cipher bytes that do not authenticate,
 * EBMS:0303 (DecompressionFailure) for gzip bytes that are corrupt or expand past the cap.
 */
import { constants, createCipheriv, createDecipheriv, KeyObject, privateDecrypt, publicEncrypt, randomBytes, X509Certificate } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { As4Error } from './ebms.ts';

export type As4PayloadErrorCode = 'EBMS:0102' | 'EBMS:0303';

/** The payload cannot be decrypted (EBMS:0102) or decompressed (EBMS:0303). */
export class As4PayloadError extends As4Error {
  override readonly name = 'As4PayloadError';
  constructor(code: As4PayloadErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message);
    if (options && 'cause' in options) this.cause = options.cause;
  }
}

const KEY_BYTES = 16;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export function gzipPayload(sbd: Buffer): Buffer {
  return gzipSync(sbd);
}

/** gunzip with a cap (zlib maxOutputLength): a zip bomb or corrupt data throws Decompression error code 'EBMS:0303'. */
export function gunzipPayload(gz: Buffer, maxBytes: number): Buffer {
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 1) throw new RangeError(`gunzip cap must be a positive integer, not ${maxBytes}`);
  try {
    // zlib stops and throws ERR_BUFFER_TOO_LARGE as soon as the output passes the cap: memory stays bounded.
    return gunzipSync(gz, { maxOutputLength: maxBytes });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const why = e.code === 'ERR_BUFFER_TOO_LARGE' ? `expands past ${maxBytes} bytes` : `is not valid gzip (${e.message})`;
    throw new As4PayloadError('EBMS:0303', `the payload ${why}`, { cause: err });
  }
}

/** AES-128-GCM with a fresh 16-byte key and 12-byte IV: IV ‖ ciphertext ‖ tag(16); no AAD. */
export function encryptPayload(plain: Buffer): { key: Buffer; cipherBytes: Buffer } {
  const key = randomBytes(KEY_BYTES);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-128-gcm', key, iv, { authTagLength: TAG_BYTES });
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return { key, cipherBytes: Buffer.concat([iv, body, cipher.getAuthTag()]) };
}

/** The inverse of `encryptPayload`; throws EBMS:0102 on a wrong key, a bad tag or a short input. */
export function decryptPayload(cipherBytes: Buffer, key: Buffer): Buffer {
  if (key.length !== KEY_BYTES) throw new As4PayloadError('EBMS:0102', `the content key is ${key.length} bytes, not ${KEY_BYTES} (AES-128)`);
  if (cipherBytes.length < IV_BYTES + TAG_BYTES) throw new As4PayloadError('EBMS:0102', `the cipher bytes are too short (${cipherBytes.length}) for IV and tag`);
  try {
    const decipher = createDecipheriv('aes-128-gcm', key, cipherBytes.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
    decipher.setAuthTag(cipherBytes.subarray(cipherBytes.length - TAG_BYTES));
    return Buffer.concat([decipher.update(cipherBytes.subarray(IV_BYTES, cipherBytes.length - TAG_BYTES)), decipher.final()]);
  } catch (err) {
    throw new As4PayloadError('EBMS:0102', 'the payload does not decrypt (authentication failed)', { cause: err });
  }
}

/** RSA-OAEP, SHA-256 digest, MGF1-SHA-256 (xmlenc11#rsa-oaep + mgf1sha256), to the receiver's certificate. */
export function wrapKey(key: Buffer, recipient: X509Certificate | KeyObject): Buffer {
  const publicKey = recipient instanceof X509Certificate ? recipient.publicKey : recipient;
  if (publicKey.asymmetricKeyType !== 'rsa') throw new TypeError(`the receiver's key is ${publicKey.asymmetricKeyType ?? publicKey.type}, not RSA: RSA-OAEP key transport needs an RSA key`);
  // Node's oaepHash sets the OAEP digest and the MGF1 digest alike: SHA-256 for both.
  return publicEncrypt({ key: publicKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, key);
}

/** The inverse of `wrapKey`; throws EBMS:0102 when the key was wrapped for another key or is not an AES-128 key. */
export function unwrapKey(wrapped: Buffer, privateKey: KeyObject): Buffer {
  let key: Buffer;
  try {
    key = privateDecrypt({ key: privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, wrapped);
  } catch (err) {
    throw new As4PayloadError('EBMS:0102', 'the content key does not unwrap with our private key', { cause: err });
  }
  if (key.length !== KEY_BYTES) throw new As4PayloadError('EBMS:0102', `the unwrapped content key is ${key.length} bytes, not ${KEY_BYTES} (AES-128)`);
  return key;
}
