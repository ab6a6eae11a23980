/**
 * Builds a running application: a broker with the selected services and, when any of them needs
 * it, the database attached. Used by server.ts and by the integration tests, so tests boot exactly
 * what production boots.
 */
import { ServiceBroker, type BrokerOptions, type ServiceSchema } from 'moleculer';
import { MikroORM } from '@mikro-orm/postgresql';
import { setLogger as setCronLogger } from 'node-cron';
import { brokerOptions } from '../moleculer.config.ts';
import { ormConfig } from './shared/persistence/orm.config.ts';
import { attachDatabase } from './shared/persistence/database.ts';
import { selectServices } from './index.ts';
import { StartupError } from './shared/startup-error.ts';

export interface AppOptions {
  /** Service names to run; all when undefined. */
  services?: string[];
  databaseUrl?: string;
  /** Apply pending migrations before starting (the embedded default does; scaled mode uses a job). */
  migrate?: boolean;
  broker?: Partial<BrokerOptions>;
  /** Extra service schemas (tests: stand-ins for remote partners' adapters). */
  extraServices?: ServiceSchema[];
}

export interface App {
  broker: ServiceBroker;
  orm: MikroORM | undefined;
  stop(): Promise<void>;
}

export async function createApp(options: AppOptions): Promise<App> {
  const selected = selectServices(options.services);
  const needsDatabase = selected.some(([, entry]) => entry.database);
  let orm: MikroORM | undefined;
  if (needsDatabase) {
    if (!options.databaseUrl) throw new Error('These services need a database: set DATABASE_URL');
    orm = await MikroORM.init(ormConfig(options.databaseUrl));
    if (options.migrate) {
      try {
        await orm.migrator.up();
      } catch (err) {
        await orm.close(true);
        // Each migration runs in its own transaction: a failed one leaves the schema as it was.
        throw new StartupError(`database migration failed: ${(err as Error).message}`, 'the schema was left as before the failed migration; fix the cause, then start again (or run `npm run migrate`)');
      }
    }
  }
  const broker = new ServiceBroker(brokerOptions(options.broker));
  // node-cron logs through the broker's logger. A missed tick of a per-second poller is expected
  // under load (the next tick catches up), so it is debug noise, not a warning.
  const cronLog = broker.getLogger('cron');
  setCronLogger({ info: (m) => cronLog.info(m), warn: (m) => cronLog.debug(m), error: (m, e) => cronLog.error(m, e), debug: (m) => cronLog.debug(m) });
  if (orm) attachDatabase(broker, orm);
  for (const [, entry] of selected) broker.createService(entry.schema);
  for (const schema of options.extraServices ?? []) broker.createService(schema);
  await broker.start();
  return {
    broker,
    orm,
    async stop() {
      await broker.stop();
      await orm?.close(true);
    },
  };
}
