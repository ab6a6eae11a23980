/** gateway: the HTTP edge. Its own actions serve the API description and the error catalogue. */
import { defineAction, STRICT_REMOVE } from '../shared/contract.ts';

export const openapi = defineAction<Record<string, never>, Record<string, unknown>>('gateway', 'openapi', {
  params: {},
  http: {
    method: 'GET', path: '/v1/openapi.json', access: 'public', tag: 'Meta', summary: 'This OpenAPI 3.1 document',
    response: { type: 'object', required: ['openapi', 'paths'], properties: { openapi: { const: '3.1.0' }, paths: { type: 'object', additionalProperties: true } } },
  },
});

export const errorCatalogue = defineAction<Record<string, never>, Record<string, unknown>>('gateway', 'errorCatalogue', {
  params: {},
  http: {
    method: 'GET', path: '/docs/errors.json', access: 'public', tag: 'Meta', summary: 'Every error code with its HTTP status, type and meaning, as JSON (the page at /docs/errors shows the same)',
    response: { type: 'object', additionalProperties: { type: 'object', properties: { status: { type: 'integer' }, type: { type: 'string' }, description: { type: 'string' } } } },
  },
});

/** A page of the human documentation (HTML, public). */
function page(action: string, path: string, summary: string) {
  return defineAction<Record<string, never>, string>('gateway', action, {
    params: {},
    http: { method: 'GET', path, access: 'public', tag: 'Meta', responseMediaType: 'text/html', summary, response: { type: 'string', description: 'An HTML page' } },
  });
}

export const errorPage = page('errorPage', '/docs/errors',
  'The error catalogue as a page: one anchored entry per code (the target of every error\'s `docUrl`), and the delivery error codes a failed document carries');

export const referencePage = page('referencePage', '/docs',
  'The API reference: this deployment\'s OpenAPI document rendered by Redoc, served from here (no CDN)');

export const referenceScript = defineAction<Record<string, never>, Buffer>('gateway', 'referenceScript', {
  params: {},
  http: {
    method: 'GET', path: '/docs/redoc.standalone.js', access: 'public', tag: 'Meta', responseMediaType: 'application/javascript',
    summary: 'The Redoc bundle the reference page runs (the redoc package\'s standalone build)',
    response: { type: 'string', format: 'binary' },
  },
});

export const llmsTxt = defineAction<Record<string, never>, string>('gateway', 'llmsTxt', {
  params: {},
  http: {
    method: 'GET', path: '/llms.txt', access: 'public', tag: 'Meta', responseMediaType: 'text/markdown',
    summary: 'This API described for AI agents (llms.txt): how an agent gets a key (consent with PKCE, handoff tokens), the MCP server at /mcp and its tools, and every operation with its scope, written from the same contracts as this document',
    response: { type: 'string', description: 'Markdown' },
  },
});

/** Life of a dashboard session token, in seconds (POST /v1/sessions). */
export const SESSION_SECONDS = 1_800;

export interface SessionView {
  /** The session token (`ses_…`): send it as `Authorization: Bearer` instead of the key. */
  token: string;
  tokenType: 'Bearer';
  expiresAt: string;
  expiresIn: number;
}

/**
 * The web dashboard's sign-in (services/gateway/dashboard-session.ts): the API key in the
 * Authorization header is exchanged for a 30-minute session token that stands for it.
 */
export const createSession = defineAction<Record<string, never>, SessionView>('gateway', 'createSession', {
  params: { ...STRICT_REMOVE },
  http: {
    method: 'POST', path: '/v1/sessions', access: 'authenticated', tag: 'Meta', secretFields: ['token'],
    summary: 'Exchange the API key of this request for a 30-minute session token (`ses_…`), as the web dashboard at /app does so the browser never keeps the key. The token is the key sealed with its expiry under a server secret: it carries exactly the key\'s scopes, key type and company, and stops working as soon as the key is revoked. Only an API key can be exchanged (a JWT or a session token: 401 INVALID_TOKEN).',
    response: {
      type: 'object',
      required: ['token', 'tokenType', 'expiresAt', 'expiresIn'],
      properties: {
        token: { type: 'string', description: 'The session token. Returned once; opaque: the key inside cannot be read out of it.', examples: ['ses_eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0…'] },
        tokenType: { const: 'Bearer' },
        expiresAt: { type: 'string', format: 'date-time' },
        expiresIn: { type: 'integer', const: SESSION_SECONDS, description: 'Seconds' },
      },
    },
  },
});
