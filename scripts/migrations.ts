/**
 * `npm run migrate`            applies pending migrations to DATABASE_URL (or the embedded database).
 * `npm run migrate:create [n]` writes a new migration from the entity diff; add it to migrations/index.ts.
 */
import { MikroORM } from '@mikro-orm/postgresql';
import { ormConfig } from '../services/shared/persistence/orm.config.ts';
import { resolveDatabase } from '../services/shared/persistence/database-url.ts';

const [command = 'up', name] = process.argv.slice(2);
const database = await resolveDatabase();
const orm = await MikroORM.init(ormConfig(database.url));
try {
  if (command === 'create') {
    const result = await orm.migrator.create(undefined, false, false, name);
    console.log(result.fileName ? `created ${result.fileName}` : 'no changes');
  } else if (command === 'up') {
    const applied = await orm.migrator.up();
    console.log(`migrations applied: ${applied.length ? applied.map((m) => m.name).join(', ') : 'none pending'}`);
  } else {
    throw new Error(`unknown command ${command}`);
  }
} finally {
  await orm.close(true);
  await database.stop();
}
