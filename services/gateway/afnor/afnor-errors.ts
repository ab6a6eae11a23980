/**
 * Errors of the /afnor/ routes in the shape XP Z12-013 declares (`Error`: errorCode, errorMessage,
 * details, type, instance). The translation of an error to a code and status is the gateway's one
 * formatter (formatError); this only re-renders it, and moves a status the AFNOR operation does not
 * declare to the nearest one it does (a 409 duplicate of a createFlow is its 422, a 429 of a
 * webhook operation, which declares none, its 503), so a generated AFNOR client always finds the
 * answer in its contract.
 */
import { formatError } from '../error-formatter.ts';

export interface AfnorError {
  errorCode: string;
  errorMessage: string;
  details?: string;
  type?: string;
  instance?: string;
}

export interface AfnorHttpError {
  status: number;
  headers: Record<string, string>;
  body: AfnorError;
  internal: boolean;
}

/** Where an undeclared status goes, in order of preference. */
const FALLBACKS: Record<number, readonly number[]> = {
  400: [422],
  404: [422, 400],
  405: [400],
  409: [422, 400],
  413: [422, 400],
  415: [400, 422],
  422: [400],
  429: [503],
  502: [503, 500],
  504: [503, 408, 500],
  503: [500],
};

export function declaredStatus(status: number, declared: readonly number[]): number {
  if (declared.includes(status)) return status;
  for (const candidate of FALLBACKS[status] ?? []) if (declared.includes(candidate)) return candidate;
  return status >= 500 ? (declared.includes(503) ? 503 : 500) : declared.includes(400) ? 400 : 500;
}

export function formatAfnorError(err: unknown, requestId: string, docsUrl: string, declared: readonly number[], extraHeaders: Record<string, string> = {}): AfnorHttpError {
  const out = formatError(err, requestId, docsUrl, extraHeaders);
  const { code, message, details } = out.body.error;
  const detailText = details.map((d) => (d.field ? `${d.field}: ${d.message}` : d.message)).join('; ');
  return {
    status: declaredStatus(out.status, declared),
    headers: out.headers,
    internal: out.internal,
    body: { errorCode: code, errorMessage: message, ...(detailText ? { details: detailText } : {}), type: `${docsUrl}#${code}`, instance: `urn:request:${requestId}` },
  };
}
