import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { withDatabase } from '../../services/shared/persistence/embedded-postgres.ts';
import { createDatabaseIfMissing } from '../../services/shared/persistence/database-url.ts';

function serverUrl(): string {
  const url = process.env.EINV_TEST_PG_SERVER_URL;
  if (!url) throw new Error('EINV_TEST_PG_SERVER_URL is unset: run the tests through jest (test/support/global-setup.ts)');
  return url;
}

/** A fresh, fully migrated database of its own for one test file. */
export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `einv_t_${randomBytes(6).toString('hex')}`;
  const owner = process.env.EINV_TEST_PG_APP_ROLE;
  await createDatabaseIfMissing(serverUrl(), name, { template: process.env.EINV_TEST_TEMPLATE_DB, ...(owner ? { owner } : {}) });
  return {
    // The app under test connects as the application role (not a superuser), like the embedded default.
    url: withDatabase(process.env.EINV_TEST_PG_APP_URL ?? serverUrl(), name),
    drop: async () => {
      const client = new pg.Client({ connectionString: serverUrl() });
      await client.connect();
      try { await client.query(`drop database if exists "${name}" with (force)`); } finally { await client.end(); }
    },
  };
}
