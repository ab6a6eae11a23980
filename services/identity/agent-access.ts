/**
 * Agent access (identity): consent requests with PKCE and single-use handoff tokens, both ending in
 * an API key minted by tenancy for the grantor's company (services/identity/agent-access.contract.ts).
 *
 * Single use holds under concurrency because spending is one conditional UPDATE (`... where
 * exchanged_at is null`): of two simultaneous exchanges of one code, exactly one row update wins.
 * A code or token is spent before anything else is checked, so a wrong verifier burns the code
 * (no second guess) and a failure after spending never gives it back.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'moleculer';
import { base64url } from 'jose';
import { emOf } from '../../mixins/orm.mixin.ts';
import { DomainError, specCodeOf } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { systemClock } from '../shared/clock.ts';
import { loadConfig } from '../shared/config.ts';
import { hasScope, principalOf, type Principal } from '../shared/auth.ts';
import type { Scope } from '../shared/contract.ts';
import { call } from '../shared/call.ts';
import { mintDelegatedKey, revokeDelegatedKey, type KeyGrantor } from '../tenancy/tenancy.contract.ts';
import { AgentAuthorization, HandoffToken } from './agent-grant.entity.ts';
import { hashSecret } from './client-secrets.ts';
import {
  AGENT_GRANT_SECONDS, HANDOFF_SCOPES,
  type AgentAuthorizationStatus, type AgentAuthorizationView, type AgentKeyResult, type AuthorizeParams, type ConsentResult,
  type CreateHandoffParams, type ExchangeParams, type HandoffScope, type HandoffView,
} from './agent-access.contract.ts';

const config = loadConfig();

/** Finished rows are kept a day (the trail of who allowed which key), then swept by the next request of their kind. */
const KEEP_FINISHED_MS = 86_400_000;

// ---------- pure helpers ----------

/** RFC 7636 §4.2 S256: BASE64URL(SHA256(ASCII(code_verifier))). */
export function s256Challenge(verifier: string): string {
  return base64url.encode(createHash('sha256').update(verifier, 'ascii').digest());
}

