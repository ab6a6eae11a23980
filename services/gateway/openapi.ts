/**
 * The OpenAPI 3.1 document, generated from the same contracts the gateway routes and validates
 * with. A route exists in the document if and only if it exists in the gateway.
 */
import type { ActionContract, HttpBinding, JsonSchema } from '../shared/contract.ts';
import { SCOPES, SCOPE_DESCRIPTIONS } from '../shared/contract.ts';
import { ERROR_TABLE } from './error-formatter.ts';
import { ERROR_CODES } from '../shared/errors.ts';
import { deprecationOpenApi } from './deprecation.ts';

type Rule = Record<string, unknown> & { type?: string; optional?: boolean };

function normalize(rule: unknown): Rule {
  if (typeof rule === 'string') {
    const [type, ...flags] = rule.split('|');
    return { type, ...(flags.includes('optional') ? { optional: true } : {}) };
  }
  return (rule ?? {}) as Rule;
}

/** fastest-validator rule → JSON Schema (the subset our contracts use). */
export function ruleToJsonSchema(input: unknown): JsonSchema {
  const rule = normalize(input);
  const out: JsonSchema = {};
  switch (rule.type) {
    case 'string':
      out.type = 'string';
      if (rule.min !== undefined) out.minLength = rule.min;
      if (rule.max !== undefined) out.maxLength = rule.max;
      if (rule.pattern) out.pattern = rule.pattern instanceof RegExp ? rule.pattern.source : rule.pattern;
      if (rule.enum) out.enum = rule.enum;
      break;
    case 'email':
      Object.assign(out, { type: 'string', format: 'email' }, rule.max !== undefined ? { maxLength: rule.max } : {});
      break;
    case 'url':
      Object.assign(out, { type: 'string', format: 'uri' });
      break;
    case 'uuid':
      Object.assign(out, { type: 'string', format: 'uuid' });
      break;
    case 'date':
      Object.assign(out, { type: 'string', format: 'date-time' });
      break;
    case 'number':
      out.type = rule.integer ? 'integer' : 'number';
      if (rule.min !== undefined) out.minimum = rule.min;
      if (rule.max !== undefined) out.maximum = rule.max;
      if (rule.positive) out.exclusiveMinimum = 0;
      break;
    case 'boolean':
      out.type = 'boolean';
      break;
    case 'enum':
      out.enum = rule.values;
      break;
    case 'equal':
      out.const = rule.value;
      break;
    case 'array':
      out.type = 'array';
      if (rule.items !== undefined) out.items = ruleToJsonSchema(rule.items);
      if (rule.min !== undefined) out.minItems = rule.min;
      if (rule.max !== undefined) out.maxItems = rule.max;
      if (rule.unique) out.uniqueItems = true;
      break;
    case 'object':
      Object.assign(out, rule.props ? objectSchema(rule.props as Record<string, unknown>) : { type: 'object' });
      break;
    case 'multi':
      out.oneOf = (rule.rules as unknown[]).map(ruleToJsonSchema);
      break;
    default:
      break;
  }
  if (rule.default !== undefined && typeof rule.default !== 'function') out.default = rule.default;
  if (typeof rule.description === 'string') out.description = rule.description;
  // A request field being retired (spec, Versioning §4): `{ type: …, deprecated: true }` in the contract.
  if (rule.deprecated === true) out.deprecated = true;
  return out;
}

export function objectSchema(props: Record<string, unknown>): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [name, rule] of Object.entries(props)) {
    if (name.startsWith('$$')) continue;
    properties[name] = ruleToJsonSchema(rule);
    const r = normalize(rule);
    if (!r.optional && r.default === undefined) required.push(name);
  }
  return { type: 'object', properties, ...(required.length ? { required } : {}) };
}

const toOpenApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
const pathParamNames = (path: string) => [...path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!);

