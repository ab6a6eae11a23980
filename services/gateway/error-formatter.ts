/**
 * The one place that turns an error into HTTP: status, headers and the spec's envelope
 * `{error: {type, code, message, details, requestId, docUrl}}`.
 *
 * Domain errors arrive with a spec code (locally, or rebuilt by Moleculer's transit from NATS with
 * the same `code`/`data`); Moleculer's own errors are translated to public codes here; anything
 * else is a 500 whose text and stack stay in the server log. No Moleculer internals
 * (SERVICE_NOT_AVAILABLE, REQUEST_SKIPPED, stack traces) ever reach a client.
 */
import { specCodeOf, type ErrorCode, type FieldIssue } from '../shared/errors.ts';

export interface ErrorEnvelope {
  error: {
    type: string;
    code: ErrorCode;
    message: string;
    details: FieldIssue[];
    requestId: string;
    docUrl: string;
  } & Record<string, unknown>;
}

export interface HttpError {
  status: number;
  headers: Record<string, string>;
  body: ErrorEnvelope;
  /** True when the cause is ours (5xx that is not an upstream's fault): log it with its stack. */
  internal: boolean;
}

/** Status and coarse type of every public error code. */
export const ERROR_TABLE: Record<ErrorCode, { status: number; type: string; description: string }> = {
  INVALID_REQUEST: { status: 400, type: 'validation_error', description: 'Schema validation failed; details name field and rule' },
  MISSING_FIELD: { status: 400, type: 'validation_error', description: 'A required field is absent' },
  INVALID_ENUM: { status: 400, type: 'validation_error', description: 'A value is outside the allowed set (case-sensitive)' },
  INVALID_VAT_FORMAT: { status: 400, type: 'validation_error', description: 'VAT number does not match ^[A-Z]{2}[A-Z0-9]+$' },
  INVALID_IBAN: { status: 400, type: 'validation_error', description: 'IBAN checksum (mod-97) failed' },
  INVALID_CURRENCY: { status: 400, type: 'validation_error', description: 'Not an ISO 4217 currency code' },
  INVALID_DATE: { status: 400, type: 'validation_error', description: 'Not an ISO 8601 date' },
  MISSING_AUTH: { status: 401, type: 'authentication_error', description: 'No Authorization header' },
  INVALID_TOKEN: { status: 401, type: 'authentication_error', description: 'Token or key not recognised or not verifiable' },
  EXPIRED_TOKEN: { status: 401, type: 'authentication_error', description: 'Token or sandbox key past its expiry' },
  REVOKED_KEY: { status: 401, type: 'authentication_error', description: 'API key was deleted' },
  INVALID_CLIENT: { status: 401, type: 'authentication_error', description: 'OAuth token endpoint: client id or secret not recognised (invalid_client)' },
  UNSUPPORTED_GRANT_TYPE: { status: 400, type: 'invalid_request_error', description: 'OAuth token endpoint: only client_credentials is supported (unsupported_grant_type)' },
  ACCESS_DENIED: { status: 403, type: 'permission_error', description: 'OAuth token endpoint: the audience is not granted to this client (access_denied)' },
  INVALID_GRANT: { status: 400, type: 'invalid_request_error', description: 'Agent access: the authorization code or handoff token is unknown, expired or already used, or the PKCE code verifier does not match the challenge (RFC 6749 invalid_grant)' },
  INSUFFICIENT_SCOPE: { status: 403, type: 'permission_error', description: 'The key lacks the scope this call requires' },
  COMPANY_FORBIDDEN: { status: 403, type: 'permission_error', description: 'The company is not one this credential may act for' },
  COMPANY_REQUIRED: { status: 403, type: 'permission_error', description: 'Platform and white-label keys must send X-Service-Company' },
  ORGANIZATION_FORBIDDEN: { status: 403, type: 'permission_error', description: 'Organization not granted to this token' },
  COMPANY_SUSPENDED: { status: 403, type: 'permission_error', description: 'The company is suspended by its platform: its keys, and platform keys naming it, are refused until it is resumed' },
  WHITE_LABEL_ONLY: { status: 403, type: 'permission_error', description: 'Branding and custom domains belong to white-label organizations (plan white_label)' },
  TEST_MODE_ONLY: { status: 403, type: 'permission_error', description: 'Only sandbox (test) credentials may call this' },
  RESOURCE_NOT_FOUND: { status: 404, type: 'not_found_error', description: 'Id unknown or not visible to the caller' },
  COMPANY_NOT_FOUND: { status: 404, type: 'not_found_error', description: 'Company unknown or not visible to the caller' },
  DOCUMENT_NOT_FOUND: { status: 404, type: 'not_found_error', description: 'Document unknown or not visible to the caller' },
  ROUTE_NOT_FOUND: { status: 404, type: 'not_found_error', description: 'No such endpoint' },
  METHOD_NOT_ALLOWED: { status: 405, type: 'invalid_request_error', description: 'The endpoint does not accept this method' },
  RETENTION_PERIOD_ACTIVE: { status: 409, type: 'conflict_error', description: 'The artefact is under statutory retention (10 years Italy, 6 years France, per country); retainUntil says until when' },
  COMPANY_EXISTS: { status: 409, type: 'conflict_error', description: 'VAT already registered by the organization' },
  LIMIT_EXCEEDED: { status: 409, type: 'conflict_error', description: 'The organization already holds the most live credentials of this kind (API keys, integrations) its configuration allows; revoke one first' },
  DOMAIN_IN_USE: { status: 409, type: 'conflict_error', description: 'Another organization already serves this custom domain' },
  DUPLICATE_DOCUMENT: { status: 409, type: 'conflict_error', description: 'Invoice number already sent by this seller; payload carries existingId' },
  IDEMPOTENCY_IN_PROGRESS: { status: 409, type: 'conflict_error', description: 'Same Idempotency-Key still processing' },
  IDEMPOTENCY_BODY_MISMATCH: { status: 409, type: 'conflict_error', description: 'Same Idempotency-Key, different body' },
  INVALID_TRANSITION: { status: 409, type: 'conflict_error', description: 'Lifecycle move not allowed' },
  MANDATE_INCOMPLETE: { status: 409, type: 'conflict_error', description: 'Portability: the mandate misses a decree item (taxpayerId, incomingPlatform, effectiveDate, addressScope); details name it' },
  SIGNATURE_EXISTS: { status: 409, type: 'conflict_error', description: 'Portability: a signature of the mandate is already recorded' },
  PAYLOAD_TOO_LARGE: { status: 413, type: 'invalid_request_error', description: 'Body larger than the limit, after decompression; or a document over an input cap (inflated PDF stream, embedded files, PDF objects, XML elements, attributes per element, depth, text length); details name the cap' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, type: 'invalid_request_error', description: 'Content type or encoding not supported' },
  DOMAIN_NOT_VERIFIED: { status: 422, type: 'validation_error', description: 'The custom domain\'s TXT challenge record is not published (yet); create the DNS records the settings list and verify again' },
  VAT_NOT_FOUND: { status: 422, type: 'validation_error', description: 'VAT number unknown' },
  VAT_INACTIVE: { status: 422, type: 'validation_error', description: 'VAT number ceased' },
  RECIPIENT_NOT_FOUND: { status: 422, type: 'validation_error', description: 'Peppol id registered nowhere' },
  RECIPIENT_CANNOT_RECEIVE: { status: 422, type: 'validation_error', description: 'Recipient does not accept this document type' },
  UBL_VALIDATION_FAILED: { status: 422, type: 'validation_error', description: 'Document fails EN 16931 / Peppol / national rules' },
  ISSUER_MISMATCH: { status: 422, type: 'validation_error', description: 'The document\'s seller (its buyer, for a self-billed document) is not the sending company: none of the company\'s identifiers (VAT, registration number, Peppol id) is on the seller, its tax representative or the payee' },
  DOCUMENT_TOO_COMPLEX: { status: 422, type: 'validation_error', description: 'Parsing or validating the document exceeded its processing budget (CPU time or memory) and was stopped; send a smaller or simpler document' },
  RATE_LIMITED: { status: 429, type: 'rate_limit_error', description: 'Per-minute limit exceeded; honour Retry-After' },
  QUOTA_EXCEEDED: { status: 429, type: 'rate_limit_error', description: 'Monthly document quota used' },
  INTERNAL_ERROR: { status: 500, type: 'api_error', description: 'Retry with backoff and report the requestId' },
  UPSTREAM_ERROR: { status: 502, type: 'upstream_error', description: 'An upstream dependency answered with an error' },
  UPSTREAM_UNAVAILABLE: { status: 503, type: 'upstream_error', description: 'Dependency down or circuit open; honour Retry-After' },
  UPSTREAM_TIMEOUT: { status: 504, type: 'upstream_error', description: 'Dependency too slow; safe to retry with Idempotency-Key' },
};

