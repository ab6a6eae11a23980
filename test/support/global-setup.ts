/**
 * Starts the suite's real PostgreSQL (unless TEST_DATABASE_URL points at one), migrates a template
 * database once, and starts redis-server and nats-server. Test files clone the template
 * (test/support/database.ts), so each file gets its own migrated database in milliseconds.
 * Addresses travel to the workers through the environment.
 */
import { join, resolve } from 'node:path';
import { rmSync } from 'node:fs';
import { MikroORM } from '@mikro-orm/postgresql';
import { credentialsFileOf, startEmbeddedPostgres, withDatabase } from '../../services/shared/persistence/embedded-postgres.ts';
import { createDatabaseIfMissing } from '../../services/shared/persistence/database-url.ts';
import { ormConfig } from '../../services/shared/persistence/orm.config.ts';
import { freePort, startNats, startRedis } from './servers.ts';
import { CORPUS_MISSING, corpusAvailable } from './corpus.ts';

const TEMPLATE = 'einv_test_template';

export default async function globalSetup(): Promise<void> {
  // Said once here; each suite that reads the corpus then fails with the same message.
  if (!corpusAvailable()) console.warn(`\n${CORPUS_MISSING}\n`);
  const stops: Array<() => Promise<void>> = [];
  // The harness creates and drops databases as the cluster's superuser (serverUrl); the apps under
  // test connect as the application role that owns them (appUrl), as the embedded default does.
  let serverUrl = process.env.TEST_DATABASE_URL;
  let appUrl = serverUrl;
  let appRole: string | undefined;
  if (!serverUrl) {
    const dataDir = join('.data', `test-postgres-${process.pid}`);
    const removeFiles = () => { rmSync(dataDir, { recursive: true, force: true }); rmSync(credentialsFileOf(resolve(dataDir)), { force: true }); };
    removeFiles();
    const pg = await startEmbeddedPostgres({ dataDir, port: await freePort() });
    serverUrl = pg.adminUrl;
    appUrl = pg.serverUrl;
    appRole = pg.appRole;
    stops.push(async () => { await pg.stop(); removeFiles(); });
  }
  await createDatabaseIfMissing(serverUrl, TEMPLATE, appRole ? { owner: appRole } : {});
  const orm = await MikroORM.init(ormConfig(withDatabase(appUrl!, TEMPLATE)));
  await orm.migrator.up();
  await orm.close(true);

  const [redis, nats] = await Promise.all([startRedis(), startNats()]);
  stops.push(redis.stop, nats.stop);

  // Every test app listens on a free port of the loopback interface, quietly.
  process.env.PORT = '0';
  process.env.HOST = '127.0.0.1';
  process.env.MOL_LOG_LEVEL ??= 'warn';
  process.env.EINV_TEST_PG_SERVER_URL = serverUrl;
  process.env.EINV_TEST_PG_APP_URL = appUrl;
  if (appRole) process.env.EINV_TEST_PG_APP_ROLE = appRole;
  process.env.EINV_TEST_TEMPLATE_DB = TEMPLATE;
  process.env.EINV_TEST_REDIS_URL = redis.url;
  process.env.EINV_TEST_NATS_URL = nats.url;
  (globalThis as { __einvStops?: typeof stops }).__einvStops = stops;
}
