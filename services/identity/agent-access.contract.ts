/**
 * identity, agent access: how an AI agent gets an API key without anyone pasting a full-power key
 * into it. Two ways, both ending in an ordinary personal API key of one company whose scopes never
 * exceed those of the human's credential that allowed it:
 *
 * - **Consent with PKCE** (RFC 7636, S256 only): the agent asks (`POST /v1/oauth/authorize`, public)
 *   with its name, the scopes it wants and the BASE64URL SHA-256 of a secret code verifier; a user of
 *   the organization reads the request at the consent URL and consents with their own credential
 *   (`POST /v1/oauth/authorizations/<id>/consent`), which gives a single-use authorization code; the
 *   agent exchanges code and verifier for its key (`POST /v1/oauth/keys`, public).
 * - **Handoff tokens**: a user mints a single-use token valid 10 minutes with some of `send`,
 *   `receive`, `documents.read`, `companies.read`, `stats` (`POST /v1/oauth/handoffs`) and gives it to
 *   the agent, which redeems it once for its key (`POST /v1/oauth/handoffs/redeem`, public).
 *
 * Codes and handoff tokens are 256-bit random secrets shown once; only their SHA-256 is stored.
 */
import { defineAction, SCOPES, SCOPE_DESCRIPTIONS, STRICT_REMOVE, type Scope } from '../shared/contract.ts';
import { apiKeyResponse, type ApiKeyView } from '../tenancy/tenancy.contract.ts';

const SERVICE = 'identity';

/** Life of a consent request before a user consents, of the code it gives, and of a handoff token (spec Limits: 10 minutes). */
export const AGENT_GRANT_SECONDS = 600;

/** What a handoff token may carry (spec, Agent access). */
export const HANDOFF_SCOPES = ['send', 'receive', 'documents.read', 'companies.read', 'stats'] as const satisfies readonly Scope[];
export type HandoffScope = (typeof HANDOFF_SCOPES)[number];

/** RFC 7636 §4.1: the code verifier is 43 to 128 unreserved characters. */
export const CODE_VERIFIER_PATTERN = /^[A-Za-z0-9._~-]{43,128}$/;
/** BASE64URL (no padding) of a SHA-256: exactly 43 characters. */
export const CODE_CHALLENGE_PATTERN = /^[A-Za-z0-9_-]{43}$/;

// ---------- shapes ----------

export interface ScopeListing {
  scopes: Array<{ id: Scope; description: string }>;
}

export type AgentAuthorizationStatus = 'pending' | 'consented' | 'exchanged' | 'expired';

export interface AgentAuthorizationView {
  id: string;
  clientName: string;
  scopes: Scope[];
  status: AgentAuthorizationStatus;
  /** Where the organization's user reads the request and consents. */
  consentUrl: string;
  /** Until when a user may consent (pending), or the code may be exchanged (consented). */
  expiresAt: string;
  createdAt: string;
}

export interface AuthorizeParams {
  client_name: string;
  scopes: Scope[];
  code_challenge: string;
  code_challenge_method?: 'S256';
}

export interface ConsentResult {
  authorizationId: string;
  /** The authorization code, shown once: give it to the agent, which exchanges it with its code verifier. */
  code: string;
  clientName: string;
  scopes: Scope[];
  companyId: string;
  expiresAt: string;
}

export interface ExchangeParams {
  code: string;
  code_verifier: string;
}

/** The agent's new key (the full key once), and what it was granted for. */
export interface AgentKeyResult extends ApiKeyView {
  key: string;
  /** The consent request it came from, or null for a handoff token. */
  authorizationId: string | null;
  /** The handoff token it came from, or null for a consent. */
  handoffId: string | null;
}

export interface CreateHandoffParams {
  scopes?: HandoffScope[];
  name?: string;
}

export interface HandoffView {
  id: string;
  /** The handoff token: only in the answer that minted it. */
  token?: string;
  name: string;
  scopes: HandoffScope[];
  companyId: string;
  livemode: boolean;
  status: 'pending' | 'redeemed' | 'expired';
  /** The key the agent got, once redeemed. */
  apiKeyId: string | null;
  expiresAt: string;
  createdAt: string;
}

// ---------- schemas ----------

const scopeItems = { type: 'string', enum: [...SCOPES] };