/** The verifier's S256 challenge equals the stored one (constant time). */
export function verifierMatches(verifier: string, challenge: string): boolean {
  const a = Buffer.from(s256Challenge(verifier));
  const b = Buffer.from(challenge);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A one-time secret: a readable prefix and 256 random bits. */
function newGrantSecret(prefix: 'agc' | 'agh'): { secret: string; hash: string } {
  const secret = `${prefix}_${randomBytes(32).toString('base64url')}`;
  return { secret, hash: hashSecret(secret) };
}

const invalidGrant = (message: string) => new DomainError('INVALID_GRANT', message);

function beyondHeld(auth: Principal, scopes: readonly Scope[]): Scope[] {
  return scopes.filter((s) => !hasScope(auth.scopes, s));
}

function insufficient(beyond: Scope[], what: string): DomainError {
  return new DomainError('INSUFFICIENT_SCOPE', `${what} scopes the calling credential does not hold: ${beyond.join(', ')}`, {
    details: beyond.map((s) => ({ field: 'scopes', rule: 'subset', message: `Scope '${s}' is not held by the calling credential` })),
    extra: { requiredScope: beyond[0] },
  });
}

function statusOf(row: AgentAuthorization, now: Date): AgentAuthorizationStatus {
  if (row.exchangedAt) return 'exchanged';
  if (row.expiresAt <= now) return 'expired';
  return row.consentedAt ? 'consented' : 'pending';
}

function authorizationView(row: AgentAuthorization, now: Date): AgentAuthorizationView {
  return {
    id: row.id,
    clientName: row.clientName,
    scopes: row.scopes as Scope[],
    status: statusOf(row, now),
    consentUrl: config.agentConsentUrl.replaceAll('{id}', encodeURIComponent(row.id)),
    expiresAt: row.expiresAt.toISOString(),
    createdAt: row.createdAt.toISOString(),
  };
}

function grantorOf(auth: Principal, companyId: string) {
  return { organizationId: auth.organizationId, companyId, grantorApiKeyId: auth.apiKeyId, grantorUserId: auth.userId, grantorEmail: auth.email, livemode: auth.livemode };
}

/**
 * Mints the agent's key through tenancy. A grantor whose key was revoked (or expired, or is no
 * longer what it was) since it allowed the agent makes the grant void, not a credential error of the agent.
 */
async function mintFor(ctx: Context, grantor: KeyGrantor, scopes: Scope[], name: string): Promise<AgentKeyResult> {
  try {
    const key = await call(ctx, mintDelegatedKey, { grantor, scopes, name });
    return { ...key, authorizationId: null, handoffId: null };
  } catch (err) {
    const code = specCodeOf(err);
    if (code === 'REVOKED_KEY' || code === 'EXPIRED_TOKEN' || code === 'INSUFFICIENT_SCOPE' || code === 'COMPANY_FORBIDDEN') {
      throw invalidGrant(`The grant is void: ${(err as Error).message}`);
    }
    throw err;
  }
}

// ---------- consent with PKCE ----------

export async function authorize(ctx: Context<AuthorizeParams>): Promise<AgentAuthorizationView> {
  const em = emOf(ctx);
  const now = systemClock.now();
  await em.nativeDelete(AgentAuthorization, { expiresAt: { $lt: new Date(now.getTime() - KEEP_FINISHED_MS) } });
  const row = em.create(AgentAuthorization, {
    id: newId('agentAuthorization'),
    clientName: ctx.params.client_name,
    scopes: [...ctx.params.scopes],
    codeChallenge: ctx.params.code_challenge,
    expiresAt: new Date(now.getTime() + AGENT_GRANT_SECONDS * 1000),
    codeHash: null, organizationId: null, companyId: null, grantorApiKeyId: null, grantorUserId: null, grantorEmail: null, livemode: null,
    consentedAt: null, exchangedAt: null, apiKeyId: null, createdAt: now,
  });
  await em.flush();
  return authorizationView(row, now);
}

/** The request, as any organization's user may read it before consent; once consented, only to that organization. */
async function visibleAuthorization(ctx: Context<{ id: string }>): Promise<AgentAuthorization> {
  const auth = principalOf(ctx);
  const row = await emOf(ctx).findOne(AgentAuthorization, ctx.params.id);
  if (!row || (row.organizationId && row.organizationId !== auth.organizationId)) {
    throw new DomainError('RESOURCE_NOT_FOUND', `Agent authorization '${ctx.params.id}' was not found`);
  }
  return row;
}

export async function getAuthorization(ctx: Context<{ id: string }>): Promise<AgentAuthorizationView> {
  return authorizationView(await visibleAuthorization(ctx), systemClock.now());
}

export async function consent(ctx: Context<{ id: string }>): Promise<ConsentResult> {
  const auth = principalOf(ctx);
  const row = await visibleAuthorization(ctx);
  const now = systemClock.now();
  const status = statusOf(row, now);
  if (status !== 'pending') throw new DomainError('INVALID_TRANSITION', `This agent authorization is ${status}; the agent must ask again`, { extra: { allowedTransitions: [] } });
  const scopes = row.scopes as Scope[];
  const beyond = beyondHeld(auth, scopes);
  if (beyond.length) throw insufficient(beyond, 'The agent asks for');
  const companyId = auth.companyId!;
  const code = newGrantSecret('agc');
  const expiresAt = new Date(now.getTime() + AGENT_GRANT_SECONDS * 1000);
  // Conditional: of two simultaneous consents, one wins; the other sees no pending row.
  const won = await emOf(ctx).nativeUpdate(AgentAuthorization, { id: row.id, consentedAt: null, expiresAt: { $gt: now } }, {
    ...grantorOf(auth, companyId), codeHash: code.hash, consentedAt: now, expiresAt,
  });
  if (won !== 1) throw new DomainError('INVALID_TRANSITION', 'This agent authorization was consented meanwhile', { extra: { allowedTransitions: [] } });
  return { authorizationId: row.id, code: code.secret, clientName: row.clientName, scopes, companyId, expiresAt: expiresAt.toISOString() };
}

export async function exchangeCode(ctx: Context<ExchangeParams>): Promise<AgentKeyResult> {
  const em = emOf(ctx);
  const now = systemClock.now();
  const row = await em.findOne(AgentAuthorization, { codeHash: hashSecret(ctx.params.code) });
  if (!row) throw invalidGrant('The authorization code is not recognised');
  const spent = await em.nativeUpdate(AgentAuthorization, { id: row.id, exchangedAt: null }, { exchangedAt: now });
  if (spent !== 1) {
    // RFC 6749 §4.1.2: a code used twice may have been stolen; the key it gave is revoked.
    const minted = await em.findOne(AgentAuthorization, row.id, { fields: ['apiKeyId', 'organizationId'], disableIdentityMap: true });
    if (minted?.apiKeyId && minted.organizationId) {
      await call(ctx, revokeDelegatedKey, { organizationId: minted.organizationId, id: minted.apiKeyId });
      throw invalidGrant('The authorization code was already used; the key it gave has been revoked');
    }
    throw invalidGrant('The authorization code was already used');
  }
  if (row.expiresAt <= now) throw invalidGrant('The authorization code has expired; the agent must ask again');
  if (!verifierMatches(ctx.params.code_verifier, row.codeChallenge)) throw invalidGrant('The code verifier does not match the code challenge; the code is spent, the agent must ask again');
  const grantor: KeyGrantor = { organizationId: row.organizationId!, companyId: row.companyId!, apiKeyId: row.grantorApiKeyId ?? null, livemode: row.livemode!, email: row.grantorEmail ?? null };
  const key = await mintFor(ctx, grantor, row.scopes as Scope[], `agent: ${row.clientName}`);
  await em.nativeUpdate(AgentAuthorization, { id: row.id }, { apiKeyId: key.id });
  return { ...key, authorizationId: row.id };
}

// ---------- handoff tokens ----------

export async function createHandoff(ctx: Context<CreateHandoffParams>): Promise<HandoffView> {
  const auth = principalOf(ctx);
  const em = emOf(ctx);
  const asked = ctx.params.scopes;
  const scopes: HandoffScope[] = asked ? [...asked] : HANDOFF_SCOPES.filter((s) => hasScope(auth.scopes, s));
  const beyond = beyondHeld(auth, scopes);
  if (beyond.length) throw insufficient(beyond, 'The handoff would grant');
  if (!scopes.length) throw insufficient([...HANDOFF_SCOPES], 'A handoff needs at least one of');
  const now = systemClock.now();
  await em.nativeDelete(HandoffToken, { expiresAt: { $lt: new Date(now.getTime() - KEEP_FINISHED_MS) } });
  const token = newGrantSecret('agh');
  const row = em.create(HandoffToken, {
    id: newId('handoff'),
    tokenHash: token.hash,
    name: ctx.params.name ?? 'agent handoff',
    scopes,
    ...grantorOf(auth, auth.companyId!),
    expiresAt: new Date(now.getTime() + AGENT_GRANT_SECONDS * 1000),
    redeemedAt: null,
    apiKeyId: null,
    createdAt: now,
  });
  await em.flush();
  return { ...handoffView(row, now), token: token.secret };
}

function handoffView(row: HandoffToken, now: Date): HandoffView {
  return {
    id: row.id, name: row.name, scopes: row.scopes as HandoffScope[], companyId: row.companyId, livemode: row.livemode,
    status: row.redeemedAt ? 'redeemed' : row.expiresAt <= now ? 'expired' : 'pending', apiKeyId: row.apiKeyId ?? null,
    expiresAt: row.expiresAt.toISOString(), createdAt: row.createdAt.toISOString(),
  };
}

export async function getHandoff(ctx: Context<{ id: string }>): Promise<HandoffView> {
  const auth = principalOf(ctx);
  const row = await emOf(ctx).findOne(HandoffToken, { id: ctx.params.id, organizationId: auth.organizationId });
  if (!row || (auth.companyId && row.companyId !== auth.companyId && auth.keyType === 'personal')) throw new DomainError('RESOURCE_NOT_FOUND', `Handoff '${ctx.params.id}' was not found`);
  return handoffView(row, systemClock.now());
}

export async function redeemHandoff(ctx: Context<{ token: string }>): Promise<AgentKeyResult> {
  const em = emOf(ctx);
  const now = systemClock.now();
  const row = await em.findOne(HandoffToken, { tokenHash: hashSecret(ctx.params.token) });
  if (!row) throw invalidGrant('The handoff token is not recognised');
  const spent = await em.nativeUpdate(HandoffToken, { id: row.id, redeemedAt: null }, { redeemedAt: now });
  if (spent !== 1) throw invalidGrant('The handoff token was already redeemed');
  if (row.expiresAt <= now) throw invalidGrant('The handoff token has expired; ask for a new one');
  const grantor: KeyGrantor = { organizationId: row.organizationId, companyId: row.companyId, apiKeyId: row.grantorApiKeyId ?? null, livemode: row.livemode, email: row.grantorEmail ?? null };
  const key = await mintFor(ctx, grantor, row.scopes as Scope[], row.name);
  await em.nativeUpdate(HandoffToken, { id: row.id }, { apiKeyId: key.id });
  return { ...key, handoffId: row.id };
}
