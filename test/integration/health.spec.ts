/**
 * Health probes on a real broker: readiness follows the broker's circuit breaker around an adapter
 * action, and the contract monitor checks an upstream served by a real HTTP server on 127.0.0.1.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ServiceSchema } from 'moleculer';
import pg from 'pg';
import { startTestApp, api, type TestApp } from '../support/app.ts';
import { brokerOptions } from '../../moleculer.config.ts';

const HALF_OPEN_MS = 400;

/** A partner's upstream API: answers 200 or 500 as the test says. */
let upstreamHealthy = true;
let upstream: Server;
let upstreamUrl: string;

/** A stand-in adapter service talking to that real upstream over HTTP. */
const adapter: ServiceSchema = {
  name: 'adapter.test-partner',
  actions: {
    async send() {
      const res = await fetch(`${upstreamUrl}/documents`, { method: 'POST' });
      if (!res.ok) throw new Error(`upstream answered ${res.status}`);
      return { accepted: true };
    },
    async checkContract() {
      const res = await fetch(`${upstreamUrl}/contract`);
      if (!res.ok) throw new Error(`contract endpoint answered ${res.status}`);
      return { ok: true };
    },
  },
};

let t: TestApp;
beforeAll(async () => {
  upstream = createServer((_req, res) => {
    res.writeHead(upstreamHealthy ? 200 : 500, { 'content-type': 'application/json' });
    res.end('{}');
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  t = await startTestApp({
    extraServices: [adapter],
    // The production breaker (and its client-fault check), with a smaller window to keep the test short.
    broker: { circuitBreaker: { ...brokerOptions().circuitBreaker, minRequestCount: 3, halfOpenTime: HALF_OPEN_MS }, retryPolicy: { enabled: false } },
  });
});
afterAll(async () => {
  await t.stop();
  await new Promise((r) => upstream.close(r));
});

it('liveness answers without an envelope', async () => {
  const res = await api(t.baseUrl, 'GET', '/health/liveness');
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ status: 'ok' });
});

it('readiness turns 503 degraded when an adapter breaker opens, and 200 again once it closes', async () => {
  const ok = await api(t.baseUrl, 'GET', '/health/readiness');
  expect(ok.status).toBe(200);
  expect(ok.body).toMatchObject({ status: 'ok', circuits: { 'adapter.test-partner': { state: 'closed', failures: 0, cooldown_remaining: 0 } }, database: { status: 'ok' } });

  upstreamHealthy = false;
  for (let i = 0; i < 3; i++) await expect(t.app.broker.call('adapter.test-partner.send')).rejects.toThrow(/upstream answered 500/);
  const degraded = await api(t.baseUrl, 'GET', '/health/readiness');
  expect(degraded.status).toBe(503);
  expect(degraded.body.status).toBe('degraded');
  expect(degraded.body.circuits['adapter.test-partner']).toMatchObject({ state: 'open', failures: 3 });
  expect(degraded.body.circuits['adapter.test-partner'].cooldown_remaining).toBeGreaterThan(0);
  // The API itself stays in rotation: a partner outage is not an outage of ours.
  expect((await api(t.baseUrl, 'GET', '/health/liveness')).status).toBe(200);

  upstreamHealthy = true;
  await new Promise((r) => setTimeout(r, HALF_OPEN_MS + 100));
  const halfOpen = await api(t.baseUrl, 'GET', '/health/readiness');
  expect(halfOpen.body.circuits['adapter.test-partner'].state).toBe('half_open');
  await t.app.broker.call('adapter.test-partner.send');
  const back = await api(t.baseUrl, 'GET', '/health/readiness');
  expect(back.status).toBe(200);
  expect(back.body).toMatchObject({ status: 'ok', circuits: { 'adapter.test-partner': { state: 'closed', failures: 0 } } });
});

it('readiness is 503 when the database refuses connections, 200 once it is back', async () => {
  // Take our database away for real: refuse new connections and kill the open ones.
  const dbName = new URL(t.databaseUrl).pathname.slice(1);
  const admin = new pg.Client({ connectionString: process.env.EINV_TEST_PG_SERVER_URL });
  await admin.connect();
  try {
    await admin.query(`alter database "${dbName}" allow_connections false`);
    await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1', [dbName]);
    const res = await api(t.baseUrl, 'GET', '/health/readiness');
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ status: 'degraded', database: { status: 'down' } });
  } finally {
    await admin.query(`alter database "${dbName}" allow_connections true`);
    await admin.end();
  }
  let status = 0;
  for (let i = 0; i < 20 && status !== 200; i++) status = (await api(t.baseUrl, 'GET', '/health/readiness')).status;
  expect(status).toBe(200);
});

it('contracts reports each tracked upstream, 503 when one failed its last check', async () => {
  await t.app.broker.call('health.runContractChecks');
  const ok = await api(t.baseUrl, 'GET', '/health/contracts');
  expect(ok.status).toBe(200);
  expect(ok.body.status).toBe('ok');
  expect(ok.body.services['adapter.test-partner']).toMatchObject({ status: 'ok', error: null });
  expect(typeof ok.body.services['adapter.test-partner'].responseMs).toBe('number');
  expect(Date.parse(ok.body.services['adapter.test-partner'].lastCheck)).not.toBeNaN();

  upstreamHealthy = false;
  await t.app.broker.call('health.runContractChecks');
  const failed = await api(t.baseUrl, 'GET', '/health/contracts');
  expect(failed.status).toBe(503);
  expect(failed.body.status).toBe('degraded');
  expect(failed.body.services['adapter.test-partner']).toMatchObject({ status: 'failed', error: 'contract endpoint answered 500' });
  upstreamHealthy = true;
});