interface Translated {
  code: ErrorCode;
  message: string;
  details: FieldIssue[];
  extra: Record<string, unknown>;
  retryAfter?: number;
  internal: boolean;
}

/** fastest-validator rule names → the spec's 400 codes. */
export function codeForValidationRule(rule: string): ErrorCode {
  if (rule === 'required') return 'MISSING_FIELD';
  if (rule === 'enumValue' || rule === 'equalValue') return 'INVALID_ENUM';
  return 'INVALID_REQUEST';
}

function fromValidationErrors(list: Array<{ type: string; field: string; message?: string }>): Translated {
  const details = list.map((e) => ({ field: e.field, rule: e.type, message: e.message ?? `${e.field} is invalid` }));
  const code = codeForValidationRule(list[0]?.type ?? '');
  return { code, message: details.map((d) => d.message).join('; ') || 'The request is invalid', details, extra: {}, internal: false };
}

const UNAVAILABLE_TYPES = new Set(['SERVICE_NOT_FOUND', 'SERVICE_NOT_AVAILABLE', 'QUEUE_FULL', 'BROKER_DISCONNECTED', 'SERVICE_UNAVAILABLE']);
const TIMEOUT_TYPES = new Set(['REQUEST_TIMEOUT', 'REQUEST_SKIPPED']);

