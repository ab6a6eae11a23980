/**
 * The OpenAPI 3.1 document, generated from the same contracts the gateway routes and validates
 * with. A route exists in the document if and only if it exists in the gateway.
 */
import type { ActionContract, HttpBinding, JsonSchema } from '../shared/contract.ts';
import { SCOPES, SCOPE_DESCRIPTIONS } from '../shared/contract.ts';
import { ERROR_TABLE } from './error-formatter.ts';
import { ERROR_CODES } from '../shared/errors.ts';
import { deprecationOpenApi } from './deprecation.ts';
import { objectSchema } from '../shared/json-schema.ts';
import { API_VERSION, EVENT_DATA_SCHEMAS, WEBHOOK_EVENT_TYPES } from '../events/events.contract.ts';

export { objectSchema, ruleToJsonSchema } from '../shared/json-schema.ts';

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
  // An operation on one resource answers 404 when it is not the caller's (no existence leak).
  if (inPath.length) errors[404] = errorResponse('RESOURCE_NOT_FOUND, DOCUMENT_NOT_FOUND or COMPANY_NOT_FOUND: no such resource among the caller\'s');
  if (http.access !== 'public') {
    Object.assign(errors, { 401: errorResponse('MISSING_AUTH, INVALID_TOKEN, EXPIRED_TOKEN, REVOKED_KEY'), 403: errorResponse('INSUFFICIENT_SCOPE, COMPANY_REQUIRED, COMPANY_FORBIDDEN, COMPANY_SUSPENDED, ORGANIZATION_FORBIDDEN') });
  }
  // Any call may meet a dependency that is down, failing or slow; any body may be too large or oddly encoded.
  Object.assign(errors, {
    502: errorResponse('UPSTREAM_ERROR: a dependency answered with an error'),
    503: errorResponse('UPSTREAM_UNAVAILABLE: a dependency is down or its circuit is open; honour Retry-After'),
    504: errorResponse('UPSTREAM_TIMEOUT: a dependency was too slow; safe to retry with Idempotency-Key'),
  });
  if (http.method !== 'GET' && http.method !== 'DELETE') {
    Object.assign(errors, { 413: errorResponse('PAYLOAD_TOO_LARGE: the body is over the limit (after decompression)'), 415: errorResponse('UNSUPPORTED_MEDIA_TYPE: a content type or encoding this call does not take') });
  }
  for (const [code, description] of Object.entries(http.errors ?? {})) errors[code] = errorResponse(description);
  for (const [code, description] of Object.entries(http.alsoAnswers ?? {})) errors[code] = { description, content: { [http.responseMediaType ?? 'application/json']: { schema: http.response } } };
  return {
    operationId: contract.action,
    summary: http.summary,
    // The summary is already a full sentence of what the call does; a longer text where one exists.
    description: http.description ?? http.summary,
    tags: [http.tag],
    ...(http.access === 'public' ? { security: http.optionalAuth ? [{}, { bearer: [] }, { clientCredentials: [] }] : [] } : {}),
    'x-required-scope': http.access,
    ...(http.company ? { 'x-company': http.company } : {}),
    ...(http.testModeOnly ? { 'x-test-mode-only': true } : {}),
    ...deprecationOpenApi(http.deprecated),
    parameters,
    ...(http.multipart
      ? { requestBody: { required: true, content: { 'multipart/form-data': { schema: http.multipart } } } }
      : Object.keys(bodyProps).length
      ? { requestBody: { required: bodyRequired.length > 0, content: { 'application/json': { schema: { type: 'object', properties: bodyProps, ...(bodyRequired.length ? { required: bodyRequired } : {}) } }, ...(http.rawBody ? { '*/*': { schema: { type: 'string', format: 'binary', description: 'Raw-body deposit: the file itself; the other fields go in the query string' } } } : {}) } } }
      : {}),
    responses: {
      [status]: { description: 'Success', ...(http.responseHeaders ? { headers: http.responseHeaders } : {}), content: { [http.responseMediaType ?? 'application/json']: { schema: http.response } } },
      ...errors,
      500: errorResponse('INTERNAL_ERROR'),
      ...(http.errorFormat === 'oauth' ? { 401: errorResponse('invalid_client'), 403: errorResponse('access_denied: the audience is not granted to this client') } : {}),
    },
  };
}

