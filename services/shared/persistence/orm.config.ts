import { defineConfig, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { entities } from './entities.ts';
import { migrationsList } from './migrations/index.ts';

/** MikroORM configuration for one PostgreSQL database. Nothing is discovered from the file system. */
export function ormConfig(clientUrl: string, overrides: Partial<Options> = {}): Options {
  return defineConfig({
    clientUrl,
    entities,
    extensions: [Migrator],
    migrations: {
      migrationsList,
      path: 'services/shared/persistence/migrations',
      tableName: 'schema_migrations',
      snapshotName: '.snapshot',
      silent: true,
      transactional: true,
      allOrNothing: true,
      emit: 'ts',
      fileName: (timestamp, name) => `migration-${timestamp}${name ? `-${name}` : ''}`,
    },
    pool: { min: 0, max: Number(process.env.EINV_DB_POOL_MAX ?? 10) },
    // Guard rail: every request must work on its own fork (see mixins/orm.mixin.ts).
    allowGlobalContext: false,
    debug: process.env.EINV_DB_DEBUG === 'true',
    ...overrides,
  });
}
