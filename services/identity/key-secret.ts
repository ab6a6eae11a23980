/**
 * The key-encryption secret of the built-in issuer's private keys. EINV_OAUTH_KEY_SECRET when set;
 * otherwise a random secret generated once into the data directory (mode 0600), so keys are never
 * stored in clear: a database dump alone cannot mint tokens. A generated secret only protects the
 * keys while the data directory and the database are kept apart, and every replica must share it,
 * hence the production warning.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const KEY_SECRET_FILE = 'oauth-key-secret';

export interface KeySecret {
  secret: string;
  /** Where it came from: the environment, or the data directory's file (and whether it was just created). */
  source: 'env' | 'file';
  generated: boolean;
  path?: string;
}

function readSecretFile(path: string): string | undefined {
  try {
    const value = readFileSync(path, 'utf8').trim();
    return value || undefined;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** The data directory's generated secret, if one was ever written (keys sealed before EINV_OAUTH_KEY_SECRET was set). */
export function generatedKeySecret(dataDir: string): string | undefined {
  return readSecretFile(join(dataDir, KEY_SECRET_FILE));
}

/**
 * The configured secret, else the data directory's, else a new one written there. Replicas or test
 * workers starting together agree: the file appears atomically (hard link of a complete temp file),
 * and whoever loses the race reads the winner's.
 */
export function resolveKeySecret(configured: string | undefined, dataDir: string): KeySecret {
  if (configured) return { secret: configured, source: 'env', generated: false };
  const path = join(dataDir, KEY_SECRET_FILE);
  const existing = readSecretFile(path);
  if (existing) return { secret: existing, source: 'file', generated: false, path };
  mkdirSync(dataDir, { recursive: true });
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(temp, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600 });
  chmodSync(temp, 0o600); // the umask may have widened it
  let generated = true;
  try {
    linkSync(temp, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    generated = false;
  } finally {
    unlinkSync(temp);
  }
  const secret = readSecretFile(path);
  if (!secret) throw new Error(`${path} is empty: delete it or set EINV_OAUTH_KEY_SECRET`);
  return { secret, source: 'file', generated, path };
}
