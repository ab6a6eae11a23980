/**
 * Bearer tokens that are not API keys: JWTs of an identity provider (dashboard users) and
 * client-credentials machine tokens, from an external provider or from our built-in issuer
 * (identity service, POST /oauth/token). Both issuers go through the same path: a key set (remote
 * JWKS over HTTP, or the built-in JWKS over the broker) and jose's `jwtVerify` with issuer,
 * audience and clock tolerance; then the organization is selected from the claims and the header,
 * and the identity service checks it against the database (existence, membership, role).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Context, ServiceBroker } from 'moleculer';
import { createLocalJWKSet, createRemoteJWKSet, decodeJwt, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey, type JSONWebKeySet } from 'jose';
import { DomainError } from '../shared/errors.ts';
import { call } from '../shared/call.ts';
import { loadConfig, type JwtConfig } from '../shared/config.ts';
import type { Principal } from '../shared/auth.ts';
import { jwks as builtInJwks, resolveToken, type ResolveTokenParams } from '../identity/identity.contract.ts';

/** Asymmetric algorithms only: never `none`, never a shared secret. */
const EXTERNAL_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];
/** An unknown `kid` refetches the built-in key set at most this often (a rotation on another replica). */
const BUILT_IN_REFETCH_COOLDOWN_MS = 1_000;

const NO_ORGANIZATION = 'No organization found in token';

// ---------- organization selection (pure) ----------

export interface Selection {
  kind: 'user' | 'machine';
  organizationId: string;
  /** Organizations the token itself grants (`_permissions`); empty for machine tokens. */
  organizationIds: string[];
}

/** `_permissions` is a map of organization id to permissions; an array of ids is accepted too. */
export function grantedOrganizations(claim: unknown): string[] {
  if (Array.isArray(claim)) return claim.filter((v): v is string => typeof v === 'string' && v.length > 0);
  if (claim && typeof claim === 'object') return Object.keys(claim);
  return [];
}

/** A client-credentials token (Auth0's convention, which the built-in issuer follows): `gty: client-credentials`. */
export function isMachineToken(payload: JWTPayload): boolean {
  return payload.gty === 'client-credentials';
}

/**
 * The spec's rules. Users: the organization header, checked against `_permissions`, else the first
 * granted organization. Machine tokens grant none: the header is required and is the only source of
 * the tenant (membership is checked afterwards, against the database).
 */
export function selectOrganization(payload: JWTPayload, header: string | undefined): Selection {
  const granted = grantedOrganizations(payload._permissions);
  if (isMachineToken(payload)) {
    if (!header) throw new DomainError('ORGANIZATION_FORBIDDEN', NO_ORGANIZATION);
    return { kind: 'machine', organizationId: header, organizationIds: [] };
  }
  if (header) {
    if (!granted.includes(header)) {
      throw new DomainError('ORGANIZATION_FORBIDDEN', `Token does not grant access to organization '${header}'. Available: ${granted.length ? granted.join(', ') : 'none'}.`);
    }
    return { kind: 'user', organizationId: header, organizationIds: granted };
  }
  const first = granted[0];
  if (!first) throw new DomainError('ORGANIZATION_FORBIDDEN', NO_ORGANIZATION);
  return { kind: 'user', organizationId: first, organizationIds: granted };
}

/** `X-Service-Organization-Id`, or its legacy alias `Organization-Id`. */
export function organizationHeader(headers: IncomingHttpHeaders): string | undefined {
  for (const name of ['x-service-organization-id', 'organization-id']) {
    const value = headers[name];
    const first = (Array.isArray(value) ? value[0] : value)?.trim();
    if (first) return first;
  }
  return undefined;
}

// ---------- verification ----------

/**
 * The built-in issuer's JWKS, fetched over the broker (it lives in the database, behind the
 * identity service) and used exactly like a remote JWKS: cached, and refetched on an unknown `kid`.
 */
export function builtInKeySet(broker: ServiceBroker, maxAgeMs: number): JWTVerifyGetKey {
  let local: ReturnType<typeof createLocalJWKSet> | undefined;
  let fetchedAt = 0;
  let pending: Promise<void> | undefined;
  const reload = () => (pending ??= call(broker, builtInJwks, {})
    .then((set) => { local = createLocalJWKSet(set as JSONWebKeySet); fetchedAt = Date.now(); })
    .finally(() => { pending = undefined; }));
  return async (protectedHeader, token) => {
    if (!local || Date.now() - fetchedAt > maxAgeMs) await reload();
    try {
      return await local!(protectedHeader, token);
    } catch (err) {
      if (!(err instanceof errors.JWKSNoMatchingKey) || Date.now() - fetchedAt < BUILT_IN_REFETCH_COOLDOWN_MS) throw err;
      await reload();
      return local!(protectedHeader, token);
    }
  };
}

interface TrustedIssuer {
  issuer: string;
  getKey: JWTVerifyGetKey;
  algorithms: string[];
}

export class TokenVerifier {
  readonly issuers: Map<string, TrustedIssuer>;
  readonly config: JwtConfig;

