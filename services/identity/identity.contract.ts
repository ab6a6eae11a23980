/**
 * identity: the built-in OAuth 2.0 issuer (client credentials) for self-hosters without an identity
 * provider — integrations (client id + secret) backed by technical accounts that are members of an
 * organization with a role, rotatable signing keys published as a JWKS — and the resolution of a
 * verified JWT into a Principal (organization existence, membership, role, company).
 */
import { defineAction, STRICT_REMOVE } from '../shared/contract.ts';
import { PAGE_PARAMS, pageSchema, type Page } from '../shared/pagination.ts';
import type { Principal } from '../shared/auth.ts';
import { MEMBERSHIP_ROLES, type MembershipRole } from './membership.entity.ts';

const SERVICE = 'identity';

/** Life of a machine token, in seconds (spec: 24 hours). */
export const MACHINE_TOKEN_SECONDS = 86_400;

// ---------- shapes ----------

export interface IntegrationView {
  id: string;
  name: string;
  clientId: string;
  /** Present only in the response that created the integration. */
  clientSecret?: string;
  role: MembershipRole;
  organizationId: string;
  technicalAccountId: string;
  /** The one company its tokens act for (created by a personal key), or null: any company of the organization. */
  companyId: string | null;
  livemode: boolean;
  /** Where to exchange the credentials for a token, and the audience to ask for. */
  tokenUrl: string;
  audience: string;
  createdAt: string;
  revokedAt: string | null;
}

const integrationResponse = {
  type: 'object',
  required: ['id', 'name', 'clientId', 'role', 'organizationId', 'technicalAccountId', 'companyId', 'livemode', 'tokenUrl', 'audience', 'createdAt', 'revokedAt'],
  properties: {
    id: { type: 'string', examples: ['int_01JD7Z3V9Q1M2N3P4R5S6T7V8W'] },
    name: { type: 'string' },
    clientId: { type: 'string', examples: ['cli_test_01JD7Z3V9Q1M2N3P4R5S6T7V8W'] },
    clientSecret: { type: 'string', description: 'The client secret. Returned once, at creation; only its hash is stored.' },
    role: { type: 'string', enum: [...MEMBERSHIP_ROLES] },
    organizationId: { type: 'string' },
    technicalAccountId: { type: 'string' },
    companyId: { type: ['string', 'null'], description: 'Set when a personal (one-company) key created the integration: its tokens act for that company only' },
    livemode: { type: 'boolean', description: 'false: sandbox credentials, issuing test-mode tokens' },
    tokenUrl: { type: 'string', format: 'uri' },
    audience: { type: 'string' },
    createdAt: { type: 'string', format: 'date-time' },
    revokedAt: { type: ['string', 'null'], format: 'date-time' },
  },
};

// ---------- the built-in issuer ----------

export interface TokenParams {
  grant_type: string;
  client_id: string;
  client_secret: string;
  audience: string;
}
export interface TokenResult {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
}
export const issueToken = defineAction<TokenParams, TokenResult>(SERVICE, 'issueToken', {
  params: {
    ...STRICT_REMOVE,
    grant_type: { type: 'string', min: 1, max: 100 },
    client_id: { type: 'string', min: 1, max: 200 },
    client_secret: { type: 'string', min: 1, max: 500 },
    audience: { type: 'string', min: 1, max: 500 },
  },
  http: {
    method: 'POST', path: '/oauth/token', access: 'public', tag: 'OAuth', errorFormat: 'oauth', clientAuthentication: true,
    summary: 'OAuth 2.0 client credentials: exchange an integration\'s client id and secret for a 24-hour machine token (errors as RFC 6749: invalid_client, access_denied for a wrong audience…)',
    response: {
      type: 'object',
      required: ['access_token', 'token_type', 'expires_in'],
      properties: { access_token: { type: 'string' }, token_type: { const: 'Bearer' }, expires_in: { const: MACHINE_TOKEN_SECONDS } },
    },
  },
});

export interface Jwks {
  keys: Array<Record<string, unknown>>;
}
const JWKS_SCHEMA = { type: 'object', required: ['keys'], properties: { keys: { type: 'array', items: { type: 'object', required: ['kty', 'kid', 'alg'], properties: { kty: { type: 'string', const: 'EC' }, crv: { type: 'string', const: 'P-256' }, x: { type: 'string' }, y: { type: 'string' }, kid: { type: 'string' }, alg: { type: 'string', const: 'ES256' }, use: { type: 'string', const: 'sig' } } } } } };

export const jwks = defineAction<Record<string, never>, Jwks>(SERVICE, 'jwks', {
  params: { ...STRICT_REMOVE },
  http: {
    method: 'GET', path: '/.well-known/jwks.json', access: 'public', tag: 'OAuth',
    summary: 'Public keys of the built-in issuer (JWKS): the signing key and the rotated keys whose tokens may still be alive',
    response: JWKS_SCHEMA,
  },
});