/** What each tag groups, for the reference page's navigation. */
const TAGS: Record<string, string> = {
  Documents: 'Send, validate, read, search and move e-invoices and other business documents through their lifecycle',
  Companies: 'The companies an organization sends and receives for: creation from a VAT number, registration on the network, import, removal',
  Webhooks: 'Subscriptions, signed deliveries with retries, replays and secret rotation',
  Events: 'The event log every webhook event (and the log-only ones) is written to',
  'API keys': 'Keys of the organization: personal, platform and white-label',
  Identity: 'Who the caller is and the company it acts for',
  'Agent access': 'How an AI agent gets a key of its own, never more than the user who allowed it holds: consent with PKCE (S256), or a single-use handoff token; the agent then works through the REST API or the MCP server at /mcp (see /llms.txt)',
  Integrations: 'OAuth clients of the built-in issuer and the technical accounts behind them',
  OAuth: 'The token endpoint and the issuer\'s public keys',
  'Request log': 'Every call the organization made, with its trace, summaries and time series',
  Sandbox: 'Test organizations, their reset and expiry, the virtual clock and the rate-limit switch of the sandbox',
  Platform: 'What a platform or white-label organization does for its managed companies (tenants): onboarding, tenant keys, suspension, usage, branding, custom domain and defaults',
  Statistics: 'Monthly usage statistics of the organization: documents, validation failures, webhook deliveries, compliance reports',
  Health: 'Liveness, readiness and upstream contracts of this deployment',
  Meta: 'The API description and its error catalogue',
  SMP: 'This deployment\'s SMP (Peppol SMP 1.x read interface): the participants registered through it, read by the network',
  Partners: 'An organization\'s counterparties, matched against the directory, and the documents exchanged with each',
  Directory: 'Who can receive what: participants of the networks this deployment reaches, and those it registered',
  Compliance: 'The e-invoicing mandate of each country (models, formats, platforms, dated phases) and what this deployment supports for it',
  Payments: 'Payments recorded against documents, the balance due, companies\' bank accounts and payment terms, and the ISO 20022 pain.001 credit-transfer export',
  Portability: 'France, change of approved platform: the taxpayer, migration requests with their legal clocks and evidence chain, the mandate\'s signature, the routing switch and the annuaire',
  Categorization: 'Tag groups and tags on documents, companies and partners, with suggestions learned from the organization\'s own tagging',
  'UBL generator (France)': 'French reform invoices (flux 2) written as UBL 2.1: SIREN and SIRET identifiers, 0225 directory addresses, billing framework, mandatory notes; judged by EN 16931 (or EXTENDED-CTC-FR) and BR-FR',
  'Purchase orders': 'Purchase orders created from JSON and sent as Peppol BIS Order 3.0 (UBL 2.1 Order), and the ones received, read back as purchase orders; payments are recorded against them',
  PunchOut: 'cXML 1.2 PunchOut from the buyer side: open a shopping session at a supplier catalog (PunchOutSetupRequest), and the cart-return callback turning the returned cart (PunchOutOrderMessage) into a purchase order',
  'Peppol reporting': 'The monthly Transaction Statistics Report and End User Statistics Report of this access point (operator only)',
};

/** One entry per webhook event: the POST a receiver gets, with the event's own `data`. */
function webhooksSection(): Record<string, unknown> {
  return Object.fromEntries(WEBHOOK_EVENT_TYPES.map((type) => [type, {
    post: {
      operationId: `webhook.${type}`,
      summary: `The \`${type}\` event, delivered to subscribed webhooks`,
      tags: ['Webhooks'],
      parameters: [
        { name: 'X-Service-Signature', in: 'header', required: true, schema: { type: 'string' }, description: '`t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` (two v1 during a secret rotation)' },
        { name: 'X-Service-Event', in: 'header', required: true, schema: { type: 'string', const: type } },
        { name: 'X-Service-Event-Id', in: 'header', required: true, schema: { type: 'string' } },
        { name: 'X-Service-Delivery', in: 'header', required: true, schema: { type: 'string' } },
        { name: 'X-Service-Attempt', in: 'header', required: true, schema: { type: 'integer', minimum: 1 } },
      ],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object', required: ['id', 'type', 'livemode', 'createdAt', 'apiVersion', 'data'],
              properties: {
                id: { type: 'string' }, type: { const: type }, livemode: { type: 'boolean' }, createdAt: { type: 'string', format: 'date-time' },
                apiVersion: { type: 'string', examples: [API_VERSION] }, data: EVENT_DATA_SCHEMAS[type],
              },
            },
          },
        },
      },
      responses: { 200: { description: 'Any 2xx acknowledges the delivery; anything else (or no answer within 20 s) is retried on the schedule' } },
    },
  }]));
}