const authorizationResponse = {
  type: 'object',
  required: ['id', 'clientName', 'scopes', 'status', 'consentUrl', 'expiresAt', 'createdAt'],
  properties: {
    id: { type: 'string', examples: ['agauth_01JD7Z3V9Q1M2N3P4R5S6T7V8W'] },
    clientName: { type: 'string' },
    scopes: { type: 'array', items: scopeItems },
    status: { type: 'string', enum: ['pending', 'consented', 'exchanged', 'expired'] },
    consentUrl: { type: 'string', format: 'uri', description: 'Show this to the user: the dashboard page where they consent (EINV_AGENT_CONSENT_URL), by default this request\'s API resource (GET with their credential, then POST …/consent)' },
    expiresAt: { type: 'string', format: 'date-time' },
    createdAt: { type: 'string', format: 'date-time' },
  },
};

const agentKeyResponse = {
  ...apiKeyResponse,
  required: [...apiKeyResponse.required, 'key', 'authorizationId', 'handoffId'],
  properties: {
    ...apiKeyResponse.properties,
    authorizationId: { type: ['string', 'null'], description: 'The consent request the key came from' },
    handoffId: { type: ['string', 'null'], description: 'The handoff token the key came from' },
  },
};

const handoffResponse = {
  type: 'object', required: ['id', 'name', 'scopes', 'companyId', 'livemode', 'status', 'apiKeyId', 'expiresAt', 'createdAt'],
  properties: {
    id: { type: 'string', examples: ['hoff_01JD7Z3V9Q1M2N3P4R5S6T7V8W'] }, token: { type: 'string', description: 'The handoff token. Returned once, when minted; only its hash is stored.', examples: ['agh_…'] },
    name: { type: 'string' }, scopes: { type: 'array', items: { type: 'string', enum: [...HANDOFF_SCOPES] } }, companyId: { type: 'string' }, livemode: { type: 'boolean' },
    status: { type: 'string', enum: ['pending', 'redeemed', 'expired'] }, apiKeyId: { type: ['string', 'null'] },
    expiresAt: { type: 'string', format: 'date-time' }, createdAt: { type: 'string', format: 'date-time' },
  },
};

// ---------- actions ----------

export const listScopes = defineAction<Record<string, never>, ScopeListing>(SERVICE, 'listScopes', {
  params: { ...STRICT_REMOVE },
  http: {
    method: 'GET', path: '/v1/oauth/scopes', access: 'public', tag: 'Agent access',
    summary: 'Every scope a key or an agent may be granted, with what it allows',
    response: {
      type: 'object', required: ['scopes'],
      properties: { scopes: { type: 'array', items: { type: 'object', required: ['id', 'description'], properties: { id: scopeItems, description: { type: 'string' } } } } },
    },
  },
});

/** The listing itself (pure), shared with /llms.txt. */
export function scopeListing(): ScopeListing {
  return { scopes: SCOPES.map((id) => ({ id, description: SCOPE_DESCRIPTIONS[id] })) };
}

export const authorize = defineAction<AuthorizeParams, AgentAuthorizationView>(SERVICE, 'authorize', {
  params: {
    ...STRICT_REMOVE,
    client_name: { type: 'string', min: 1, max: 100, trim: true, description: 'The agent\'s name, shown to the user who consents and given to its key' },
    scopes: { type: 'array', min: 1, max: SCOPES.length, unique: true, items: { type: 'enum', values: [...SCOPES] } },
    code_challenge: { type: 'string', pattern: CODE_CHALLENGE_PATTERN, description: 'BASE64URL (no padding) of the SHA-256 of the code verifier (RFC 7636 §4.2, S256): 43 characters' },
    code_challenge_method: { type: 'enum', values: ['S256'], optional: true, description: 'Only S256 (the default); `plain` is refused' },
  },
  http: {
    method: 'POST', path: '/v1/oauth/authorize', access: 'public', perIpLimit: true, status: 201, tag: 'Agent access',
    location: (a: AgentAuthorizationView) => `/v1/oauth/authorizations/${a.id}`,
    summary: 'An agent asks for a key: its name, the scopes it wants and a PKCE S256 code challenge. Answers the consent URL to show the user; the request waits 10 minutes for consent (rate-limited per IP: EINV_BOOTSTRAP_PER_IP_PER_HOUR an hour, counted apart from bootstraps)',
    response: authorizationResponse,
  },
});

export const getAuthorization = defineAction<{ id: string }, AgentAuthorizationView>(SERVICE, 'getAuthorization', {
  params: { ...STRICT_REMOVE, id: { type: 'string', min: 1, max: 64 } },
  http: {
    method: 'GET', path: '/v1/oauth/authorizations/:id', access: 'authenticated', tag: 'Agent access',
    summary: 'The consent request an agent made (the consent URL): who asks, for which scopes, until when. Any credential of an organization may read it; consenting binds it to that organization',
    response: authorizationResponse,
  },
});