function translate(err: unknown): Translated {
  const e = (err ?? {}) as { code?: unknown; type?: unknown; message?: unknown; data?: unknown; details?: unknown; name?: unknown };
  const code = specCodeOf(err);
  if (code) {
    const data = (e.data ?? {}) as { details?: FieldIssue[]; extra?: Record<string, unknown>; retryAfter?: number };
    const details = Array.isArray(data.details) ? data.details : Array.isArray(e.details) ? (e.details as FieldIssue[]) : [];
    return {
      code,
      message: typeof e.message === 'string' && e.message ? e.message : ERROR_TABLE[code].description,
      details,
      extra: data.extra ?? {},
      ...(data.retryAfter !== undefined ? { retryAfter: data.retryAfter } : {}),
      internal: false,
    };
  }
  // Moleculer's parameter validator (an action validating its own params).
  if (e.type === 'VALIDATION_ERROR' && Array.isArray(e.data)) return fromValidationErrors(e.data as never);
  if (typeof e.type === 'string' && UNAVAILABLE_TYPES.has(e.type)) {
    return { code: 'UPSTREAM_UNAVAILABLE', message: 'A service needed for this request is temporarily unavailable; retry after the delay given', details: [], extra: {}, retryAfter: 5, internal: false };
  }
  // A connector's network (a directory, an SMP, a partner) failed to answer: its message says which.
  if (e.type === 'CONNECTOR_TRANSIENT') {
    return { code: 'UPSTREAM_UNAVAILABLE', message: `A network this request needs could not answer; retry after the delay given (${typeof e.message === 'string' ? e.message : 'no detail'})`, details: [], extra: {}, retryAfter: 30, internal: false };
  }
  if (typeof e.type === 'string' && TIMEOUT_TYPES.has(e.type)) {
    return { code: 'UPSTREAM_TIMEOUT', message: 'A service needed for this request did not answer in time; it is safe to retry with the same Idempotency-Key', details: [], extra: {}, internal: false };
  }
  if (e.name === 'NotFoundError' && e.code === 404) {
    return { code: 'ROUTE_NOT_FOUND', message: 'No such endpoint; see /v1/openapi.json for the list of endpoints', details: [], extra: {}, internal: false };
  }
  return { code: 'INTERNAL_ERROR', message: 'An internal error occurred; retry with backoff and report the requestId', details: [], extra: {}, internal: true };
}