  constructor(broker: ServiceBroker, config: JwtConfig) {
    this.config = config;
    this.issuers = new Map();
    const maxAgeMs = config.jwksCacheSeconds * 1000;
    this.issuers.set(config.builtInIssuer, { issuer: config.builtInIssuer, getKey: builtInKeySet(broker, maxAgeMs), algorithms: ['ES256'] });
    if (config.jwksUrl) {
      if (!config.issuer) throw new Error('EINV_JWT_ISSUER is required with EINV_JWT_JWKS_URL');
      if (config.issuer === config.builtInIssuer) throw new Error('EINV_JWT_ISSUER must differ from the built-in issuer (EINV_OAUTH_ISSUER)');
      this.issuers.set(config.issuer, {
        issuer: config.issuer,
        getKey: createRemoteJWKSet(new URL(config.jwksUrl), { timeoutDuration: 5_000, cacheMaxAge: maxAgeMs }),
        algorithms: EXTERNAL_ALGORITHMS,
      });
    }
  }

  /** The `iss` of a verified token when it is an external provider's, undefined for the built-in issuer. */
  externalIssuerOf(payload: JWTPayload): string | undefined {
    return payload.iss === this.config.builtInIssuer ? undefined : payload.iss;
  }

  /** Verifies signature, issuer, audience and expiry; throws the spec's 401s (or 5xx when the provider is unreachable). */
  async verify(token: string): Promise<JWTPayload> {
    let unverified: JWTPayload;
    try {
      unverified = decodeJwt(token);
    } catch {
      throw new DomainError('INVALID_TOKEN', 'The token is neither an API key (svc_…) nor a JWT');
    }
    const trusted = typeof unverified.iss === 'string' ? this.issuers.get(unverified.iss) : undefined;
    if (!trusted) throw new DomainError('INVALID_TOKEN', 'The token was not issued by a trusted issuer');
    try {
      const { payload } = await jwtVerify(token, trusted.getKey, {
        issuer: trusted.issuer,
        audience: this.config.audience,
        clockTolerance: this.config.clockToleranceSeconds,
        algorithms: trusted.algorithms,
        requiredClaims: ['sub', 'exp'],
      });
      return payload;
    } catch (err) {
      throw verificationError(err);
    }
  }
}

function verificationError(err: unknown): unknown {
  if (!(err instanceof errors.JOSEError)) {
    // The provider's JWKS could not be fetched (network), or the broker call failed: not the caller's fault.
    // fetch() rejects with a TypeError of its own realm: compare by name, not instanceof.
    if ((err as Error | null)?.name === 'TypeError' && (err as Error).message === 'fetch failed') return new DomainError('UPSTREAM_UNAVAILABLE', 'The identity provider\'s keys could not be fetched; retry later', { retryAfter: 5 });
    return err;
  }
  switch (err.code) {
    case 'ERR_JWT_EXPIRED':
      return new DomainError('EXPIRED_TOKEN', 'The token has expired; request a new one');
    case 'ERR_JWKS_TIMEOUT':
      return new DomainError('UPSTREAM_TIMEOUT', 'The identity provider did not serve its keys in time; retry later');
    case 'ERR_JOSE_GENERIC':
    case 'ERR_JWKS_INVALID':
    case 'ERR_JWK_INVALID':
      return new DomainError('UPSTREAM_ERROR', 'The identity provider\'s key set could not be used');
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      return new DomainError('INVALID_TOKEN', `The token is not valid for this API: ${err.message}`);
    default:
      return new DomainError('INVALID_TOKEN', 'The token could not be verified');
  }
}

// ---------- the gateway's entry point ----------

const verifiers = new WeakMap<ServiceBroker, TokenVerifier>();

/** One verifier (and key caches) per broker, configured from the environment on first use. */
export function verifierOf(broker: ServiceBroker): TokenVerifier {
  let verifier = verifiers.get(broker);
  if (!verifier) {
    verifier = new TokenVerifier(broker, loadConfig().jwt);
    verifiers.set(broker, verifier);
  }
  return verifier;
}

/** A JWT bearer token → the caller's Principal (called by the gateway for every non-`svc_` token). */
export async function resolveBearerToken(ctx: Context, token: string, headers: IncomingHttpHeaders): Promise<Principal> {
  const verifier = verifierOf(ctx.broker);
  const payload = await verifier.verify(token);
  const externalIssuer = verifier.externalIssuerOf(payload);
  // The built-in issuer mints machine tokens only (POST /oauth/token): a user token bearing its
  // signature was not issued by us, and `_permissions` is honoured from the external provider only.
  if (!externalIssuer && !isMachineToken(payload)) throw new DomainError('INVALID_TOKEN', 'The built-in issuer issues machine tokens only');
  const selection = selectOrganization(payload, organizationHeader(headers));
  const companyHeader = headers['x-service-company'];
  const params: ResolveTokenParams = {
    kind: selection.kind,
    subject: payload.sub!,
    ...(externalIssuer ? { externalIssuer } : {}),
    ...(typeof payload.jti === 'string' && payload.jti ? { tokenId: payload.jti.slice(0, 128) } : {}),
    organizationId: selection.organizationId,
    organizationIds: selection.organizationIds,
    ...(typeof payload.email === 'string' ? { email: payload.email } : {}),
    ...(typeof companyHeader === 'string' && companyHeader ? { companyHeader } : {}),
  };
  return call(ctx, resolveToken, params);
}
