import type { Context } from 'moleculer';
import type { Scope } from './contract.ts';
import { DomainError } from './errors.ts';

/** Kinds of API key: a personal key acts for its own company; platform and white-label keys pick one per request. */
export const KEY_TYPES = ['personal', 'platform', 'white_label'] as const;
export type KeyType = (typeof KEY_TYPES)[number];

/**
 * Who is calling, resolved once by the gateway and carried in `ctx.meta.auth` to every service
 * (it travels with the context across NATS).
 */
export interface Principal {
  authMethod: 'api_key' | 'jwt' | 'client_credentials';
  organizationId: string;
  apiKeyId: string | null;
  userId: string | null;
  email: string | null;
  keyType: KeyType | null;
  scopes: Scope[];
  /** false for sandbox credentials. */
  livemode: boolean;
  /** The company this call acts for: the key's own company, or X-Service-Company for platform keys. */
  companyId: string | null;
  /** JWT callers: every organization the token grants (`_permissions`), the selected one included. */
  organizationIds?: string[];
  /** Machine tokens: the technical account's role in the organization. */
  role?: string;
  /** Machine tokens of an integration a one-company credential created: they act for that company only. */
  companyBound?: boolean;
}

export interface RequestMeta {
  auth?: Principal;
  requestId?: string;
  clientIp?: string;
  /** The request's Host header (a white-label custom domain is served by host). */
  host?: string;
  /**
   * The request's claimed Idempotency-Key (services/gateway/guarantees.ts), for an action whose
   * effect must itself be idempotent: a send whose first answer was lost (its gateway died, the
   * client timed out) is found again by it instead of failing as a duplicate number.
   */
  idempotency?: RequestIdempotency;
}

export interface RequestIdempotency {
  /** SHA-256 (hex) of the credential's scope and the key (idempotencyDigest): fixed length, no raw client text in SQL. */
  key: string;
  /** SHA-256 (hex) of method, path and body, as the gateway's claim compares it. */
  requestHash: string;
}

export function principalOf(ctx: Context): Principal {
  const auth = (ctx.meta as RequestMeta).auth;
  if (!auth) throw new Error('This action needs an authenticated caller (ctx.meta.auth is unset)');
  return auth;
}

/**
 * The credential acts for one company only (a personal key, or a machine token of an integration a
 * one-company credential created): whatever it mints stays on that company.
 */
export function isCompanyBound(auth: Principal): boolean {
  return auth.keyType === 'personal' || auth.companyBound === true;
}

/** Platform operations act for the whole organization: never from a credential bound to one company. */
export function requireOrganizationWide(auth: Principal): void {
  if (isCompanyBound(auth)) {
    throw new DomainError('INSUFFICIENT_SCOPE', 'Platform operations need an organization-wide credential (a platform or white-label key, or a dashboard token), not one bound to a company', {
      details: [{ field: 'keyType', rule: 'organizationWide', message: `A ${auth.keyType ?? auth.authMethod} credential acts for one company` }],
    });
  }
}

export function hasScope(granted: readonly Scope[], required: Scope): boolean {
  return granted.includes('*') || granted.includes(required);
}
