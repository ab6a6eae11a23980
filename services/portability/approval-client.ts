/**
 * The approval service mandate signatures go through (EINV_APPROVAL_URL): a check is opened for
 * some users, bound to a context key, and later read back as open, passed, refused or withdrawn.
 *
 *   POST <url>/checks      {contextKey, userIds, subject, documentSha256} → 201 {id, status}
 *   GET  <url>/checks/<id>                                                 → 200 {id, status, decidedAt, decidedBy}
 *
 * Every call is bounded (EINV_APPROVAL_TIMEOUT_MS); no answer, a non-2xx or a body of another shape
 * is 502 UPSTREAM_ERROR. Callers never hold a database transaction across these calls.
 */
import { DomainError } from '../shared/errors.ts';

export const CHECK_STATUSES = ['open', 'passed', 'refused', 'withdrawn'] as const;
export type CheckStatus = (typeof CHECK_STATUSES)[number];
export interface ApprovalCheck { id: string; status: CheckStatus; decidedAt: string | null; decidedBy: string | null }

export interface ApprovalSettings { url: string | undefined; timeoutMs: number }

const upstream = (message: string) => new DomainError('UPSTREAM_ERROR', message);

async function exchange(settings: ApprovalSettings, method: 'GET' | 'POST', path: string, body?: unknown): Promise<ApprovalCheck> {
  if (!settings.url) throw upstream('No approval service is configured (EINV_APPROVAL_URL)');
  let res: Response;
  let text: string;
  try {
    res = await fetch(`${settings.url.replace(/\/+$/, '')}${path}`, {
      method,
      headers: body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(settings.timeoutMs),
    });
    text = await res.text();
  } catch (err) {
    const e = err as Error;
    throw upstream(e.name === 'TimeoutError' ? `The approval service did not answer within ${settings.timeoutMs} ms` : `The approval service could not be reached: ${e.message}`);
  }
  if (!res.ok) throw upstream(`The approval service answered ${res.status}`);
  let parsed: Partial<ApprovalCheck> | undefined;
  try { parsed = JSON.parse(text) as Partial<ApprovalCheck>; } catch { parsed = undefined; }
  if (!parsed || typeof parsed.id !== 'string' || !(CHECK_STATUSES as readonly string[]).includes(parsed.status as string)) {
    throw upstream('The approval service answered with something that is not a check');
  }
  return { id: parsed.id, status: parsed.status as CheckStatus, decidedAt: typeof parsed.decidedAt === 'string' ? parsed.decidedAt : null, decidedBy: typeof parsed.decidedBy === 'string' ? parsed.decidedBy : null };
}

export function openCheck(settings: ApprovalSettings, input: { contextKey: string; userIds: string[]; subject: string; documentSha256: string }): Promise<ApprovalCheck> {
  return exchange(settings, 'POST', '/checks', input);
}

export function readCheck(settings: ApprovalSettings, id: string): Promise<ApprovalCheck> {
  return exchange(settings, 'GET', `/checks/${encodeURIComponent(id)}`);
}
