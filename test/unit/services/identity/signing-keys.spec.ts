/** The built-in issuer's signing keys on a real PostgreSQL: first key, age-based and explicit rotation, publication window, encryption at rest. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { EntityManager } from '@mikro-orm/postgresql';
import { SignJWT, exportJWK, generateKeyPair, importJWK, jwtVerify, type JWK } from 'jose';
import { SigningKey } from '../../../../services/identity/signing-key.entity.ts';
import { privateKeyOf, publishedKeys, rotate, secureKeysAtRest, signingKey, type KeyPolicy } from '../../../../services/identity/signing-keys.ts';
import { useMigratedOrm } from '../../../support/migrated-orm.ts';

const database = useMigratedOrm();
const orm = database.orm;
const em = () => orm().em.fork() as EntityManager;
const policy: KeyPolicy = { clockToleranceSeconds: 30, maxAgeDays: 90, secret: 'the data directory\'s generated secret' };
const sealed: KeyPolicy = { ...policy, secret: 'a long operator secret from the environment' };
const DAY = 86_400_000;

beforeEach(async () => { await em().nativeDelete(SigningKey, {}); });

async function signsAndVerifies(row: SigningKey, policy: KeyPolicy): Promise<boolean> {
  const token = await new SignJWT({}).setProtectedHeader({ alg: row.alg, kid: row.kid }).setExpirationTime('1h').sign(await privateKeyOf(row, policy.secret));
  const { protectedHeader } = await jwtVerify(token, await importJWK(row.publicJwk as JWK, row.alg));
  return protectedHeader.kid === row.kid;
}

it('creates the first key on demand (once, even when replicas race), then keeps signing with it', async () => {
  const now = new Date();
  const racing = await Promise.all(Array.from({ length: 5 }, () => signingKey(em(), now, policy)));
  expect(new Set(racing.map((k) => k.kid)).size).toBe(1);
  expect(await em().count(SigningKey, {})).toBe(1);
  expect((await signingKey(em(), new Date(now.getTime() + 10 * DAY), policy)).kid).toBe(racing[0]!.kid);
  expect(racing[0]!.privateJwk).not.toHaveProperty('d');
  expect(racing[0]!.privateJwk).toHaveProperty('jwe');
  expect(racing[0]!.publicJwk).not.toHaveProperty('d');
  expect(await signsAndVerifies(racing[0]!, policy)).toBe(true);
});

it('rotates once the active key is older than maxAgeDays; the old one stays published until its tokens have expired', async () => {
  const t0 = new Date('2026-01-01T00:00:00Z');
  const first = await signingKey(em(), t0, policy);
  const later = new Date(t0.getTime() + 91 * DAY);
  const second = await signingKey(em(), later, policy);
  expect(second.kid).not.toBe(first.kid);
  const old = await em().findOneOrFail(SigningKey, first.kid);
  expect(old.retireAt!.getTime()).toBe(later.getTime() + (86_400 + 30) * 1000);
  expect((await publishedKeys(em(), later)).map((k) => k.kid)).toEqual([second.kid, first.kid]);
  expect((await publishedKeys(em(), new Date(old.retireAt!.getTime() + 1))).map((k) => k.kid)).toEqual([second.kid]);
});

it('rotate() replaces the signer at once and lists the keys it retires', async () => {
  const now = new Date();
  const first = await signingKey(em(), now, policy);
  const { key, retiring } = await rotate(em(), now, policy);
  expect(retiring.map((k) => k.kid)).toEqual([first.kid]);
  expect((await signingKey(em(), now, policy)).kid).toBe(key.kid);
});

it('encrypts private keys at rest with a secret, and refuses to sign without it', async () => {
  const row = await signingKey(em(), new Date(), sealed);
  const stored = (await em().findOneOrFail(SigningKey, row.kid)).privateJwk;
  expect(stored).not.toHaveProperty('d');
  expect(stored.jwe).toEqual(expect.stringMatching(/^[\w-]+\.\.[\w-]+\.[\w-]+\.[\w-]+$/));
  expect(await signsAndVerifies(row, sealed)).toBe(true);
  await rotate(em(), new Date(), sealed); // a new kid, so nothing is served from the import cache below
  const again = await signingKey(em(), new Date(), sealed);
  await expect(privateKeyOf(again, undefined)).rejects.toThrow(/EINV_OAUTH_KEY_SECRET/);
  await expect(privateKeyOf(again, 'another secret')).rejects.toThrow();
  expect(await signsAndVerifies(again, sealed)).toBe(true);
});

it('never stores a private key in clear; rows left in clear by older versions are sealed in place and still sign', async () => {
  const row = await signingKey(em(), new Date(), policy);
  expect((await em().findOneOrFail(SigningKey, row.kid)).privateJwk).not.toHaveProperty('d');
  // An older version's row: the private JWK in clear.
  const pair = await generateKeyPair('ES256', { extractable: true });
  const legacy = em();
  legacy.create(SigningKey, {
    kid: 'sk_legacy_clear', alg: 'ES256', createdAt: new Date(Date.now() - DAY), retireAt: new Date(Date.now() + DAY),
    publicJwk: { ...(await exportJWK(pair.publicKey)), kid: 'sk_legacy_clear', alg: 'ES256' },
    privateJwk: { ...(await exportJWK(pair.privateKey)), kid: 'sk_legacy_clear', alg: 'ES256' },
  });
  await legacy.flush();
  const clearRow = await em().findOneOrFail(SigningKey, 'sk_legacy_clear');
  await expect(privateKeyOf(clearRow, policy.secret)).rejects.toThrow(/unencrypted/);
  expect(await secureKeysAtRest(em(), new Date(), policy)).toEqual({ sealed: ['sk_legacy_clear'], resealed: [], unreadable: [], rotated: false });
  expect(await secureKeysAtRest(em(), new Date(), policy)).toEqual({ sealed: [], resealed: [], unreadable: [], rotated: false });
  const sealedRow = await em().findOneOrFail(SigningKey, 'sk_legacy_clear');
  expect(Object.keys(sealedRow.privateJwk).sort()).toEqual(['alg', 'jwe', 'kid']);
  expect(await signsAndVerifies(sealedRow, policy)).toBe(true);
});

it('moves keys sealed with an earlier secret to the configured one; a signing key no secret opens is replaced', async () => {
  const generated: KeyPolicy = { ...policy, secret: 'the generated secret of the data directory' };
  const configured: KeyPolicy = { ...policy, secret: 'EINV_OAUTH_KEY_SECRET, set later' };
  const old = await signingKey(em(), new Date(), generated);
  const moved = await secureKeysAtRest(em(), new Date(), configured, [generated.secret]);
  expect(moved).toEqual({ sealed: [], resealed: [old.kid], unreadable: [], rotated: false });
  await rotate(em(), new Date(), configured); // a fresh kid: nothing served from the import cache
  expect(await signsAndVerifies(await signingKey(em(), new Date(), configured), configured)).toBe(true);
  // Now a secret that opens nothing: the active key is replaced, the unreadable ones keep verifying until they retire.
  const lost: KeyPolicy = { ...policy, secret: 'a secret that opens none of them' };
  const report = await secureKeysAtRest(em(), new Date(), lost);
  expect(report.rotated).toBe(true);
  expect(report.unreadable).toHaveLength(2);
  const fresh = await signingKey(em(), new Date(), lost);
  expect(report.unreadable).not.toContain(fresh.kid);
  expect(await signsAndVerifies(fresh, lost)).toBe(true);
  expect((await publishedKeys(em(), new Date())).map((k) => k.kid)).toEqual(expect.arrayContaining([...report.unreadable, fresh.kid]));
});

it('scripts/rotate-signing-key.ts rotates the database\'s key for ops', async () => {
  const first = await signingKey(em(), new Date(), policy);
  const { stdout } = await promisify(execFile)(process.execPath, ['scripts/rotate-signing-key.ts'], { env: { ...process.env, NODE_OPTIONS: '', DATABASE_URL: database.url(), EINV_OAUTH_KEY_SECRET: policy.secret }, timeout: 20_000 });
  const active = await signingKey(em(), new Date(), policy);
  expect(active.kid).not.toBe(first.kid);
  expect(stdout).toContain(`signing with ${active.kid}`);
  expect(stdout).toContain(`${first.kid} stays published until`);
});
