import { createHash, randomInt } from 'node:crypto';
import type { KeyType } from '../shared/auth.ts';

/** Key prefixes exactly as the spec names them: type, then `live` or `test`. */
const TYPE_PREFIX: Record<KeyType, string> = { personal: 'svc_', platform: 'svc_plat_', white_label: 'svc_wl_' };

export function keyPrefixFor(keyType: KeyType, livemode: boolean): string {
  return `${TYPE_PREFIX[keyType]}${livemode ? 'live' : 'test'}_`;
}

/** Characters of the secret shown after the type prefix, so people can tell keys apart. */
const VISIBLE_SECRET_CHARS = 6;

export interface NewKey {
  key: string;
  keyPrefix: string;
  keyHash: string;
}

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 43 base62 characters ≈ 256 bits: enough entropy that a plain SHA-256 is a safe at-rest form. */
const SECRET_LENGTH = 43;

/** Letters and digits only, so a key survives double-click selection and never reads as a prefix. */
export function generateKey(keyType: KeyType, livemode: boolean): NewKey {
  const prefix = keyPrefixFor(keyType, livemode);
  let secret = '';
  for (let i = 0; i < SECRET_LENGTH; i++) secret += ALPHABET[randomInt(ALPHABET.length)];
  const key = `${prefix}${secret}`;
  return { key, keyPrefix: `${prefix}${secret.slice(0, VISIBLE_SECRET_CHARS)}`, keyHash: hashKey(key) };
}

export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}
