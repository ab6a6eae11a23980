/**
 * Typed domain errors. Domain code throws these with a stable, spec-exact `code`; it never decides
 * an HTTP status. The gateway's error formatter (services/gateway/error-formatter.ts) is the one
 * place that turns a code into a status and the public envelope.
 *
 * They carry everything in `code`, `message` and `data`, the fields Moleculer's transit keeps when
 * an error crosses NATS, so a remote DomainError formats exactly like a local one. They extend
 * MoleculerError so that moleculer-web passes them through its middleware chain untouched.
 */
import { Errors } from 'moleculer';

/** Field-level detail of the error envelope. */
export interface FieldIssue {
  field: string;
  rule: string;
  message: string;
}

/** Error codes of the spec's error table (plus a few of ours, documented in the OpenAPI). */
export const ERROR_CODES = [
  'INVALID_REQUEST', 'MISSING_FIELD', 'INVALID_ENUM', 'INVALID_VAT_FORMAT', 'INVALID_IBAN', 'INVALID_CURRENCY', 'INVALID_DATE',
  'MISSING_AUTH', 'INVALID_TOKEN', 'EXPIRED_TOKEN', 'REVOKED_KEY',
  // OAuth token endpoint (RFC 6749 §5.2); rendered there as lowercase `error` strings.
  'INVALID_CLIENT', 'UNSUPPORTED_GRANT_TYPE', 'ACCESS_DENIED',
  // Ours, after RFC 6749 invalid_grant: an agent's authorization code or handoff token unknown, expired, used, or a wrong PKCE verifier.
  'INVALID_GRANT',
  'INSUFFICIENT_SCOPE', 'COMPANY_FORBIDDEN', 'COMPANY_REQUIRED', 'ORGANIZATION_FORBIDDEN', 'TEST_MODE_ONLY',
  // Ours: a managed company its platform suspended (POST /v1/platform/companies/{id}/suspend).
  'COMPANY_SUSPENDED',
  // Ours: branding and custom domains are white-label features (spec: white-label adds them to platform).
  'WHITE_LABEL_ONLY',
  'RESOURCE_NOT_FOUND', 'COMPANY_NOT_FOUND', 'DOCUMENT_NOT_FOUND', 'ROUTE_NOT_FOUND', 'METHOD_NOT_ALLOWED',
  'COMPANY_EXISTS', 'LIMIT_EXCEEDED',
  // Ours: an archived artefact (original, receipt) whose statutory retention has not ended (services/shared/artefacts).
  'RETENTION_PERIOD_ACTIVE',
  // Ours: a white-label custom domain another organization already serves.
  'DOMAIN_IN_USE', 'DUPLICATE_DOCUMENT', 'IDEMPOTENCY_IN_PROGRESS', 'IDEMPOTENCY_BODY_MISMATCH', 'INVALID_TRANSITION',
  // Ours (spec: 409 portability): a mandate missing a decree item; a mandate signature already recorded.
  'MANDATE_INCOMPLETE', 'SIGNATURE_EXISTS',
  'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE',
  'VAT_NOT_FOUND', 'VAT_INACTIVE',
  // Ours: a white-label custom domain whose DNS challenge (TXT record) is not published yet.
  'DOMAIN_NOT_VERIFIED', 'RECIPIENT_NOT_FOUND', 'RECIPIENT_CANNOT_RECEIVE', 'UBL_VALIDATION_FAILED',
  // Ours: a document whose processing exceeded its CPU-time or memory budget (services/shared/worker-pool.ts).
  'DOCUMENT_TOO_COMPLEX',
  // Ours: the document names another company as its issuer than the one sending it (mappings/canonical/issuer.ts).
  'ISSUER_MISMATCH',
  'RATE_LIMITED', 'QUOTA_EXCEEDED',
  'INTERNAL_ERROR', 'UPSTREAM_ERROR', 'UPSTREAM_UNAVAILABLE', 'UPSTREAM_TIMEOUT',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && (ERROR_CODES as readonly string[]).includes(value);
}

export interface DomainErrorData {
  details?: FieldIssue[];
  /** Extra top-level members of the envelope's `error` object (e.g. `existingId`, `allowedTransitions`). */
  extra?: Record<string, unknown>;
  /** Seconds a client should wait; becomes `Retry-After`. */
  retryAfter?: number;
}

export class DomainError extends Errors.MoleculerError {
  declare data: DomainErrorData;

  /**
   * The spec code travels in Moleculer's string `type` slot (Moleculer's own errors use it the
   * same way, e.g. SERVICE_NOT_FOUND); the numeric `code` slot stays 0 because choosing a status
   * is the gateway's job, not the domain's.
   */
  constructor(code: ErrorCode, message: string, data: DomainErrorData = {}) {
    super(message, 0, code, data);
    this.name = 'DomainError';
    // Client errors are never retried by the broker and never trip a circuit breaker.
    this.retryable = false;
  }

  get errorCode(): ErrorCode {
    return this.type as ErrorCode;
  }
}

/**
 * The spec code of any error: a DomainError (local, or rebuilt from transit) carries it in `type`;
 * plain errors of pure modules (e.g. mappings' MappingError) carry it in `code`.
 */
export function specCodeOf(err: unknown): ErrorCode | undefined {
  const e = err as { type?: unknown; code?: unknown } | null;
  if (isErrorCode(e?.type)) return e.type;
  if (isErrorCode(e?.code)) return e.code;
  return undefined;
}

export const notFound = (what: string, id: string, code: ErrorCode = 'RESOURCE_NOT_FOUND') =>
  new DomainError(code, `${what} '${id}' was not found`);

const SERVER_SIDE_CODES: ReadonlySet<ErrorCode> = new Set(['INTERNAL_ERROR', 'UPSTREAM_ERROR', 'UPSTREAM_UNAVAILABLE', 'UPSTREAM_TIMEOUT']);

/**
 * True when the caller caused the error (bad input, missing rights, not found…). Such errors must
 * never trip a circuit breaker nor be retried: a partner is not unhealthy because a client erred.
 */
export function isClientFault(err: unknown): boolean {
  const code = specCodeOf(err);
  return code !== undefined && !SERVER_SIDE_CODES.has(code);
}

/**
 * At a service boundary, turns an error of a pure layer (mappings' MappingError, the validation
 * engine's InvalidXmlInputError: spec code in `code`, field details at the top level) into a
 * DomainError, whose fields survive NATS transit. Anything else is rethrown as it is.
 */
export function rethrowAsDomainError(err: unknown): never {
  const e = err as { code?: unknown; details?: unknown; message?: unknown } | null;
  if (err instanceof Error && !(err instanceof DomainError) && typeof e?.code === 'string' && Array.isArray(e.details)) {
    throw new DomainError(isErrorCode(e.code) ? e.code : 'INVALID_REQUEST', err.message, { details: e.details as FieldIssue[] });
  }
  throw err;
}

/** Decodes a base64 (or base64url) request field, or throws a 400 naming the field. */
export function decodeBase64Field(content: string, field: string): Buffer {
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(content.replace(/\s+/g, ''))) {
    throw new DomainError('INVALID_REQUEST', `${field} must be base64`, { details: [{ field, rule: 'base64', message: 'not base64' }] });
  }
  return Buffer.from(content, 'base64');
}
