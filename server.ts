/**
 * Process entry point: `npm start`. With nothing configured it runs every service in one process
 * on an embedded PostgreSQL (data under .data/), migrating it first. With DATABASE_URL / NATS_URL /
 * SERVICES it runs one role of the scaled deployment (migrations then come from `npm run migrate`).
 */
import { loadConfig, type AppConfig } from './services/shared/config.ts';
import type { ResolvedDatabase } from './services/shared/persistence/database-url.ts';
import type { App } from './services/app.ts';
import { assertPortFree, explainStartupFailure } from './services/shared/startup-error.ts';

let config: AppConfig;
try {
  config = loadConfig();
} catch (err) {
  // A variable with a wrong value: what is wrong and how to fix it (StartupError), not a stack trace.
  console.error(`startup failed: ${explainStartupFailure(err)}`);
  process.exit(1);
}
// Imported once the configuration is known to be valid: several services read it when loaded.
const { resolveDatabase } = await import('./services/shared/persistence/database-url.ts');
const { releaseSignals } = await import('./services/shared/persistence/embedded-postgres.ts');
const { selectServices } = await import('./services/index.ts');
const { createApp } = await import('./services/app.ts');

const needsDatabase = selectServices(config.services).some(([, e]) => e.database);
let database: ResolvedDatabase | undefined;
let app: App | undefined;

async function shutdown(signal: string): Promise<void> {
  console.log(`${signal}: stopping (in-flight requests finish first)`);
  try {
    await app?.stop();
    await database?.stop();
    process.exit(0);
  } catch (err) {
    console.error('shutdown failed', err);
    process.exit(1);
  }
}

try {
  // Checked before the database starts: moleculer-web ends the process itself on a taken port,
  // which would leave an embedded PostgreSQL running behind it.
  if (!config.services || config.services.includes('gateway')) {
    await assertPortFree(config.port, config.host, 'the HTTP gateway', 'stop that process, or set PORT (and HOST) to a free address');
  }
  database = needsDatabase ? await resolveDatabase() : undefined;
  app = await createApp({
    ...(config.services ? { services: config.services } : {}),
    ...(database ? { databaseUrl: database.url } : {}),
    migrate: !config.databaseUrl || process.env.EINV_MIGRATE_ON_START === 'true',
    broker: { skipProcessEventRegistration: true },
  });
  releaseSignals();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void shutdown(signal));
  if (!config.services || config.services.includes('gateway')) console.log(`listening on http://${config.host}:${config.port} (OpenAPI at /v1/openapi.json)`);
} catch (err) {
  console.error(`startup failed: ${explainStartupFailure(err, { ...(config.databaseUrl ? { databaseUrl: config.databaseUrl } : {}), port: config.port })}`);
  await app?.stop().catch(() => {});
  await database?.stop().catch(() => {});
  process.exit(1);
}
