import type { ServiceBroker } from 'moleculer';
import type { MikroORM } from '@mikro-orm/postgresql';

/**
 * The ORM a broker's services use. One MikroORM per process, attached by whoever builds the broker
 * (services/app.ts), so tests can run several brokers against separate databases in one process.
 */
const databases = new WeakMap<ServiceBroker, MikroORM>();

export function attachDatabase(broker: ServiceBroker, orm: MikroORM): void {
  databases.set(broker, orm);
}

export function databaseOf(broker: ServiceBroker): MikroORM {
  const orm = databases.get(broker);
  if (!orm) throw new Error('No database is attached to this broker: run database-backed services through services/app.ts');
  return orm;
}

/** The attached ORM, or undefined on a node that runs no database-backed service (e.g. a lone gateway). */
export function maybeDatabaseOf(broker: ServiceBroker): MikroORM | undefined {
  return databases.get(broker);
}
