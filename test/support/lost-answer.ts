/**
 * Direct SQL on a test app's database, and what a process killed between a committed write and
 * storing its answer leaves behind: the idempotency claim still `processing`, its lease lapsed, no
 * answer kept. The retry tests (REST, AFNOR, MCP) start from that state.
 */
import pg from 'pg';

/** One statement on its own connection (the app's pool is left alone). */
export async function sqlOn(databaseUrl: string, text: string, values: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try { return await client.query(text, values); } finally { await client.end(); }
}

/** Turns the stored answer of Idempotency-Key `key` (the stored key column) into a lapsed claim. */
export function loseTheAnswer(databaseUrl: string, key: string): Promise<pg.QueryResult> {
  return sqlOn(databaseUrl,
    `update idempotency_keys set state = 'processing', locked_until = now() - interval '1 second', response_status = null, response_headers = null, response_body = null where key = $1`, [key]);
}
