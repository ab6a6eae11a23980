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
      // Only `migrate:create` writes the snapshot (from the entities). Left on, every `up` (tests, npm
      // start) rewrites it from whatever database it migrated, which loses columns of migrations that
      // process did not know yet and corrupts the next generated migration.
      snapshotOnMigrate: false,
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
