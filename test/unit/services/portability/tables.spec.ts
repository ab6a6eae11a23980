/** The portability tables, once migrated, are exactly what the entities declare (plus the foreign keys the entities do not model). */
import { MikroORM } from '@mikro-orm/postgresql';
import { ormConfig } from '../../../../services/shared/persistence/orm.config.ts';
import { createTestDatabase } from '../../../support/database.ts';

let orm: MikroORM;
let db: Awaited<ReturnType<typeof createTestDatabase>>;
beforeAll(async () => {
  db = await createTestDatabase();
  orm = await MikroORM.init(ormConfig(db.url));
});
afterAll(async () => {
  await orm.close(true);
  await db.drop();
});

it('match the entities once migrated', async () => {
  const pending = await orm.schema.getUpdateSchemaSQL({ wrap: false });
  const ours = pending.split("\n").filter((line) => /"portability_(requests|evidence|files|routings)"/.test(line));
  // Only the foreign keys, which the entities do not model (organization cascade, chain rows to their request).
  expect(ours.sort()).toEqual([
    'alter table "portability_evidence" drop constraint "portability_evidence_request_ref_foreign";',
    'alter table "portability_files" drop constraint "portability_files_request_ref_foreign";',
    'alter table "portability_requests" drop constraint "portability_requests_organization_id_foreign";',
    'alter table "portability_routings" drop constraint "portability_routings_organization_id_foreign";',
  ]);
});
