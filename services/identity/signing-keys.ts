/**
 * Signing keys of the built-in issuer, kept in the database so every replica signs with the same
 * key and publishes the same JWKS. The newest unretired key signs. A rotation gives every current
 * key a `retireAt` (now + the longest token life + clock tolerance): the key stays in the JWKS until
 * the last token it signed has expired, then disappears from it.
 */
import { exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../shared/ids.ts';
import { SigningKey } from './signing-key.entity.ts';
import { MACHINE_TOKEN_SECONDS } from './identity.contract.ts';

/** ECDSA P-256: small keys and signatures, fast to verify. */
export const SIGNING_ALG = 'ES256';

/** Serialises rotations across replicas (transaction-scoped advisory lock). */
const ROTATION_LOCK = 'select pg_advisory_xact_lock(hashtext(\'einv.identity.signing-keys\'))';

export function retireAtFor(rotatedAt: Date, clockToleranceSeconds: number): Date {
  return new Date(rotatedAt.getTime() + (MACHINE_TOKEN_SECONDS + clockToleranceSeconds) * 1000);
}

async function newKeyRow(em: EntityManager, now: Date): Promise<SigningKey> {
  const { publicKey, privateKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
  const kid = newId('signingKey');
  const meta = { kid, alg: SIGNING_ALG, use: 'sig' };
  return em.create(SigningKey, {
    kid,
    alg: SIGNING_ALG,
    publicJwk: { ...(await exportJWK(publicKey)), ...meta },
    privateJwk: { ...(await exportJWK(privateKey)), ...meta },
    createdAt: now,
    retireAt: null,
  });
}

async function rotateLocked(tx: EntityManager, now: Date, clockToleranceSeconds: number): Promise<{ key: SigningKey; retiring: SigningKey[] }> {
  const current = await tx.find(SigningKey, { retireAt: null });
  for (const key of current) key.retireAt = retireAtFor(now, clockToleranceSeconds);
  const key = await newKeyRow(tx, now);
  await tx.flush();
  return { key, retiring: current };
}

/** A new key signs from now on; every other unretired key retires when its tokens have expired. */
export async function rotate(em: EntityManager, now: Date, clockToleranceSeconds: number): Promise<{ key: SigningKey; retiring: SigningKey[] }> {
  return em.transactional(async (tx) => {
    await tx.execute(ROTATION_LOCK);
    return rotateLocked(tx, now, clockToleranceSeconds);
  });
}

const newest = (em: EntityManager) => em.findOne(SigningKey, { retireAt: null }, { orderBy: { createdAt: 'desc' } });

/**
 * The key to sign with: the newest unretired one, or a fresh one (first use, or the active key is
 * older than maxAgeDays). Replicas racing here rotate once: the lock holder's key is found by the rest.
 */
export async function signingKey(em: EntityManager, now: Date, maxAgeDays: number, clockToleranceSeconds: number): Promise<SigningKey> {
  const fresh = (k: SigningKey | null): k is SigningKey => k !== null && now.getTime() - k.createdAt.getTime() < maxAgeDays * 86_400_000;
  const active = await newest(em);
  if (fresh(active)) return active;
  return em.transactional(async (tx) => {
    await tx.execute(ROTATION_LOCK);
    const again = await newest(tx);
    return fresh(again) ? again : (await rotateLocked(tx, now, clockToleranceSeconds)).key;
  });
}

/** Public JWKs of every key that may still have live tokens, newest first. */
export async function publishedKeys(em: EntityManager, now: Date): Promise<JWK[]> {
  const rows = await em.find(SigningKey, { $or: [{ retireAt: null }, { retireAt: { $gt: now } }] }, { orderBy: { createdAt: 'desc' } });
  return rows.map((r) => r.publicJwk as JWK);
}

/** Imported private keys, by kid (importing is the costly part of signing). */
const imported = new Map<string, Promise<CryptoKey | Uint8Array>>();

export function privateKeyOf(row: SigningKey): Promise<CryptoKey | Uint8Array> {
  let key = imported.get(row.kid);
  if (!key) {
    key = importJWK(row.privateJwk as JWK, row.alg);
    imported.set(row.kid, key);
  }
  return key;
}
