/**
 * Typed service contracts. Each service's `*.contract.ts` declares its actions with this helper:
 * the action name, the fastest-validator schema of its params, the TypeScript types of params and
 * result (phantom), and — for actions exposed over HTTP — the route binding. The gateway builds its
 * aliases, its request validation and the OpenAPI document from these same objects, so the three
 * cannot drift apart.
 */
import type { ValidationSchema } from 'fastest-validator';

/** API-key scopes, exactly as the spec lists them. */
export const SCOPES = [
  'send', 'receive', 'documents.read', 'documents.search', 'documents.write', 'companies.read', 'companies.write',
  'directory', 'partners', 'payments', 'lifecycle', 'compliance', 'stats', 'platform', '*',
] as const;
export type Scope = (typeof SCOPES)[number];

export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  send: 'Send documents',
  receive: 'Configure webhooks and SMP',
  'documents.read': 'Read documents, download XML/PDF',
  'documents.search': 'Search documents',
  'documents.write': 'Mark read, archive, tag, add notes',
  'companies.read': 'Read companies',
  'companies.write': 'Create and change companies',
  directory: 'Search the directory, verify recipients',
  partners: 'Manage partners',
  payments: 'Payment methods, terms, partner sharing',
  lifecycle: 'Move document lifecycle statuses',
  compliance: 'Compliance reporting',
  stats: 'Usage statistics',
  platform: 'Onboard companies, manage keys and settings',
  '*': 'Everything',
};

/** A JSON Schema (2020-12, as OpenAPI 3.1 uses it) describing a response body. */
export type JsonSchema = { [keyword: string]: unknown };

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface HttpBinding {
  method: HttpMethod;
  /** Path with `:param` placeholders, e.g. `/v1/api-keys/:id`. */
  path: string;
  /** A scope the credential must hold, `authenticated` (any valid credential) or `public`. */
  access: Scope | 'authenticated' | 'public';
  /**
   * Public calls only: a credential, when one is sent, is checked (401 when it is not valid) and its
   * principal passed, so the answer may show signed-in readers more (the portability platform list's
   * matricules).
   */
  optionalAuth?: boolean;
  /** `required`: the call acts for one company, so platform and white-label keys must name it. */
  company?: 'required';
  /** Only sandbox (test-mode) credentials may call it. */
  testModeOnly?: boolean;
  /** Public calls that are throttled per client IP, more strictly than the API. */
  perIpLimit?: boolean;
  /**
   * The call authenticates an OAuth client with `client_id` and `client_secret` in its params: its
   * failures are throttled per client IP and per client id (services/gateway/auth-failures.ts).
   */
  clientAuthentication?: boolean;
  summary: string;
  /** A longer explanation than the summary, where one helps. */
  description?: string;
  tag: string;
  /** Success status; 200 unless stated. */
  status?: number;
  /** For 201 answers: the `Location` of what was created, from the result. */
  location?: (result: never) => string;
  response: JsonSchema;
  /**
   * A body that is not JSON is a file deposit: the action gets the query parameters plus
   * `file: {content (base64), contentType, filename}` (from the Content-Type header and `filename`).
   */
  rawBody?: boolean;
  /**
   * The body is `multipart/form-data` with these parts (documented as such): the action takes it
   * as a raw deposit (`file` is the whole body, its content type names the boundary) and reads the
   * parts itself. Implies `rawBody`.
   */
  multipart?: JsonSchema;
  /** The `format` a raw body takes when the query names none (default `raw`: a stored file). */
  rawBodyFormat?: string;
  /**
   * Documents travel inside the JSON (a 1,000-line XML, a Factur-X PDF in base64): JSON bodies are
   * capped at EINV_MAX_BODY_BYTES here instead of EINV_MAX_JSON_BYTES.
   */
  largeBody?: boolean;
  /** Media type of the success answer when it is not JSON (a wildcard for stored files of any type). */
  responseMediaType?: string;
  /** Headers of the success answer worth documenting (a file's digest): name → what it carries. */
  responseHeaders?: Record<string, { description: string; schema: JsonSchema }>;
  /**
   * The operation sends documents: each call counts against the organization's monthly document
   * quota (429 QUOTA_EXCEEDED; none in sandbox); `true` counts one, a function counts from the
   * validated params (a batch: its items). An answer of 400 or more gives the count back.
   */
  consumesDocumentQuota?: boolean | ((params: Record<string, unknown>) => number);
  /** A POST without Idempotency-Key gets a key derived from its payload (the spec's rule for sends). */
  idempotencyKeyFromPayload?: boolean;
  /**
   * Top-level fields of the success body that carry a secret shown once (a full API key, a client
   * secret, a webhook signing secret). The idempotency store keeps the answer with them masked, and
   * a replay says so (`Idempotent-Replay-Redacted`): a secret never rests in a cache. A dotted
   * path (`apiKey.key`) names a secret inside a nested object.
   */
  secretFields?: readonly string[];
  /**
   * The operation is being retired: its responses carry `Deprecation: true`, `Sunset` and
   * `Link: <link>; rel="deprecation"`, and the OpenAPI document flags it `deprecated: true`.
   */
  deprecated?: Deprecation;
  /** `oauth`: errors are rendered as RFC 6749 token-endpoint errors instead of the envelope. */
  errorFormat?: 'envelope' | 'oauth';
  /** Error answers of this operation beyond the common ones (400, 401, 403, 409, 429, 500): status → the codes it carries. */
  errors?: Record<number, string>;
  /** Statuses that answer with the success body's schema too (a health probe's 503 `degraded`): status → when. */
  alsoAnswers?: Record<number, string>;
  /** Named schemas its params or response refer to (`#/components/schemas/<name>`), e.g. a recursive one. */
  schemas?: Record<string, JsonSchema>;
}

export interface Deprecation {
  /** When the operation stops answering: an ISO 8601 date or timestamp (sent as an HTTP date). */
  sunset: string;
  /** Where the deprecation and its replacement are described (changelog entry). */
  link: string;
}

export interface ActionContract<Params, Result> {
  /** Fully qualified action name, `<service>.<action>`. */
  readonly action: string;
  /** The action's own name inside its service. */
  readonly name: string;
  readonly params: ValidationSchema;
  readonly http?: HttpBinding;
  /** Phantom members carrying the TypeScript types; never set at run time. */
  readonly __params?: Params;
  readonly __result?: Result;
}

export type ParamsOf<C> = C extends ActionContract<infer P, unknown> ? P : never;
export type ResultOf<C> = C extends ActionContract<unknown, infer R> ? R : never;

export function defineAction<Params, Result>(
  service: string,
  name: string,
  definition: { params: ValidationSchema; http?: HttpBinding },
): ActionContract<Params, Result> {
  return { action: `${service}.${name}`, name, ...definition };
}

/** Every schema of ours strips unknown members instead of failing: clients may send newer fields. */
export const STRICT_REMOVE = { $$strict: 'remove' } as const;

// `this` is the service instance; handlers that use it annotate it with their service's type.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type HandlerOf<C> = C extends ActionContract<infer P, infer R> ? (this: any, ctx: import('moleculer').Context<P>) => Promise<R> : never;

/**
 * Implements a contract in a service schema: the action validates its params with the contract's
 * schema and its handler is typed by the contract, so the two cannot disagree.
 */
export function implement<C extends ActionContract<unknown, unknown>>(contract: C, handler: HandlerOf<C>) {
  return { params: contract.params, handler };
}
