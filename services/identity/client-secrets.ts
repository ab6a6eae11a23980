/** Client ids and secrets of integrations. Secrets are 256 random bits; only their SHA-256 is stored. */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { ulid } from 'ulid';

export function newClientId(livemode: boolean): string {
  return `cli_${livemode ? 'live' : 'test'}_${ulid()}`;
}

export function newClientSecret(): { secret: string; hash: string } {
  const secret = `ccs_${randomBytes(32).toString('base64url')}`;
  return { secret, hash: hashSecret(secret) };
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Constant-time comparison of a presented secret with a stored hash. */
export function secretMatches(secret: string, storedHash: string): boolean {
  const a = Buffer.from(hashSecret(secret), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
