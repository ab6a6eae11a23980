/**
 * Attack replay (issue 11, §3): token forgery from the database. The built-in issuer's private key
 * is ciphertext at rest even with no EINV_OAUTH_KEY_SECRET (a secret is generated into the data
 * directory, mode 0600); and an attacker who gets both the database and that file — and so the key —
 * still cannot mint a user token with `_permissions` (the built-in issuer issues machine tokens
 * only), nor a machine token /oauth/token never issued, nor use one for an organization its
 * technical account is not (or no longer) a member of.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT, compactDecrypt, decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';
import { integration, machineToken, sql } from './support.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
delete process.env.EINV_OAUTH_KEY_SECRET;
delete process.env.EINV_JWT_JWKS_URL;
delete process.env.EINV_JWT_ISSUER;
const dataDir = mkdtempSync(join(tmpdir(), 'einv-security-keys-'));
process.env.EINV_DATA_DIR = dataDir;

let t: TestApp;
beforeAll(async () => { t = await startTestApp(); });
afterAll(async () => {
  await t.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** What an attacker holding the database and the data directory does: decrypt the signing key. */
async function stealSigningKey(): Promise<{ kid: string; key: CryptoKey | Uint8Array }> {
  const [row] = await sql<{ kid: string; private_jwk: { jwe?: string } & JWK }>(t, 'select kid, private_jwk from signing_keys where retire_at is null order by created_at desc limit 1');
  // Stored in clear (before the fix) it is there for the taking; sealed, the data directory's secret opens it.
  const jwk = row!.private_jwk.jwe
    ? JSON.parse(new TextDecoder().decode((await compactDecrypt(row!.private_jwk.jwe, createHash('sha256').update(readFileSync(join(dataDir, 'oauth-key-secret'), 'utf8').trim(), 'utf8').digest())).plaintext)) as JWK
    : row!.private_jwk;
  return { kid: row!.kid, key: await importJWK(jwk, 'ES256') };
}

async function forge(claims: Record<string, unknown>, template: string): Promise<string> {
  const { iss, aud } = decodeJwt(template);
  const { kid, key } = await stealSigningKey();
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid, typ: 'JWT' }).setIssuer(iss!).setAudience(aud!)
    .setIssuedAt(now).setExpirationTime(now + 3600).setJti(randomUUID()).sign(key);
}

describe('the built-in issuer\'s private keys at rest', () => {
  it('are ciphertext in the database without EINV_OAUTH_KEY_SECRET; the generated secret is in the data directory, mode 0600', async () => {
    const a = await bootstrap(t.baseUrl);
    await machineToken(t, await integration(t, a.apiKey));
    const rows = await sql<{ private_jwk: Record<string, unknown> }>(t, 'select private_jwk from signing_keys');
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(Object.keys(row.private_jwk).sort()).toEqual(['alg', 'jwe', 'kid']);
      expect(row.private_jwk.jwe).toMatch(/^[\w-]+\.\.[\w-]+\.[\w-]+\.[\w-]+$/);
    }
    expect(statSync(join(dataDir, 'oauth-key-secret')).mode & 0o777).toBe(0o600);
  });
});

describe('rows an older version stored in clear', () => {
  it('are encrypted when the identity service starts, and keep signing', async () => {
    const pair = await generateKeyPair('ES256', { extractable: true });
    const kid = `sig_legacy_${randomUUID().slice(0, 8)}`;
    await sql(t, 'update signing_keys set retire_at = now() + interval \'1 day\' where retire_at is null');
    await sql(t, 'insert into signing_keys (kid, alg, public_jwk, private_jwk, created_at, retire_at) values ($1, \'ES256\', $2, $3, now(), null)', [
      kid, { ...(await exportJWK(pair.publicKey)), kid, alg: 'ES256', use: 'sig' }, { ...(await exportJWK(pair.privateKey)), kid, alg: 'ES256', use: 'sig' },
    ]);
    // Another replica (a restart) on the same database.
    const replica = await startTestApp({ databaseUrl: t.databaseUrl });
    try {
      const [row] = await sql<{ private_jwk: Record<string, unknown> }>(t, 'select private_jwk from signing_keys where kid = $1', [kid]);
      expect(Object.keys(row!.private_jwk).sort()).toEqual(['alg', 'jwe', 'kid']);
      const org = await bootstrap(replica.baseUrl);
      const bearer = await machineToken(replica, await integration(replica, org.apiKey));
      expect(decodeProtectedHeader(bearer).kid).toBe(kid);
      expect((await api(replica.baseUrl, 'GET', '/v1/me', { key: bearer, headers: { 'x-service-organization-id': org.organizationId } })).status).toBe(200);
    } finally {
      await replica.stop({ keepDatabase: true });
    }
  });
});

