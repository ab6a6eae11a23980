/**
 * No API mints a live key in tests: this turns a sandbox key live behind the service's back (its
 * row in api_keys). Gateways keep a key's principal for EINV_PRINCIPAL_CACHE_TTL_MS, so it resolves
 * once that has passed.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import { loadConfig } from '../../services/shared/config.ts';

export async function makeLive(databaseUrl: string, apiKey: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('update api_keys set livemode = true where key_hash = $1', [createHash('sha256').update(apiKey).digest('hex')]);
  } finally {
    await client.end();
  }
  await new Promise((resolve) => setTimeout(resolve, loadConfig().credentials.principalCacheTtlMs + 50));
}
