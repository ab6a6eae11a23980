/**
 * The real entry point as ops and newcomers run it: `node server.ts` in child processes.
 * 1. Embedded default: its own PostgreSQL under a data dir, bootstrap → /v1/me, graceful SIGTERM,
 *    restart, and the key still works (data survived).
 * 2. Scaled: one process per role chosen with SERVICES, joined by a real nats-server.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../support/servers.ts';
import { api } from '../support/app.ts';
import { createTestDatabase } from '../support/database.ts';
import { startServer, stop, waitFor } from '../support/server-process.ts';

const TIMEOUT_MS = 120_000;

it('embedded default: starts its own PostgreSQL, serves bootstrap → /v1/me, stops gracefully and keeps data across a restart', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'einv-e2e-'));
  chmodSync(dataDir, 0o755); // as root, PostgreSQL runs as its own OS user and must reach the directory
  const env = { PORT: String(await freePort()), EINV_DATA_DIR: dataDir, EINV_EMBEDDED_PG_PORT: String(await freePort()), DATABASE_URL: '', NATS_URL: '', SERVICES: '' };
  const base = `http://127.0.0.1:${env.PORT}`;
  try {
    let server = startServer(env);
    await waitFor(`${base}/health/liveness`, server);
    const boot = await api(base, 'POST', '/v1/sandbox/bootstrap', { body: { label: 'try' } });
    expect(boot.status).toBe(201);
    expect(boot.body.apiKey).toMatch(/^svc_test_/);
    expect((await api(base, 'GET', '/v1/me', { key: boot.body.apiKey })).body.organizationId).toBe(boot.body.organizationId);
    expect(await stop(server)).toBe(0);

    server = startServer(env);
    await waitFor(`${base}/health/liveness`, server);
    const me = await api(base, 'GET', '/v1/me', { key: boot.body.apiKey });
    expect(me.status).toBe(200);
    expect(me.body.organizationId).toBe(boot.body.organizationId);
    expect((await api(base, 'GET', '/health/readiness')).body.database.status).toBe('ok');
    expect(await stop(server)).toBe(0);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}, TIMEOUT_MS);

it('scaled: SERVICES picks each process\'s role; the gateway process reaches the domain process over NATS', async () => {
  const db = await createTestDatabase();
  const port = String(await freePort());
  const common = { NATS_URL: process.env.EINV_TEST_NATS_URL!, MOL_NAMESPACE: `e2e${port}` };
  const core = startServer({ ...common, SERVICES: 'tenancy,sandbox,health', DATABASE_URL: db.url, MOL_NODE_ID: 'core', PORT: '0' });
  const edge = startServer({ ...common, SERVICES: 'gateway', DATABASE_URL: '', MOL_NODE_ID: 'edge', PORT: port });
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitFor(`${base}/health/liveness`, edge);
    const boot = await api(base, 'POST', '/v1/sandbox/bootstrap', { body: {} });
    expect(boot.status).toBe(201);
    expect((await api(base, 'GET', '/v1/me', { key: boot.body.apiKey })).status).toBe(200);
    const bad = startServer({ SERVICES: 'gateway,nope', PORT: '0' });
    expect(await bad.exited).toBe(1);
    expect(bad.output()).toMatch(/unknown services: nope/);
  } finally {
    const codes = await Promise.all([stop(edge), stop(core)]);
    await db.drop();
    expect(codes).toEqual([0, 0]);
  }
}, TIMEOUT_MS);
