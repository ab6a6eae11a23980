/**
 * Signing keys of the built-in issuer, kept in the database so every replica signs with the same
 * key and publishes the same JWKS. The newest unretired key signs. A rotation gives every current
 * key a `retireAt` (now + the longest token life + clock tolerance): the key stays in the JWKS until
 * the last token it signed has expired, then disappears from it.
 *
 * The private JWK is always stored encrypted (JWE, `dir` + A256GCM, key = SHA-256 of the secret,
 * EINV_OAUTH_KEY_SECRET or the data directory's generated one: key-secret.ts): a database dump
 * alone cannot mint tokens. Rows written in clear by older versions are sealed on start.
 */
import { createHash } from 'node:crypto';
import { CompactEncrypt, compactDecrypt, exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../shared/ids.ts';
import { SigningKey } from './signing-key.entity.ts';
import { MACHINE_TOKEN_SECONDS } from './identity.contract.ts';

/** ECDSA P-256: small keys and signatures, fast to verify. */
export const SIGNING_ALG = 'ES256';

export interface KeyPolicy {
  /** Leeway of verifiers on `exp`, in seconds: a retired key stays published that much longer. */
  clockToleranceSeconds: number;
  /** The active key is replaced once it is this old. */
  maxAgeDays: number;
  /** Encrypts private keys at rest (always set: see key-secret.ts). */
  secret: string;
}

/** Serialises rotations across replicas (transaction-scoped advisory lock). */
const ROTATION_LOCK = 'select pg_advisory_xact_lock(hashtext(\'einv.identity.signing-keys\'))';

export function retireAtFor(rotatedAt: Date, clockToleranceSeconds: number): Date {
  return new Date(rotatedAt.getTime() + (MACHINE_TOKEN_SECONDS + clockToleranceSeconds) * 1000);
}

const encryptionKey = (secret: string) => createHash('sha256').update(secret, 'utf8').digest();

async function sealPrivateJwk(jwk: JWK, secret: string): Promise<Record<string, unknown>> {
  const jwe = await new CompactEncrypt(new TextEncoder().encode(JSON.stringify(jwk)))
    .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', kid: jwk.kid })
    .encrypt(encryptionKey(secret));
  return { kid: jwk.kid, alg: jwk.alg, jwe };
}

const isSealed = (row: SigningKey) => typeof (row.privateJwk as { jwe?: unknown }).jwe === 'string';

async function openPrivateJwk(row: SigningKey, secret: string | undefined): Promise<JWK> {
  const stored = row.privateJwk as { jwe?: string } & JWK;
  // A clear row is never used: secureKeysAtRest() encrypts it on start.
  if (typeof stored.jwe !== 'string') throw new Error(`Signing key ${row.kid} is stored unencrypted; restart the identity service to encrypt it`);
  if (!secret) throw new Error(`Signing key ${row.kid} is encrypted: set EINV_OAUTH_KEY_SECRET`);
  const { plaintext } = await compactDecrypt(stored.jwe, encryptionKey(secret));
  return JSON.parse(new TextDecoder().decode(plaintext)) as JWK;
}

async function newKeyRow(em: EntityManager, now: Date, policy: KeyPolicy): Promise<SigningKey> {
  const { publicKey, privateKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
  const kid = newId('signingKey');
  const meta = { kid, alg: SIGNING_ALG, use: 'sig' };
  return em.create(SigningKey, {
    kid,
    alg: SIGNING_ALG,
    publicJwk: { ...(await exportJWK(publicKey)), ...meta },
    privateJwk: await sealPrivateJwk({ ...(await exportJWK(privateKey)), ...meta }, policy.secret),
    createdAt: now,
    retireAt: null,
  });
}

async function rotateLocked(tx: EntityManager, now: Date, policy: KeyPolicy): Promise<{ key: SigningKey; retiring: SigningKey[] }> {
  const current = await tx.find(SigningKey, { retireAt: null });
  for (const key of current) key.retireAt = retireAtFor(now, policy.clockToleranceSeconds);
  const key = await newKeyRow(tx, now, policy);
  await tx.flush();
  return { key, retiring: current };
}

/** A new key signs from now on; every other unretired key retires when its tokens have expired. */
export async function rotate(em: EntityManager, now: Date, policy: KeyPolicy): Promise<{ key: SigningKey; retiring: SigningKey[] }> {
  return em.transactional(async (tx) => {
    await tx.execute(ROTATION_LOCK);
    return rotateLocked(tx, now, policy);
  });
}

const newest = (em: EntityManager) => em.findOne(SigningKey, { retireAt: null }, { orderBy: { createdAt: 'desc' } });

/**
 * The key to sign with: the newest unretired one, or a fresh one (first use, or the active key is
 * older than maxAgeDays). Replicas racing here rotate once: the lock holder's key is found by the rest.
 */
export async function signingKey(em: EntityManager, now: Date, policy: KeyPolicy): Promise<SigningKey> {
  const fresh = (k: SigningKey | null): k is SigningKey => k !== null && now.getTime() - k.createdAt.getTime() < policy.maxAgeDays * 86_400_000;
  const active = await newest(em);
  if (fresh(active)) return active;
  return em.transactional(async (tx) => {
    await tx.execute(ROTATION_LOCK);
    const again = await newest(tx);
    return fresh(again) ? again : (await rotateLocked(tx, now, policy)).key;
  });
}

/** Public JWKs of every key that may still have live tokens, newest first. */
export async function publishedKeys(em: EntityManager, now: Date): Promise<JWK[]> {
  const rows = await em.find(SigningKey, { $or: [{ retireAt: null }, { retireAt: { $gt: now } }] }, { orderBy: { createdAt: 'desc' } });
  return rows.map((r) => r.publicJwk as JWK);
}

/**
 * Public JWKs of every key this service ever signed with, newest first: what verifies a signed
 * statement (an evidence bundle) years after its key stopped signing tokens. Rows are never
 * deleted, so the archive is complete; tokens are verified against publishedKeys only.
 */
export async function statementKeys(em: EntityManager): Promise<JWK[]> {
  const rows = await em.find(SigningKey, {}, { orderBy: { createdAt: 'desc' } });
  return rows.map((r) => r.publicJwk as JWK);
}

export interface AtRestReport {
  /** Rows found in clear (older versions), now encrypted. */
  sealed: string[];
  /** Rows encrypted with an earlier secret (e.g. the generated one before EINV_OAUTH_KEY_SECRET was set), re-encrypted. */
  resealed: string[];
  /** Rows no known secret opens: they keep verifying (public key) but can never sign. */
  unreadable: string[];
  /** The signing key was unreadable, so a new one was made (the old ones stay published until their tokens expire). */
  rotated: boolean;
}

async function opens(row: SigningKey, secret: string): Promise<JWK | undefined> {
  try {
    return await openPrivateJwk(row, secret);
  } catch {
    return undefined;
  }
}

/**
 * Run on start, under the rotation lock (replicas starting together do it once): rows stored in
 * clear by older versions are encrypted with the current secret, rows sealed with an earlier
 * secret are re-encrypted, and if the signing key itself cannot be opened a new one takes over.
 */
export async function secureKeysAtRest(em: EntityManager, now: Date, policy: KeyPolicy, earlierSecrets: readonly string[] = []): Promise<AtRestReport> {
  return em.transactional(async (tx) => {
    await tx.execute(ROTATION_LOCK);
    const report: AtRestReport = { sealed: [], resealed: [], unreadable: [], rotated: false };
    for (const row of await tx.find(SigningKey, {})) {
      if (!isSealed(row)) {
        row.privateJwk = await sealPrivateJwk({ ...(row.privateJwk as JWK), kid: row.kid }, policy.secret);
        report.sealed.push(row.kid);
        continue;
      }
      if (await opens(row, policy.secret)) continue;
      let jwk: JWK | undefined;
      for (const earlier of earlierSecrets) if ((jwk ??= await opens(row, earlier))) break;
      if (jwk) {
        row.privateJwk = await sealPrivateJwk(jwk, policy.secret);
        report.resealed.push(row.kid);
      } else {
        report.unreadable.push(row.kid);
      }
    }
    await tx.flush();
    const active = await newest(tx);
    if (active && report.unreadable.includes(active.kid)) {
      await rotateLocked(tx, now, policy);
      report.rotated = true;
    }
    return report;
  });
}

/** Imported private keys, by kid (decrypting and importing are the costly part of signing). */
const imported = new Map<string, Promise<CryptoKey | Uint8Array>>();

export function privateKeyOf(row: SigningKey, secret: string | undefined): Promise<CryptoKey | Uint8Array> {
  let key = imported.get(row.kid);
  if (!key) {
    key = openPrivateJwk(row, secret).then((jwk) => importJWK(jwk, row.alg));
    // A failure (wrong or missing secret) is not cached: fixing the configuration fixes signing.
    key.catch(() => imported.delete(row.kid));
    imported.set(row.kid, key);
  }
  return key;
}
