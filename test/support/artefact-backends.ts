/**
 * The two artefact backends the store's specs run against: a migrated PostgreSQL database of the
 * test's own (bytes in rows, the embedded default) and an s3rver on 127.0.0.1 with the S3 backend
 * talking to it.
 */
import { MikroORM } from '@mikro-orm/postgresql';
import { ormConfig } from '../../services/shared/persistence/orm.config.ts';
import { S3BlobBackend } from '../../services/shared/artefacts/s3-blob-backend.ts';
import { s3SettingsFromEnv } from '../../services/shared/artefacts/settings.ts';
import { createTestDatabase } from './database.ts';
import { startS3Server, type TestS3 } from './s3-server.ts';

export interface ArtefactBackends {
  db: Awaited<ReturnType<typeof createTestDatabase>>;
  orm: MikroORM;
  s3: TestS3;
  s3Backend: S3BlobBackend;
  /** Closes everything, and drops the database. */
  stop(): Promise<void>;
}

export async function startArtefactBackends(): Promise<ArtefactBackends> {
  const db = await createTestDatabase();
  const orm = await MikroORM.init(ormConfig(db.url));
  const s3 = await startS3Server();
  const s3Backend = new S3BlobBackend(s3SettingsFromEnv(s3.env)!);
  return {
    db, orm, s3, s3Backend,
    async stop() {
      s3Backend.destroy();
      await s3.stop();
      await orm.close(true);
      await db.drop();
    },
  };
}