describe('tokens forged with the stolen key', () => {
  it('a user token with `_permissions` for another organization is refused (401), not served that organization\'s webhooks', async () => {
    const attacker = await bootstrap(t.baseUrl);
    const victim = await bootstrap(t.baseUrl);
    const template = await machineToken(t, await integration(t, attacker.apiKey));
    const forged = await forge({ _permissions: { [victim.organizationId]: ['*'] }, email: 'mallory@example.com', sub: 'auth0|mallory' }, template);
    const res = await api(t.baseUrl, 'GET', '/v1/webhooks', { key: forged, headers: { 'x-service-organization-id': victim.organizationId } });
    expectEnvelope(res, 401, 'INVALID_TOKEN');
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/me', { key: forged }), 401, 'INVALID_TOKEN');
  });

  it('a machine token naming another organization\'s technical account is refused: /oauth/token never issued it', async () => {
    const attacker = await bootstrap(t.baseUrl);
    const victim = await bootstrap(t.baseUrl);
    const template = await machineToken(t, await integration(t, attacker.apiKey));
    const victimAccount = (await integration(t, victim.apiKey)).technicalAccountId;
    const forged = await forge({ _permissions: {}, gty: 'client-credentials', sub: victimAccount }, template);
    const res = await api(t.baseUrl, 'GET', '/v1/webhooks', { key: forged, headers: { 'x-service-organization-id': victim.organizationId } });
    expectEnvelope(res, 401, 'INVALID_TOKEN');
    // The attacker's own, genuine token does not reach the victim either (membership).
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/webhooks', { key: template, headers: { 'x-service-organization-id': victim.organizationId } }), 403, 'ORGANIZATION_FORBIDDEN');
    expect((await api(t.baseUrl, 'GET', '/v1/webhooks', { key: template, headers: { 'x-service-organization-id': attacker.organizationId } })).status).toBe(200);
  });

  it('a genuine machine token stops working on the next request once its membership is removed', async () => {
    const org = await bootstrap(t.baseUrl);
    const i = await integration(t, org.apiKey, { name: 'to-remove', role: 'member' });
    const bearer = await machineToken(t, i);
    const headers = { 'x-service-organization-id': org.organizationId };
    expect((await api(t.baseUrl, 'GET', '/v1/webhooks', { key: bearer, headers })).status).toBe(200);
    const removed = await api(t.baseUrl, 'DELETE', `/v1/technical-accounts/${i.technicalAccountId}`, { key: org.apiKey });
    expect(removed.status).toBe(200);
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/webhooks', { key: bearer, headers }), 403, 'ORGANIZATION_FORBIDDEN');
  });

  it('a machine token of a revoked integration is refused even if its membership were restored behind our back', async () => {
    const org = await bootstrap(t.baseUrl);
    const i = await integration(t, org.apiKey, { name: 'to-revoke', role: 'member' });
    const bearer = await machineToken(t, i);
    const headers = { 'x-service-organization-id': org.organizationId };
    expect((await api(t.baseUrl, 'DELETE', `/v1/integrations/${i.id}`, { key: org.apiKey })).status).toBe(200);
    await sql(t, `insert into memberships (id, technical_account_id, organization_id, role, created_at) values ($1, $2, $3, 'member', now())`, [`mem_${randomUUID().replace(/-/g, '').slice(0, 26)}`, i.technicalAccountId, org.organizationId]);
    await sql(t, 'update technical_accounts set disabled_at = null where id = $1', [i.technicalAccountId]);
    expectEnvelope(await api(t.baseUrl, 'GET', '/v1/webhooks', { key: bearer, headers }), 401, 'INVALID_TOKEN');
  });
});