export const consent = defineAction<{ id: string }, ConsentResult>(SERVICE, 'consent', {
  params: { ...STRICT_REMOVE, id: { type: 'string', min: 1, max: 64 } },
  http: {
    method: 'POST', path: '/v1/oauth/authorizations/:id/consent', access: 'authenticated', company: 'required', tag: 'Agent access', secretFields: ['code'],
    summary: 'The user consents: answers the single-use authorization code (10 minutes) for the agent. The consenting credential must hold every scope asked (403 INSUFFICIENT_SCOPE): a credential never grants more than it holds. The key acts for the credential\'s company (X-Service-Company for platform keys). A request already consented, exchanged or expired: 409 INVALID_TRANSITION',
    response: {
      type: 'object', required: ['authorizationId', 'code', 'clientName', 'scopes', 'companyId', 'expiresAt'],
      properties: {
        authorizationId: { type: 'string' }, code: { type: 'string', description: 'The authorization code. Returned once; only its hash is stored.', examples: ['agc_…'] },
        clientName: { type: 'string' }, scopes: { type: 'array', items: scopeItems }, companyId: { type: 'string' }, expiresAt: { type: 'string', format: 'date-time' },
      },
    },
  },
});

export const exchangeCode = defineAction<ExchangeParams, AgentKeyResult>(SERVICE, 'exchangeCode', {
  params: {
    ...STRICT_REMOVE,
    code: { type: 'string', min: 1, max: 200 },
    code_verifier: { type: 'string', pattern: CODE_VERIFIER_PATTERN, description: 'The secret whose S256 challenge the agent sent to /v1/oauth/authorize (RFC 7636 §4.1: 43 to 128 of A-Z a-z 0-9 - . _ ~)' },
  },
  http: {
    method: 'POST', path: '/v1/oauth/keys', access: 'public', clientAuthentication: true, status: 201, tag: 'Agent access', secretFields: ['key'],
    location: (k: AgentKeyResult) => `/v1/api-keys/${k.id}`,
    summary: 'The agent exchanges its authorization code and code verifier for its API key (returned once; a personal key of the consenting company with the scopes consented). A wrong verifier, an unknown, expired or already used code: 400 INVALID_GRANT (the code is spent either way; a code used twice also revokes the key it gave, RFC 6749 §4.1.2)',
    errors: { 400: 'INVALID_GRANT: the code is unknown, expired or already used, or the verifier does not match its challenge' },
    response: agentKeyResponse,
  },
});

export const createHandoff = defineAction<CreateHandoffParams, HandoffView>(SERVICE, 'createHandoff', {
  params: {
    ...STRICT_REMOVE,
    scopes: { type: 'array', optional: true, min: 1, unique: true, items: { type: 'enum', values: [...HANDOFF_SCOPES] }, description: 'Default: every handoff scope the caller holds' },
    name: { type: 'string', optional: true, min: 1, max: 100, trim: true, description: 'Name of the key the agent gets (default `agent handoff`)' },
  },
  http: {
    method: 'POST', path: '/v1/oauth/handoffs', access: 'authenticated', company: 'required', status: 201, tag: 'Agent access', secretFields: ['token'],
    summary: 'Mint a single-use handoff token (10 minutes) for an agent, with some of send, receive, documents.read, companies.read, stats (each held by the caller, else 403 INSUFFICIENT_SCOPE). The agent redeems it once at /v1/oauth/handoffs/redeem',
    location: (h: HandoffView) => `/v1/oauth/handoffs/${h.id}`,
    response: { ...handoffResponse, required: [...handoffResponse.required, 'token'] },
  },
});

export const getHandoff = defineAction<{ id: string }, HandoffView>(SERVICE, 'getHandoff', {
  params: { ...STRICT_REMOVE, id: { type: 'string', min: 1, max: 64 } },
  http: {
    method: 'GET', path: '/v1/oauth/handoffs/:id', access: 'authenticated', tag: 'Agent access',
    summary: 'A handoff token of the organization (never the token itself): pending, redeemed (with the key the agent got) or expired',
    response: handoffResponse,
  },
});

export const redeemHandoff = defineAction<{ token: string }, AgentKeyResult>(SERVICE, 'redeemHandoff', {
  params: { ...STRICT_REMOVE, token: { type: 'string', min: 1, max: 200 } },
  http: {
    method: 'POST', path: '/v1/oauth/handoffs/redeem', access: 'public', clientAuthentication: true, status: 201, tag: 'Agent access', secretFields: ['key'],
    location: (k: AgentKeyResult) => `/v1/api-keys/${k.id}`,
    summary: 'The agent redeems a handoff token for its API key (returned once). A token unknown, expired or already redeemed: 400 INVALID_GRANT',
    errors: { 400: 'INVALID_GRANT: the token is unknown, expired or already redeemed' },
    response: agentKeyResponse,
  },
});
