/**
 * `node scripts/artefacts-migrate.ts [--batch 100]`: moves existing artefacts into the configured
 * artefact store (PostgreSQL by default, the S3-compatible store when EINV_ARTEFACTS_S3_BUCKET is
 * set): originals still held in documents rows, then bytes in PostgreSQL when an object store is
 * configured. Safe to run again and to stop at any time (services/documents/artefact-migration.ts).
 * Exits 1 when some rows could not be moved (listed; the others are done).
 */
import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import { Command } from 'commander';
import { ormConfig } from '../services/shared/persistence/orm.config.ts';
import { resolveDatabase } from '../services/shared/persistence/database-url.ts';
import { artefactsFromEnv } from '../services/shared/artefacts/settings.ts';
import { retentionPolicyFromEnv } from '../services/shared/artefacts/retention.ts';
import { migrateArtefacts } from '../services/documents/artefact-migration.ts';

const options = new Command().option('--batch <n>', 'rows per page', (v) => Number.parseInt(v, 10), 100).parse().opts<{ batch: number }>();
const database = await resolveDatabase();
const orm = await MikroORM.init(ormConfig(database.url));
try {
  const em = orm.em as EntityManager;
  const artefacts = artefactsFromEnv(em);
  const report = await migrateArtefacts(em, artefacts, retentionPolicyFromEnv(), {
    batch: options.batch,
    onProgress: (r) => console.log(`originals moved ${r.originals.moved} (failed ${r.originals.failed.length}), receipts of ${r.receipts.moved} document(s) (failed ${r.receipts.failed.length}), relocated ${r.relocated.moved} (failed ${r.relocated.failed.length})`),
  });
  for (const f of [...report.originals.failed, ...report.receipts.failed]) console.error(`document ${f.documentId}: ${f.error}`);
  for (const f of report.relocated.failed) console.error(`artefact ${f.namespace} ${f.sha256}: ${f.error}`);
  console.log(`done: ${report.originals.moved} original(s) and the receipts of ${report.receipts.moved} document(s) moved, ${report.relocated.moved} artefact(s) relocated to ${artefacts.primary.location}`);
  process.exitCode = report.originals.failed.length + report.receipts.failed.length + report.relocated.failed.length ? 1 : 0;
} finally {
  await orm.close(true);
  await database.stop();
}
