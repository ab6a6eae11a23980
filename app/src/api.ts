/**
 * The dashboard's only way to the server: the public API, typed by the OpenAPI-generated `paths`
 * of the TypeScript client (clients/typescript/src/schema.ts), so a contract change breaks this
 * build instead of a page. The client's runtime wrapper is for Node (node:crypto); here a small
 * fetch does the same job with the session's credential.
 */
import type { paths } from '../../clients/typescript/src/schema.ts';
import { currentSession, endSession } from './session.ts';

export type { paths };
type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type Op<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;
type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type Responses<P extends keyof paths, M extends Method> = Op<P, M> extends { responses: infer R } ? R : never;
/** The success body of an operation (its 200 or 201 answer). */
export type Ok<P extends keyof paths, M extends Method> = Responses<P, M> extends { 200: infer R } ? JsonOf<R> : Responses<P, M> extends { 201: infer R } ? JsonOf<R> : never;
export type Body<P extends keyof paths, M extends Method> = Op<P, M> extends { requestBody?: infer B } ? JsonOf<NonNullable<B>> : never;
export type Query<P extends keyof paths, M extends Method> = Op<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

/** An answer in the API's error envelope. */
export class ApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string, readonly details: Array<{ field?: string; message?: string }>, readonly requestId: string | undefined) {
    super(message);
  }
}

export interface CallOptions<P extends keyof paths, M extends Method> {
  /** Values of the `{name}` placeholders of the path. */
  params?: Record<string, string>;
  query?: Query<P, M>;
  body?: Body<P, M>;
  /** Overrides the session's credential (sign-in, public calls). */
  bearer?: string | null;
  headers?: Record<string, string>;
}

function url(path: string, params: Record<string, string> = {}, query: object = {}): string {
  const filled = path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') search.set(k, String(v));
  const qs = search.toString();
  return qs ? `${filled}?${qs}` : filled;
}

/** Headers of the signed-in session: its token, the company a platform credential acts for, the organization of a machine token. */
export function sessionHeaders(): Record<string, string> {
  const session = currentSession();
  if (!session) return {};
  const headers: Record<string, string> = { authorization: `Bearer ${session.token}` };
  if (session.companyId) headers['x-service-company'] = session.companyId;
  if (session.organizationId) headers['x-service-organization-id'] = session.organizationId;
  return headers;
}

async function fail(res: Response): Promise<never> {
  let envelope: { error?: { code?: string; message?: string; details?: ApiError['details']; requestId?: string } | string; error_description?: string } = {};
  try { envelope = await res.json(); } catch { /* not JSON */ }
  const e = typeof envelope.error === 'object' ? envelope.error : { code: envelope.error, message: envelope.error_description };
  // A session that ran out or a revoked key: back to the sign-in page.
  if (res.status === 401) endSession(e.message ?? 'Signed out');
  throw new ApiError(res.status, e.code ?? `HTTP_${res.status}`, e.message ?? res.statusText, e.details ?? [], e.requestId ?? res.headers.get('x-request-id') ?? undefined);
}

export async function call<P extends keyof paths, M extends Method>(method: M, path: P, options: CallOptions<P, M> = {}): Promise<Ok<P, M>> {
  const headers: Record<string, string> = { accept: 'application/json', ...(options.bearer === undefined ? sessionHeaders() : options.bearer ? { authorization: `Bearer ${options.bearer}` } : {}), ...options.headers };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url(path as string, options.params, options.query ?? {}), {
    method: method.toUpperCase(),
    headers,
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
  if (!res.ok) return fail(res);
  return (await res.json()) as Ok<P, M>;
}

/** A representation that is not JSON (XML, PDF, HTML preview): fetched with the session, kept as a blob URL. */
export async function fetchBlobUrl(path: string): Promise<{ url: string; type: string }> {
  const res = await fetch(path, { headers: sessionHeaders() });
  if (!res.ok) return fail(res);
  const blob = await res.blob();
  return { url: URL.createObjectURL(blob), type: blob.type };
}

export const describeError = (err: unknown): string => (err instanceof ApiError ? `${err.code}: ${err.message}${err.details.length ? ` (${err.details.map((d) => [d.field, d.message].filter(Boolean).join(' ')).join('; ')})` : ''}` : err instanceof Error ? err.message : String(err));
