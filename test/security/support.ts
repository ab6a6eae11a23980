/** Helpers the credential attack replays share: SQL as an attacker with database access, integrations and tokens. */
import pg from 'pg';
import { api, type TestApp } from '../support/app.ts';

export async function sql<T = Record<string, unknown>>(t: TestApp, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: t.databaseUrl });
  await client.connect();
  try { return (await client.query(text, values)).rows as T[]; } finally { await client.end(); }
}

export interface CreatedIntegration {
  id: string;
  clientId: string;
  clientSecret: string;
  technicalAccountId: string;
  audience: string;
  role: string;
}

export async function integration(t: TestApp, key: string, body: Record<string, unknown> = { name: 'erp-sync' }): Promise<CreatedIntegration> {
  const res = await api(t.baseUrl, 'POST', '/v1/integrations', { key, body });
  if (res.status !== 201) throw new Error(`integration: ${res.status} ${res.text}`);
  return res.body as CreatedIntegration;
}

export function tokenRequest(t: TestApp, clientId: string, clientSecret: string, audience: string) {
  return api(t.baseUrl, 'POST', '/oauth/token', { body: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, audience } });
}

export async function machineToken(t: TestApp, i: CreatedIntegration): Promise<string> {
  const res = await tokenRequest(t, i.clientId, i.clientSecret, i.audience);
  if (res.status !== 200) throw new Error(`token: ${res.status} ${res.text}`);
  return res.body.access_token as string;
}
