/**
 * Cost of each credential kind through the real gateway (one process, embedded PostgreSQL):
 * `GET /v1/me` with an API key, an identity-provider JWT (RS256, JWKS served by a local HTTP server
 * on 127.0.0.1 and cached by the gateway), a built-in client-credentials token (ES256, JWKS over the
 * broker, membership checked in the database), and `POST /oauth/token` issuance. Bounded.
 *
 *   node bench/auth.bench.ts [requests=2000] [concurrency=16]
 */
import { mkdirSync, mkdtempSync, chmodSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

const REQUESTS = Number(process.argv[2] ?? 2000);
const CONCURRENCY = Number(process.argv[3] ?? 16);
const ISSUER = 'https://idp.bench.local/';
const AUDIENCE = 'einvoicing-bench';

// The identity provider: a key generated here, its JWKS on a loopback port.
const idp = await generateKeyPair('RS256');
const jwksBody = JSON.stringify({ keys: [{ ...(await exportJWK(idp.publicKey)), kid: 'bench-1', alg: 'RS256', use: 'sig' }] });
let jwksFetches = 0;
const jwksServer = createServer((_req, res) => { jwksFetches++; res.writeHead(200, { 'content-type': 'application/json' }).end(jwksBody); });
await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));

process.env.PORT = '0';
process.env.HOST = '127.0.0.1';
process.env.MOL_LOG_LEVEL = 'warn';
process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000000';
// Measure authentication, not throttling.
process.env.EINV_RATE_LIMITS = 'free=100000000';
process.env.EINV_JWT_JWKS_URL = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/jwks.json`;
process.env.EINV_JWT_ISSUER = ISSUER;
process.env.EINV_JWT_AUDIENCE = AUDIENCE;

const dataDir = mkdtempSync(join(tmpdir(), 'einv-bench-'));
chmodSync(dataDir, 0o755);
process.env.EINV_DATA_DIR = dataDir;
process.env.EINV_EMBEDDED_PG_PORT = String(40000 + Math.floor(Math.random() * 20000));

const { resolveDatabase } = await import('../services/shared/persistence/database-url.ts');
const { createApp } = await import('../services/app.ts');
const database = await resolveDatabase();
const app = await createApp({ databaseUrl: database.url, migrate: true });
const port = ((app.broker.getLocalService('gateway') as unknown as { server: Server }).server.address() as AddressInfo).port;
const base = `http://127.0.0.1:${port}`;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function run(name: string, count: number, once: () => Promise<Response>, expectStatus: number) {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < count) {
      next++;
      const t0 = performance.now();
      const res = await once();
      await res.arrayBuffer();
      if (res.status !== expectStatus) throw new Error(`${name}: status ${res.status}`);
      latencies.push(performance.now() - t0);
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const row = { name, requests: count, concurrency: CONCURRENCY, perSecond: Math.round(count / seconds), p50Ms: +percentile(latencies, 50).toFixed(2), p99Ms: +percentile(latencies, 99).toFixed(2) };
  console.log(`${name.padEnd(40)} ${String(row.perSecond).padStart(6)} req/s   p50 ${row.p50Ms.toFixed(2)} ms   p99 ${row.p99Ms.toFixed(2)} ms   (${count} requests, ${CONCURRENCY} concurrent)`);
  return row;
}

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

try {
  const boot = await (await post('/v1/sandbox/bootstrap', {})).json() as { apiKey: string; organizationId: string };
  const keyAuth = { authorization: `Bearer ${boot.apiKey}` };
  const userJwt = await new SignJWT({ _permissions: { [boot.organizationId]: ['admin'] }, email: 'bench@example.com' })
    .setProtectedHeader({ alg: 'RS256', kid: 'bench-1' }).setIssuer(ISSUER).setAudience(AUDIENCE).setSubject('bench|user').setIssuedAt().setExpirationTime('2h')
    .sign(idp.privateKey);
  const integration = await (await post('/v1/integrations', { name: 'bench' }, keyAuth)).json() as { clientId: string; clientSecret: string };
  const tokenBody = { grant_type: 'client_credentials', client_id: integration.clientId, client_secret: integration.clientSecret, audience: AUDIENCE };
  const machine = (await (await post('/oauth/token', tokenBody)).json() as { access_token: string }).access_token;
  const userAuth = { authorization: `Bearer ${userJwt}` };
  const machineAuth = { authorization: `Bearer ${machine}`, 'x-service-organization-id': boot.organizationId };

  await run('warm-up', 300, () => fetch(`${base}/v1/me`, { headers: keyAuth }), 200);
  await run('warm-up (jwt)', 300, () => fetch(`${base}/v1/me`, { headers: userAuth }), 200);
  await run('warm-up (machine)', 300, () => fetch(`${base}/v1/me`, { headers: machineAuth }), 200);
  const rows = [
    await run('GET /v1/me  API key', REQUESTS, () => fetch(`${base}/v1/me`, { headers: keyAuth }), 200),
    await run('GET /v1/me  IdP JWT (RS256)', REQUESTS, () => fetch(`${base}/v1/me`, { headers: userAuth }), 200),
    await run('GET /v1/me  machine token (ES256)', REQUESTS, () => fetch(`${base}/v1/me`, { headers: machineAuth }), 200),
    await run('GET /v1/me  bad-signature JWT (401)', REQUESTS, () => fetch(`${base}/v1/me`, { headers: { authorization: `Bearer ${userJwt.slice(0, -6)}AAAAAA` } }), 401),
    await run('POST /oauth/token', Math.min(REQUESTS, 1000), () => post('/oauth/token', tokenBody), 200),
  ];
  console.log(`identity-provider JWKS fetched ${jwksFetches} time(s) for ${REQUESTS + 300} JWT requests`);
  mkdirSync('bench/results', { recursive: true });
  writeFileSync('bench/results/auth.json', JSON.stringify({ date: new Date().toISOString(), node: process.version, jwksFetches, rows }, null, 2));
} finally {
  await app.stop();
  await database.stop();
  jwksServer.close();
  rmSync(dataDir, { recursive: true, force: true });
}
