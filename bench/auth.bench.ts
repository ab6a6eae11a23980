/**
 * Cost of each credential kind through the real gateway (one process, embedded PostgreSQL):
 * `GET /v1/me` with an API key, an identity-provider JWT (RS256, JWKS served by a local HTTP server
 * on 127.0.0.1 and cached by the gateway), a built-in client-credentials token (ES256, JWKS over the
 * broker, membership and issuance record checked in the database), and `POST /oauth/token`
 * issuance. Bounded.
 *
 *   node bench/auth.bench.ts [requests=2000] [concurrency=16]
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { startBenchApp, runLoad, writeResults } from './support/bench-app.ts';

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

const bench = await startBenchApp({
  env: {
    // Measure authentication, not throttling (of requests, or of failed authentications).
    EINV_RATE_LIMITS: 'free=100000000',
    EINV_AUTH_FAILURE_LIMIT: '100000000',
    EINV_JWT_JWKS_URL: `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/jwks.json`,
    EINV_JWT_ISSUER: ISSUER,
    EINV_JWT_AUDIENCE: AUDIENCE,
  },
});
const { base } = bench;
const run = (name: string, count: number, once: () => Promise<Response>, status: number) => runLoad(name, count, CONCURRENCY, once, status);

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
  writeResults('auth', { jwksFetches, rows });
} finally {
  await bench.stop();
  jwksServer.close();
}
