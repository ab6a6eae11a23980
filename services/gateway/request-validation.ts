/**
 * Validates what a client sent (query string, path parameters, JSON body) against the contract of
 * the action it targets, with the very schema the action itself declares.
 */
import FastestValidator, { type SyncCheckFunction, type ValidationError } from 'fastest-validator';
import type { ActionContract } from '../shared/contract.ts';
import { DomainError } from '../shared/errors.ts';
import { firstUnstorablePath } from '../shared/pg-text.ts';
import { codeForValidationRule } from './error-formatter.ts';

// The package is CommonJS with an ES-style `export default` in its typings: at run time the
// default import already is the class.
const Validator = FastestValidator as unknown as typeof import('fastest-validator').default;
const validator = new Validator({
  useNewCustomCheckerFunction: true,
  // Clearer wording than the library's defaults for the cases clients hit most.
  messages: {
    required: "The '{field}' field is required.",
    enumValue: "The '{field}' field must be one of: {expected} (got '{actual}').",
    stringMax: "The '{field}' field must be at most {expected} characters long.",
    stringMin: "The '{field}' field must be at least {expected} characters long.",
  },
});

export type ParamsChecker = (input: Record<string, unknown>) => void;

export function compileChecker(contract: ActionContract<unknown, unknown>): ParamsChecker {
  const check = validator.compile(contract.params) as SyncCheckFunction;
  return (input) => {
    const result = check(input);
    if (result === true) return;
    const errors = result as ValidationError[];
    const details = errors.map((e) => ({ field: e.field, rule: e.type, message: e.message ?? `${e.field} is invalid` }));
    throw new DomainError(codeForValidationRule(errors[0]?.type ?? ''), details.map((d) => d.message).join('; '), { details });
  };
}

/**
 * Params of a raw-body deposit (a route with `rawBody`, a body that is not JSON): the query string
 * (`format` defaults to raw), and the bytes as `file` with the declared content type (`contentType`
 * query parameter first, else the Content-Type header) and `filename`; with `format=ubl-xml` or
 * `cii-xml` the bytes are the `xml` itself, as the README promises. Path parameters win.
 */
export function rawDepositParams(query: Record<string, unknown>, raw: Buffer, contentType: string | undefined, pathParams: Record<string, unknown>, defaultFormat = 'raw'): Record<string, unknown> {
  if (query.format === 'ubl-xml' || query.format === 'cii-xml') return { ...query, xml: raw.toString('utf8'), ...pathParams };
  const file: Record<string, unknown> = { content: raw.toString('base64') };
  const declared = typeof query.contentType === 'string' && query.contentType ? query.contentType : contentType;
  if (declared) file.contentType = declared;
  if (typeof query.filename === 'string' && query.filename) file.filename = query.filename;
  return { format: defaultFormat, ...query, file, ...pathParams };
}

/**
 * Builds an action's params from the request: path parameters always; the query string for
 * reads; the JSON body (which must be an object) for writes. Path parameters win, so a body can
 * never redirect a call to another resource.
 */
export function requestParams(method: string, query: Record<string, unknown>, body: unknown, pathParams: Record<string, unknown>): Record<string, unknown> {
  if (method === 'GET' || method === 'DELETE') return { ...query, ...pathParams };
  if (body === undefined) return { ...pathParams };
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new DomainError('INVALID_REQUEST', 'The request body must be a JSON object', {
      details: [{ field: 'body', rule: 'object', message: 'The request body must be a JSON object' }],
    });
  }
  return { ...(body as Record<string, unknown>), ...pathParams };
}

/**
 * Refuses params carrying a string PostgreSQL cannot store (a NUL, a lone surrogate) in a path
 * parameter, the query or the JSON body: 400 naming the field, before any service runs SQL with it.
 */
export function assertStorableParams(params: Record<string, unknown>): void {
  const field = firstUnstorablePath(params);
  if (field === undefined) return;
  const message = `The '${field}' field contains a NUL character or an unpaired UTF-16 surrogate, which cannot be stored`;
  throw new DomainError('INVALID_REQUEST', message, { details: [{ field, rule: 'storableText', message }] });
}
