/**
 * A MikroORM on a fresh, fully migrated test database, for the tests that work on entities
 * directly or check that the migrations and the entities agree. Call it in a file or describe
 * block: it opens the database before the tests and drops it after.
 */
import { MikroORM } from '@mikro-orm/postgresql';
import { ormConfig } from '../../services/shared/persistence/orm.config.ts';
import { createTestDatabase } from './database.ts';

export interface MigratedOrm {
  orm(): MikroORM;
  /** The database's URL, for a child process that should use it too. */
  url(): string;
}

export function useMigratedOrm(): MigratedOrm {
  let orm: MikroORM | undefined;
  let db: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  beforeAll(async () => {
    db = await createTestDatabase();
    orm = await MikroORM.init(ormConfig(db.url));
  });
  afterAll(async () => {
    await orm?.close(true);
    await db?.drop();
  });
  const opened = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('useMigratedOrm: the database is opened in beforeAll');
    return value;
  };
  return { orm: () => opened(orm), url: () => opened(db).url };
}

/**
 * What the ORM would still change on the tables whose statements match `tables`, sorted: empty, or
 * only the foreign keys the entities do not model, when migrations and entities agree.
 */
export async function pendingSchemaChanges(orm: MikroORM, tables: RegExp): Promise<string[]> {
  return (await orm.schema.getUpdateSchemaSQL({ wrap: false })).split('\n').filter((line) => tables.test(line)).sort();
}