/** Every key that ever signed: verifies a statement (an evidence bundle) after its key retired from the JWKS. */
export const statementKeys = defineAction<Record<string, never>, Jwks>(SERVICE, 'statementKeys', {
  params: { ...STRICT_REMOVE },
  http: {
    method: 'GET', path: '/.well-known/statement-keys.json', access: 'public', tag: 'OAuth',
    summary: 'Public keys of every key this platform ever signed with (JWKS), for verifying signed statements such as evidence bundles long after their key stopped signing tokens; tokens verify against /.well-known/jwks.json only',
    response: JWKS_SCHEMA,
  },
});

export interface SignedStatement {
  /** Compact JWS (ES256) of the statement, verifiable with /.well-known/statement-keys.json (and /.well-known/jwks.json while its key signs tokens). */
  jws: string;
  kid: string;
}
/** Internal (broker, no HTTP route): this platform signs a statement of its own (an evidence bundle) with the built-in issuer's key. */
export const signStatement = defineAction<{ payload: Record<string, unknown>; type: string }, SignedStatement>(SERVICE, 'signStatement', {
  params: { payload: 'object', type: { type: 'string', pattern: /^[a-z0-9.+-]{1,64}$/ } },
});

export interface RotateResult {
  kid: string;
  /** Keys that stay published until their `retireAt`. */
  retiring: Array<{ kid: string; retireAt: string }>;
}
/** Ops only (broker, no HTTP route): a new key signs from now on; the previous ones retire once their tokens have expired. */
export const rotateSigningKey = defineAction<Record<string, never>, RotateResult>(SERVICE, 'rotateSigningKey', {
  params: { ...STRICT_REMOVE },
});

// ---------- integrations ----------

export interface CreateIntegrationParams {
  name: string;
  role?: MembershipRole;
}
export const createIntegration = defineAction<CreateIntegrationParams, IntegrationView>(SERVICE, 'createIntegration', {
  params: {
    ...STRICT_REMOVE,
    name: { type: 'string', min: 1, max: 100, trim: true },
    role: { type: 'enum', values: [...MEMBERSHIP_ROLES], optional: true },
  },
  http: {
    method: 'POST', path: '/v1/integrations', access: 'platform', tag: 'Integrations', status: 201, secretFields: ['clientSecret'],
    location: (i: IntegrationView) => `/v1/integrations/${i.id}`,
    summary: 'Connect an unattended backend: a technical account member of the organization (role `admin` by default, or `member`: every scope but `platform`) and its OAuth client id and secret (returned once). The role may not grant a scope the caller lacks (`admin` needs `*`): 403 INSUFFICIENT_SCOPE. A personal key\'s integration acts for that key\'s company only. Sandbox callers get sandbox credentials. At most EINV_MAX_INTEGRATIONS_PER_ORGANIZATION live ones: 409 LIMIT_EXCEEDED.',
    response: integrationResponse,
  },
});

export const listIntegrations = defineAction<{ limit?: number; cursor?: string }, Page<IntegrationView>>(SERVICE, 'listIntegrations', {
  params: { ...STRICT_REMOVE, ...PAGE_PARAMS },
  http: { method: 'GET', path: '/v1/integrations', access: 'platform', tag: 'Integrations', summary: 'The organization\'s active integrations (no secrets)', response: pageSchema(integrationResponse) },
});

export const getIntegration = defineAction<{ id: string }, IntegrationView>(SERVICE, 'getIntegration', {
  params: { ...STRICT_REMOVE, id: { type: 'string', min: 1, max: 64 } },
  http: { method: 'GET', path: '/v1/integrations/:id', access: 'platform', tag: 'Integrations', summary: 'One integration (no secret)', response: integrationResponse },
});

export const revokeIntegration = defineAction<{ id: string }, IntegrationView>(SERVICE, 'revokeIntegration', {
  params: { ...STRICT_REMOVE, id: { type: 'string', min: 1, max: 64 } },
  http: {
    method: 'DELETE', path: '/v1/integrations/:id', access: 'platform', tag: 'Integrations',
    summary: 'Revoke an integration: its secret stops issuing tokens and its tokens stop being accepted at once (the membership is removed)',
    response: integrationResponse,
  },
});

// ---------- technical accounts (memberships of the caller's organization) ----------

export interface TechnicalAccountView {
  id: string;
  name: string;
  /** The role of the account in the caller's organization. */
  role: MembershipRole;
  livemode: boolean;
  /** The external identity provider's client, or null for an account of the built-in issuer (an integration). */
  external: { issuer: string; subject: string } | null;
  /** When the account became a member of the caller's organization. */
  memberSince: string;
}

