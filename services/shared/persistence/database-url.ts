import { join } from 'node:path';
import pg from 'pg';
import { loadConfig } from '../config.ts';
import { startEmbeddedPostgres, withDatabase } from './embedded-postgres.ts';

export interface ResolvedDatabase {
  url: string;
  stop(): Promise<void>;
}

const EMBEDDED_DATABASE = 'einvoicing';

/**
 * DATABASE_URL when configured; otherwise the embedded default: a real PostgreSQL from the npm
 * binaries with its files under `.data/postgres`, so data survives restarts.
 */
export async function resolveDatabase(): Promise<ResolvedDatabase> {
  const config = loadConfig();
  if (config.databaseUrl) return { url: config.databaseUrl, stop: async () => {} };
  const server = await startEmbeddedPostgres({ dataDir: join(config.dataDir, 'postgres'), port: config.embeddedPostgresPort });
  try {
    // Created by the maintenance superuser, owned by the application role the app connects as.
    await createDatabaseIfMissing(server.adminUrl, EMBEDDED_DATABASE, { owner: server.appRole });
  } catch (err) {
    await server.stop().catch(() => {});
    throw err;
  }
  return { url: withDatabase(server.serverUrl, EMBEDDED_DATABASE), stop: server.stop };
}

export async function createDatabaseIfMissing(serverUrl: string, database: string, options: { template?: string; owner?: string } = {}): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (found.rowCount === 0) {
      const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;
      await client.query(`create database ${ident(database)}${options.template ? ` template ${ident(options.template)}` : ''}${options.owner ? ` owner ${ident(options.owner)}` : ''}`);
    }
  } finally {
    await client.end();
  }
}
