/** The portability tables, once migrated, are exactly what the entities declare (plus the foreign keys the entities do not model). */
import { pendingSchemaChanges, useMigratedOrm } from '../../../support/migrated-orm.ts';

const { orm } = useMigratedOrm();

it('match the entities once migrated', async () => {
  // Only the foreign keys, which the entities do not model (organization cascade, chain rows to their request).
  expect(await pendingSchemaChanges(orm(), /"portability_(requests|evidence|files|routings)"/)).toEqual([
    'alter table "portability_evidence" drop constraint "portability_evidence_request_ref_foreign";',
    'alter table "portability_files" drop constraint "portability_files_request_ref_foreign";',
    'alter table "portability_requests" drop constraint "portability_requests_organization_id_foreign";',
    'alter table "portability_routings" drop constraint "portability_routings_organization_id_foreign";',
  ]);
});