function envelopeErrorResponse(description: string) {
  return { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
}

function oauthErrorResponse(description: string) {
  return { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/OAuthError' } } } };
}

function operation(contract: ActionContract<unknown, unknown>, http: HttpBinding) {
  const errorResponse = http.errorFormat === 'oauth' ? oauthErrorResponse : envelopeErrorResponse;
  const params = objectSchema(contract.params as Record<string, unknown>);
  const properties = params.properties as Record<string, JsonSchema>;
  const required = new Set((params.required as string[] | undefined) ?? []);
  const inPath = pathParamNames(http.path);
  const parameters: unknown[] = inPath.map((name) => ({ name, in: 'path', required: true, schema: properties[name] ?? { type: 'string' } }));
  const bodyProps: Record<string, JsonSchema> = {};
  for (const [name, schema] of Object.entries(properties)) {
    if (inPath.includes(name)) continue;
    if (http.method === 'GET' || http.method === 'DELETE') parameters.push({ name, in: 'query', required: required.has(name), schema });
    else bodyProps[name] = schema;
  }
  const bodyRequired = [...required].filter((n) => n in bodyProps);
  if (http.method === 'POST' && http.access !== 'public') {
    parameters.push({
      name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', minLength: 1, maxLength: 255 },
      description: http.idempotencyKeyFromPayload
        ? 'The first answer is replayed for 24 hours (per calling key); without it a key is derived from the payload'
        : 'The first answer is replayed for 24 hours (per calling key)',
    });
  }
  const status = String(http.status ?? 200);
  const errors: Record<string, unknown> = { 400: errorResponse('Invalid request (INVALID_REQUEST, MISSING_FIELD, INVALID_ENUM …)'), 429: errorResponse(http.consumesDocumentQuota ? 'RATE_LIMITED (honour Retry-After), QUOTA_EXCEEDED' : 'RATE_LIMITED (honour Retry-After)') };
  if (http.method === 'POST' && http.access !== 'public') errors[409] = errorResponse('IDEMPOTENCY_IN_PROGRESS, IDEMPOTENCY_BODY_MISMATCH');
  if (http.access !== 'public') {
    Object.assign(errors, { 401: errorResponse('MISSING_AUTH, INVALID_TOKEN, EXPIRED_TOKEN, REVOKED_KEY'), 403: errorResponse('INSUFFICIENT_SCOPE, COMPANY_REQUIRED, COMPANY_FORBIDDEN, ORGANIZATION_FORBIDDEN') });
  }
  for (const [code, description] of Object.entries(http.errors ?? {})) errors[code] = errorResponse(description);
  return {
    operationId: contract.action,
    summary: http.summary,
    tags: [http.tag],
    ...(http.access === 'public' ? { security: [] } : {}),
    'x-required-scope': http.access,
    ...(http.company ? { 'x-company': http.company } : {}),
    ...(http.testModeOnly ? { 'x-test-mode-only': true } : {}),
    ...deprecationOpenApi(http.deprecated),
    parameters,
    ...(Object.keys(bodyProps).length
      ? { requestBody: { required: bodyRequired.length > 0, content: { 'application/json': { schema: { type: 'object', properties: bodyProps, ...(bodyRequired.length ? { required: bodyRequired } : {}) } }, ...(http.rawBody ? { '*/*': { schema: { type: 'string', format: 'binary', description: 'Raw-body deposit: the file itself; the other fields go in the query string' } } } : {}) } } }
      : {}),
    responses: {
      [status]: { description: 'Success', content: { [http.responseMediaType ?? 'application/json']: { schema: http.response } } },
      ...errors,
      500: errorResponse('INTERNAL_ERROR'),
      ...(http.errorFormat === 'oauth' ? { 401: errorResponse('invalid_client'), 403: errorResponse('access_denied: the audience is not granted to this client') } : {}),
    },
  };
}

export function buildOpenApi(contracts: ReadonlyArray<ActionContract<unknown, unknown>>, serverUrl: string): JsonSchema {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const contract of contracts) {
    const http = contract.http;
    if (!http) continue;
    const path = toOpenApiPath(http.path);
    (paths[path] ??= {})[http.method.toLowerCase()] = operation(contract, http);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Electronic Invoicing Exchange API',
      version: '3.0.0',
      description: 'Send and receive e-invoices over Peppol, validate them against EN 16931 and national rules, report to tax platforms. '
        + `Scopes: ${SCOPES.map((s) => `\`${s}\` (${SCOPE_DESCRIPTIONS[s]})`).join(', ')}.`,
    },
    servers: [{ url: serverUrl }],
    security: [{ bearer: [] }, { clientCredentials: [] }],
    paths,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'An API key (svc_…) or a JWT of the identity provider (organization from `_permissions`, or X-Service-Organization-Id checked against it)' },
        clientCredentials: {
          type: 'oauth2',
          description: 'Machine tokens of the built-in issuer (an integration\'s client id and secret, JSON body with `audience`; 24 h). Send X-Service-Organization-Id on every call.',
          flows: { clientCredentials: { tokenUrl: `${serverUrl}/oauth/token`, scopes: {} } },
        },
      },
      schemas: {
        OAuthError: {
          type: 'object',
          description: 'Errors of the OAuth token endpoint, as RFC 6749 §5.2 defines them',
          required: ['error', 'error_description'],
          properties: {
            error: { type: 'string', examples: ['invalid_request', 'invalid_client', 'unsupported_grant_type', 'access_denied'] },
            error_description: { type: 'string' },
            requestId: { type: 'string', pattern: '^req_' },
          },
        },
        Error: {
          type: 'object',
          required: ['error'],
          properties: {
            error: {
              type: 'object',
              required: ['type', 'code', 'message', 'details', 'requestId', 'docUrl'],
              properties: {
                type: { type: 'string' },
                code: { type: 'string', enum: [...ERROR_CODES] },
                message: { type: 'string' },
                details: { type: 'array', items: { type: 'object', properties: { field: { type: 'string' }, rule: { type: 'string' }, message: { type: 'string' } } } },
                requestId: { type: 'string', pattern: '^req_' },
                docUrl: { type: 'string', format: 'uri' },
              },
            },
          },
        },
      },
    },
    'x-error-codes': Object.fromEntries(ERROR_CODES.map((c) => [c, ERROR_TABLE[c]])),
  };
}
