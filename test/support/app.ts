/**
 * Boots the real application (services/app.ts) for an integration test: a real broker, a real
 * PostgreSQL database of the test's own, and the gateway on a free loopback port.
 */
import { checkResponse } from './openapi-responses.ts';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { App, AppOptions } from '../../services/app.ts';
import { createTestDatabase } from './database.ts';
import { REDACTED_SECRET } from '../../services/gateway/idempotency.ts';

export interface TestApp {
  app: App;
  baseUrl: string;
  databaseUrl: string;
  /** Stops the app; drops the database unless `keepDatabase`. */
  stop(options?: { keepDatabase?: boolean }): Promise<void>;
}

export async function startTestApp(options: Omit<AppOptions, 'databaseUrl'> & { databaseUrl?: string } = {}): Promise<TestApp> {
  // Imported lazily so a test file can set EINV_* variables before the services read them.
  const { createApp } = await import('../../services/app.ts');
  const db = options.databaseUrl ? undefined : await createTestDatabase();
  const databaseUrl = options.databaseUrl ?? db!.url;
  const app = await createApp({ ...options, databaseUrl, broker: { logLevel: 'warn', ...options.broker } });
  const gateway = app.broker.getLocalService('gateway') as unknown as { server?: Server } | undefined;
  const port = (gateway?.server?.address() as AddressInfo | null)?.port;
  return {
    app,
    baseUrl: port ? `http://127.0.0.1:${port}` : '',
    databaseUrl,
    async stop({ keepDatabase = false } = {}) {
      await app.stop();
      if (!keepDatabase) await db?.drop();
    },
  };
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** A small fetch wrapper: JSON in, JSON out, headers kept. */
export async function api<T = any>(baseUrl: string, method: string, path: string, options: { key?: string; body?: unknown; headers?: Record<string, string>; rawBody?: string | Uint8Array } = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  let body: string | Uint8Array | undefined = options.rawBody;
  if (options.body !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = JSON.stringify(options.body);
  }
  const res = await fetch(`${baseUrl}${path}`, { method, headers, ...(body !== undefined ? { body: typeof body === 'string' ? body : new Uint8Array(body) } : {}) });
  const text = await res.text();
  let parsed: unknown = text;
  try { parsed = text ? JSON.parse(text) : undefined; } catch { /* not JSON: keep the text */ }
  checkResponse(method, `${baseUrl}${path}`, res.status, res.headers.get('content-type'), parsed);
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

/**
 * The text a replay of `firstText` carries: the first answer byte for byte, except its one-time
 * secrets, which the idempotency store never keeps (services/gateway/idempotency.ts).
 */
export function replayedText(firstText: string, secretFields: readonly string[] = ['key']): string {
  const body = JSON.parse(firstText) as Record<string, unknown>;
  for (const field of secretFields) if (typeof body[field] === 'string') body[field] = REDACTED_SECRET;
  return JSON.stringify(body);
}

/** Bootstraps a sandbox organization and returns its key and company. */
export async function bootstrap(baseUrl: string, body: Record<string, unknown> = {}) {
  const res = await api(baseUrl, 'POST', '/v1/sandbox/bootstrap', { body });
  if (res.status !== 201) throw new Error(`bootstrap failed: ${res.status} ${res.text}`);
  return res.body as { apiKey: string; organizationId: string; company: { id: string; vatNumber: string; peppolId: string } };
}

/** Asserts the spec's error envelope, and that its requestId is the X-Request-Id header. */
export function expectEnvelope(res: ApiResponse, status: number, code: string): void {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
  const error = res.body.error;
  expect(Object.keys(error)).toEqual(expect.arrayContaining(['type', 'code', 'message', 'details', 'requestId', 'docUrl']));
  expect(typeof error.type).toBe('string');
  expect(typeof error.message).toBe('string');
  expect(Array.isArray(error.details)).toBe(true);
  expect(error.requestId).toMatch(/^req_[0-9A-Z]{26}$/);
  expect(res.headers.get('x-request-id')).toBe(error.requestId);
  expect(res.text).not.toMatch(/SERVICE_NOT_|REQUEST_SKIPPED|\bat .*\.(ts|js):\d+/);
}