const technicalAccountResponse = {
  type: 'object',
  required: ['id', 'name', 'role', 'livemode', 'external', 'memberSince'],
  properties: {
    id: { type: 'string', examples: ['tacc_01JD7Z3V9Q1M2N3P4R5S6T7V8W'] },
    name: { type: 'string' },
    role: { type: 'string', enum: [...MEMBERSHIP_ROLES] },
    livemode: { type: 'boolean' },
    external: { type: ['object', 'null'], properties: { issuer: { type: 'string' }, subject: { type: 'string' } } },
    memberSince: { type: 'string', format: 'date-time' },
  },
};

export interface AddTechnicalAccountParams {
  name: string;
  /** The `sub` of the external identity provider's client-credentials tokens (e.g. `<client_id>@clients`). */
  subject: string;
  role?: MembershipRole;
}
export const addTechnicalAccount = defineAction<AddTechnicalAccountParams, TechnicalAccountView>(SERVICE, 'addTechnicalAccount', {
  params: {
    ...STRICT_REMOVE,
    name: { type: 'string', min: 1, max: 100, trim: true },
    subject: { type: 'string', min: 1, max: 255 },
    role: { type: 'enum', values: [...MEMBERSHIP_ROLES], optional: true },
  },
  http: {
    method: 'POST', path: '/v1/technical-accounts', access: 'platform', tag: 'Integrations', status: 201,
    location: (a: TechnicalAccountView) => `/v1/technical-accounts/${a.id}`,
    summary: 'Make a client of the external identity provider (its token `sub`) a member of the organization with a role (`admin` by default, or `member`); its client-credentials tokens then act here with X-Service-Organization-Id. Needs EINV_JWT_JWKS_URL; without an external provider use POST /v1/integrations. Needs an organization-wide credential holding every scope of the role (403 INSUFFICIENT_SCOPE).',
    response: technicalAccountResponse,
  },
});

export const listTechnicalAccounts = defineAction<{ limit?: number; cursor?: string }, Page<TechnicalAccountView>>(SERVICE, 'listTechnicalAccounts', {
  params: { ...STRICT_REMOVE, ...PAGE_PARAMS },
  http: { method: 'GET', path: '/v1/technical-accounts', access: 'platform', tag: 'Integrations', summary: 'Technical accounts that are members of the organization (integrations\' and external clients), with their role', response: pageSchema(technicalAccountResponse) },
});

export const updateTechnicalAccount = defineAction<{ id: string; role: MembershipRole }, TechnicalAccountView>(SERVICE, 'updateTechnicalAccount', {
  params: { ...STRICT_REMOVE, id: { type: 'string', min: 1, max: 64 }, role: { type: 'enum', values: [...MEMBERSHIP_ROLES] } },
  http: { method: 'PATCH', path: '/v1/technical-accounts/:id', access: 'platform', tag: 'Integrations', summary: 'Change the role of a technical account in the organization', response: technicalAccountResponse },
});

export const removeTechnicalAccount = defineAction<{ id: string }, { id: string; removed: true }>(SERVICE, 'removeTechnicalAccount', {
  params: { ...STRICT_REMOVE, id: { type: 'string', min: 1, max: 64 } },
  http: {
    method: 'DELETE', path: '/v1/technical-accounts/:id', access: 'platform', tag: 'Integrations',
    summary: 'End the membership of a technical account in the organization: its tokens stop acting here at once',
    response: { type: 'object', required: ['id', 'removed'], properties: { id: { type: 'string' }, removed: { const: true } } },
  },
});

// ---------- token → principal (gateway only) ----------

export interface ResolveTokenParams {
  /** `user`: an identity-provider JWT; `machine`: a client-credentials JWT. */
  kind: 'user' | 'machine';
  /** The token's `sub`. */
  subject: string;
  /** The token's `iss` when it is an external identity provider's; absent for the built-in issuer. */
  externalIssuer?: string;
  /** The token's `jti`: a built-in machine token is honoured only if the issuer recorded it. */
  tokenId?: string;
  email?: string;
  /** The organization selected by the gateway (claim or header). */
  organizationId: string;
  /** Every organization the token grants (users). */
  organizationIds: string[];
  companyHeader?: string;
}
/**
 * Checks the selected organization against the database (existence; membership for machines; for
 * the built-in issuer's tokens, that it issued this one) and builds the Principal.
 */
export const resolveToken = defineAction<ResolveTokenParams, Principal>(SERVICE, 'resolveToken', {
  params: {
    kind: { type: 'enum', values: ['user', 'machine'] },
    subject: { type: 'string', min: 1, max: 512 },
    externalIssuer: { type: 'string', optional: true, max: 512 },
    tokenId: { type: 'string', optional: true, max: 128 },
    email: { type: 'string', optional: true, max: 320 },
    organizationId: { type: 'string', min: 1, max: 128 },
    organizationIds: { type: 'array', items: 'string', max: 1000 },
    companyHeader: { type: 'string', optional: true, max: 128 },
  },
});
