/**
 * What an /afnor/ operation is given and answers. Each operation runs our own actions through
 * `AfnorCall.run`, which applies what the REST route of that action applies (scope, company,
 * params contract) with the caller's principal, so the services' own checks hold as over /v1.
 */
import type { ActionContract, HttpBinding } from '../../shared/contract.ts';
import type { Principal } from '../../shared/auth.ts';
import { DomainError } from '../../shared/errors.ts';
import { compileChecker, type ParamsChecker } from '../request-validation.ts';

type AnyContract = ActionContract<unknown, unknown>;

export interface AfnorRequest {
  /** Path parameters of the operation's pattern, decoded. */
  path: Record<string, string>;
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body (JSON operations) */
  json: unknown;
  /** Raw body and its content type (multipart operations). */
  raw: Buffer | undefined;
  contentType: string | undefined;
}

export interface AfnorCall {
  auth: Principal;
  request: AfnorRequest;
  /** Runs one of our actions as its REST route would; `access` stands in for an internal action's missing route. */
  run<P, R>(contract: ActionContract<P, R>, params: P, access?: Pick<HttpBinding, 'access' | 'company'>): Promise<R>;
  /** Runs a send: counts the document quota as POST /v1/documents/send does, gives it back on failure. */
  send<P, R>(contract: ActionContract<P, R>, params: P): Promise<R>;
  /** Response meta our actions set (`$responseType` of a stored file). */
  responseType(): string | undefined;
}

export interface AfnorAnswer {
  status: number;
  /** JSON body; absent for an empty answer. */
  json?: unknown;
  /** A file download. */
  file?: { bytes: Buffer; filename: string };
  headers?: Record<string, string>;
}

/**
 * What makes two requests of an operation the same one, for its retries: `content` is hashed in
 * place of the raw body (a multipart body's boundary changes from one attempt to the next), and
 * `derivedKey` is the Idempotency-Key a request without one is known by, `subject` naming it in a
 * conflict ("trackingId 'T-1'").
 */
export interface RequestIdentity {
  content: unknown;
  derivedKey?: { key: string; subject: string };
}

export interface AfnorOperation {
  service: 'flow-service' | 'directory-service';
  operationId: string;
  method: 'GET' | 'POST' | 'DELETE';
  /** Path after `/afnor/<service>`, with `{name}` parameters. */
  path: string;
  /** The statuses the AFNOR OpenAPI declares for it (errors are moved to the nearest declared one). */
  declared: readonly number[];
  /** No credential needed (health checks). */
  public?: boolean;
  /** Body: JSON, multipart (a flow upload) or none. */
  body?: 'json' | 'multipart';
  /**
   * A POST whose retries are recognised by more than its raw body (createFlow); it may refuse the
   * request as `handle` would (it runs first). Other POSTs are the same when their bodies are.
   */
  identity?(request: AfnorRequest): Promise<RequestIdentity>;
  handle(call: AfnorCall): Promise<AfnorAnswer>;
}

const checkers = new Map<object, ParamsChecker>();

/** Checks an AFNOR request body against a fastest-validator schema: 400 INVALID_REQUEST naming the fields. */
export function checkBody(schema: Record<string, unknown>, body: unknown): void {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new DomainError('INVALID_REQUEST', 'The request body must be a JSON object', { details: [{ field: 'body', rule: 'object', message: 'a JSON object is expected' }] });
  }
  let checker = checkers.get(schema);
  if (!checker) {
    checker = compileChecker({ action: 'afnor', params: schema } as unknown as AnyContract);
    checkers.set(schema, checker);
  }
  checker(body as Record<string, unknown>);
}

/** A comma-separated (explode=false) array query parameter, each value checked against `allowed`. */
export function listParam(query: URLSearchParams, name: string, allowed: readonly string[]): string[] | undefined {
  const raw = query.get(name);
  if (raw === null || raw === '') return undefined;
  const values = raw.split(',').map((v) => v.trim()).filter(Boolean);
  const bad = values.find((v) => !allowed.includes(v));
  if (bad !== undefined) throw new DomainError('INVALID_ENUM', `${name} must list values among ${allowed.join(', ')} (got '${bad}')`, { details: [{ field: name, rule: 'enum', message: `'${bad}' is not one of ${allowed.join(', ')}` }] });
  return values;
}

export function notFound(what: string): DomainError {
  return new DomainError('RESOURCE_NOT_FOUND', `${what} not found`);
}