/** `extraHeaders`: headers every response of the request carries (e.g. the rate-limit headers). */
export function formatError(err: unknown, requestId: string, docsUrl: string, extraHeaders: Record<string, string> = {}): HttpError {
  const t = translate(err);
  const { status, type } = ERROR_TABLE[t.code];
  const headers: Record<string, string> = { ...extraHeaders, 'Content-Type': 'application/json; charset=utf-8', 'X-Request-Id': requestId };
  if (t.retryAfter !== undefined) headers['Retry-After'] = String(Math.max(1, Math.ceil(t.retryAfter)));
  return {
    status,
    headers,
    internal: t.internal,
    body: { error: { ...t.extra, type, code: t.code, message: t.message, details: t.details, requestId, docUrl: `${docsUrl}#${t.code}` } },
  };
}

/** Body of an OAuth 2.0 token-endpoint error (RFC 6749 §5.2), what OAuth client libraries parse. */
export interface OAuthErrorBody {
  error: string;
  error_description: string;
  requestId: string;
}

/** Spec codes → RFC 6749 error strings; any other code is sent lowercased (e.g. `rate_limited`). */
const OAUTH_ERRORS: Partial<Record<ErrorCode, string>> = {
  INVALID_REQUEST: 'invalid_request', MISSING_FIELD: 'invalid_request', INVALID_ENUM: 'invalid_request',
  PAYLOAD_TOO_LARGE: 'invalid_request', UNSUPPORTED_MEDIA_TYPE: 'invalid_request',
  INVALID_CLIENT: 'invalid_client', UNSUPPORTED_GRANT_TYPE: 'unsupported_grant_type', ACCESS_DENIED: 'access_denied',
  INTERNAL_ERROR: 'server_error', UPSTREAM_UNAVAILABLE: 'temporarily_unavailable', UPSTREAM_TIMEOUT: 'temporarily_unavailable',
};

/**
 * The same translation as formatError, rendered the way an OAuth token endpoint must answer
 * (`{error, error_description}`, `Cache-Control: no-store`), for routes whose contract says
 * `errorFormat: 'oauth'`. Status codes are the error table's.
 */
export function formatOAuthError(err: unknown, requestId: string, extraHeaders: Record<string, string> = {}): { status: number; headers: Record<string, string>; body: OAuthErrorBody; internal: boolean } {
  const t = translate(err);
  const headers: Record<string, string> = { ...extraHeaders, 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', 'X-Request-Id': requestId };
  if (t.retryAfter !== undefined) headers['Retry-After'] = String(Math.max(1, Math.ceil(t.retryAfter)));
  return {
    status: ERROR_TABLE[t.code].status,
    headers,
    internal: t.internal,
    body: { error: OAUTH_ERRORS[t.code] ?? t.code.toLowerCase(), error_description: t.message, requestId },
  };
}