export function buildOpenApi(contracts: ReadonlyArray<ActionContract<unknown, unknown>>, serverUrl: string): JsonSchema {
  const paths: Record<string, Record<string, unknown>> = {};
  const named: Record<string, JsonSchema> = {};
  for (const contract of contracts) {
    const http = contract.http;
    if (!http) continue;
    Object.assign(named, http.schemas);
    const path = toOpenApiPath(http.path);
    (paths[path] ??= {})[http.method.toLowerCase()] = operation(contract, http);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Electronic Invoicing Exchange API',
      version: '3.0.0',
      contact: { name: 'Open e-invoicing exchange API', url: 'https://github.com/einvoicing-exchange/einvoicing-exchange' },
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      description: 'Send and receive e-invoices over Peppol, validate them against EN 16931 and national rules, report to tax platforms. '
        + `Scopes: ${SCOPES.map((s) => `\`${s}\` (${SCOPE_DESCRIPTIONS[s]})`).join(', ')}.`,
    },
    servers: [{ url: serverUrl, description: 'This deployment (EINV_PUBLIC_URL)' }],
    tags: [...new Set([...contracts.flatMap((c) => (c.http ? [c.http.tag] : [])), 'Webhooks'])].sort().map((name) => ({ name, description: TAGS[name] ?? name })),
    security: [{ bearer: [] }, { clientCredentials: [] }],
    paths,
    webhooks: webhooksSection(),
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'An API key (svc_…), a dashboard session token standing for one (ses_…, POST /v1/sessions), or a JWT of the identity provider (organization from `_permissions`, or X-Service-Organization-Id checked against it)' },
        clientCredentials: {
          type: 'oauth2',
          description: 'Machine tokens of the built-in issuer (an integration\'s client id and secret, JSON body with `audience`; 24 h). Send X-Service-Organization-Id on every call.',
          flows: { clientCredentials: { tokenUrl: `${serverUrl}/oauth/token`, scopes: {} } },
        },
      },
      schemas: {
        ...named,
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
                findings: {
                  type: 'array', description: 'UBL_VALIDATION_FAILED: every finding of the rules, fatal and not',
                  items: {
                    type: 'object', required: ['rule', 'severity', 'location', 'message'],
                    properties: {
                      rule: { type: 'string', description: 'Official rule id; Belgian UBL.BE rules as BR-BE-NN (spec Errors), their ubl-BE-NN id in sourceRule' }, sourceRule: { type: 'string', description: 'The official id when rule shows another (ubl-BE-NN)' },
                      severity: { type: 'string', enum: ['fatal', 'warning', 'information'] }, location: { type: 'string', description: 'XPath in the XML' },
                      path: { type: 'string', description: 'JSON sends: the field of the JSON document' }, message: { type: 'string' }, hint: { type: 'string' },
                    },
                  },
                },
                existingId: { type: 'string', description: 'COMPANY_EXISTS, DUPLICATE_DOCUMENT: the resource already there' },
                allowedTransitions: { type: 'array', items: { oneOf: [{ type: 'string' }, { type: 'object', additionalProperties: true }] }, description: 'INVALID_TRANSITION: the moves allowed from here (statuses, or lifecycle moves with their code and label)' },
                documentTypes: { type: 'array', items: { type: 'string' }, description: 'RECIPIENT_CANNOT_RECEIVE: what the recipient accepts' },
                requiredScope: { type: 'string', description: 'INSUFFICIENT_SCOPE' },
              },
              additionalProperties: true,
            },
          },
        },
      },
    },
    'x-error-codes': Object.fromEntries(ERROR_CODES.map((c) => [c, ERROR_TABLE[c]])),
  };
}
