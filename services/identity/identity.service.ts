import { randomUUID } from 'node:crypto';
import type { ServiceSchema } from 'moleculer';
import { CompactSign, SignJWT } from 'jose';
import { OrmMixin, emOf } from '../../mixins/orm.mixin.ts';
import { DomainError } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { systemClock } from '../shared/clock.ts';
import { loadConfig } from '../shared/config.ts';
import { hasScope, isCompanyBound, principalOf, type Principal } from '../shared/auth.ts';
import { databaseOf } from '../shared/persistence/database.ts';
import { SCOPES, implement as action, type Scope } from '../shared/contract.ts';
import { readPageRequest, toPage } from '../shared/pagination.ts';
import { call } from '../shared/call.ts';
import { organizationProfile, companyOf } from '../tenancy/tenancy.contract.ts';
import { TechnicalAccount } from './technical-account.entity.ts';
import { Membership, type MembershipRole } from './membership.entity.ts';
import { Integration } from './integration.entity.ts';
import { IssuedToken } from './issued-token.entity.ts';
import { newClientId, newClientSecret, secretMatches } from './client-secrets.ts';
import { privateKeyOf, publishedKeys, rotate, secureKeysAtRest, signingKey, statementKeys, type KeyPolicy } from './signing-keys.ts';
import { generatedKeySecret, resolveKeySecret } from './key-secret.ts';
import * as contract from './identity.contract.ts';
import * as agentAccess from './agent-access.contract.ts';
import * as agents from './agent-access.ts';
import type { IntegrationView, TechnicalAccountView } from './identity.contract.ts';

const config = loadConfig();

/** Serialises integration creations per organization, so the cap on live integrations holds under concurrency. */
const INTEGRATIONS_LOCK = 'select pg_advisory_xact_lock(hashtext(\'einv.identity.integrations\'), hashtext(?))';

/** What a role may do: `admin` everything, `member` everything but `platform` (keys, integrations, settings). */
const ROLE_SCOPES: Record<MembershipRole, Scope[]> = {
  admin: ['*'],
  member: SCOPES.filter((s) => s !== '*' && s !== 'platform'),
};

/**
 * A credential never grants more than it holds: the role's scopes must all be the caller's (so
 * `admin`, i.e. `*`, only from a `*` caller). A token of the integration then resolves to that role.
 */
function assertGrantable(auth: Principal, role: MembershipRole): void {
  const beyond = ROLE_SCOPES[role].filter((s) => !hasScope(auth.scopes, s));
  if (beyond.length) {
    throw new DomainError('INSUFFICIENT_SCOPE', `The role '${role}' grants scopes the caller does not hold: ${beyond.join(', ')}`, {
      details: [{ field: 'role', rule: 'subset', message: `Role '${role}' exceeds the calling credential's scopes` }],
    });
  }
}

const noAccess = (organizationId: string) =>
  new DomainError('ORGANIZATION_FORBIDDEN', `Token does not grant access to organization '${organizationId}'. Available: none.`);

function integrationView(row: Integration, role: MembershipRole): IntegrationView {
  return {
    id: row.id,
    name: row.name,
    clientId: row.clientId,
    role,
    organizationId: row.organizationId,
    technicalAccountId: row.technicalAccount.id,
    companyId: row.companyId ?? null,
    livemode: row.livemode,
    tokenUrl: `${config.publicUrl}/oauth/token`,
    audience: config.jwt.audience,
    createdAt: row.createdAt.toISOString(),
    revokedAt: row.revokedAt ? row.revokedAt.toISOString() : null,
  };
}

function technicalAccountView(account: TechnicalAccount, membership: Membership): TechnicalAccountView {
  return {
    id: account.id,
    name: account.name,
    role: membership.role,
    livemode: account.livemode,
    external: account.externalIssuer && account.externalSubject ? { issuer: account.externalIssuer, subject: account.externalSubject } : null,
    memberSince: membership.createdAt.toISOString(),
  };
}

const IdentityService: ServiceSchema = {
  name: 'identity',
  mixins: [OrmMixin],

  actions: {
    listScopes: action(agentAccess.listScopes, async () => agentAccess.scopeListing()),
    authorize: action(agentAccess.authorize, agents.authorize),
    getAuthorization: action(agentAccess.getAuthorization, agents.getAuthorization),
    consent: action(agentAccess.consent, async (ctx) => {
      (ctx.meta as { $responseHeaders?: Record<string, string> }).$responseHeaders = { 'Cache-Control': 'no-store' };
      return agents.consent(ctx);
    }),
    exchangeCode: action(agentAccess.exchangeCode, async (ctx) => {
      (ctx.meta as { $responseHeaders?: Record<string, string> }).$responseHeaders = { 'Cache-Control': 'no-store' };
      return agents.exchangeCode(ctx);
    }),
    createHandoff: action(agentAccess.createHandoff, async (ctx) => {
      (ctx.meta as { $responseHeaders?: Record<string, string> }).$responseHeaders = { 'Cache-Control': 'no-store' };
      return agents.createHandoff(ctx);
    }),
    getHandoff: action(agentAccess.getHandoff, agents.getHandoff),
    redeemHandoff: action(agentAccess.redeemHandoff, async (ctx) => {
      (ctx.meta as { $responseHeaders?: Record<string, string> }).$responseHeaders = { 'Cache-Control': 'no-store' };
      return agents.redeemHandoff(ctx);
    }),

    issueToken: action(contract.issueToken, async function (this: IdentityThis, ctx) {
      const keyPolicy = this.keyPolicy;
      const p = ctx.params;
      if (p.grant_type !== 'client_credentials') {
        throw new DomainError('UNSUPPORTED_GRANT_TYPE', `grant_type '${p.grant_type}' is not supported; use client_credentials`);
      }
      const em = emOf(ctx);
      const row = await em.findOne(Integration, { clientId: p.client_id });
      // One answer for an unknown client, a wrong secret and a revoked integration: nothing leaks.
      if (!row || !secretMatches(p.client_secret, row.clientSecretHash) || row.revokedAt) {
        throw new DomainError('INVALID_CLIENT', 'Client authentication failed: unknown client, wrong secret or revoked integration');
      }
      // Credentials are fine; the audience is a grant question (spec: 403 access_denied).
      if (p.audience !== config.jwt.audience) {
        throw new DomainError('ACCESS_DENIED', `The audience '${p.audience}' is not granted to this client`);
      }
      const now = systemClock.now();
      const key = await signingKey(em, now, keyPolicy);
      const iat = Math.floor(now.getTime() / 1000);
      const jti = randomUUID();
      // Only what is recorded here is honoured (resolveToken): a signature alone does not make a token ours.
      await em.nativeDelete(IssuedToken, { expiresAt: { $lt: now } });
      em.create(IssuedToken, { jti, technicalAccountId: row.technicalAccount.id, companyId: row.companyId ?? null, expiresAt: new Date((iat + contract.MACHINE_TOKEN_SECONDS) * 1000) });
      await em.flush();
      const token = await new SignJWT({ _permissions: {}, gty: 'client-credentials', azp: row.clientId, livemode: row.livemode })
        .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' })
        .setIssuer(config.jwt.builtInIssuer)
        .setAudience(config.jwt.audience)
        .setSubject(row.technicalAccount.id)
        .setIssuedAt(iat)
        .setExpirationTime(iat + contract.MACHINE_TOKEN_SECONDS)
        .setJti(jti)
        .sign(await privateKeyOf(key, keyPolicy.secret));
      (ctx.meta as { $responseHeaders?: Record<string, string> }).$responseHeaders = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };
      return { access_token: token, token_type: 'Bearer' as const, expires_in: contract.MACHINE_TOKEN_SECONDS };
    }),

    jwks: action(contract.jwks, async (ctx) => {
      (ctx.meta as { $responseHeaders?: Record<string, string> }).$responseHeaders = { 'Cache-Control': 'public, max-age=300' };
      return { keys: (await publishedKeys(emOf(ctx), systemClock.now())) as Array<Record<string, unknown>> };
    }),

    statementKeys: action(contract.statementKeys, async (ctx) => {
      (ctx.meta as { $responseHeaders?: Record<string, string> }).$responseHeaders = { 'Cache-Control': 'public, max-age=300' };
      return { keys: (await statementKeys(emOf(ctx))) as Array<Record<string, unknown>> };
    }),

    signStatement: action(contract.signStatement, async function (this: IdentityThis, ctx) {
      // The private key never leaves this service: callers get the signed bytes.
      const key = await signingKey(emOf(ctx), systemClock.now(), this.keyPolicy);
      const jws = await new CompactSign(new TextEncoder().encode(JSON.stringify(ctx.params.payload)))
        .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: ctx.params.type })
        .sign(await privateKeyOf(key, this.keyPolicy.secret));
      return { jws, kid: key.kid };
    }),

    rotateSigningKey: action(contract.rotateSigningKey, async function (this: IdentityThis, ctx) {
      const { key, retiring } = await rotate(emOf(ctx), systemClock.now(), this.keyPolicy);
      return { kid: key.kid, retiring: retiring.map((k) => ({ kid: k.kid, retireAt: k.retireAt!.toISOString() })) };
    }),

    createIntegration: action(contract.createIntegration, async (ctx) => {
      const auth = principalOf(ctx);
      const role = ctx.params.role ?? 'admin';
      assertGrantable(auth, role);
      // A one-company credential connects a backend for its company, not for the whole organization.
      const companyId = isCompanyBound(auth) ? auth.companyId : null;
      if (isCompanyBound(auth) && !companyId) throw new DomainError('COMPANY_REQUIRED', 'This credential acts for one company: send X-Service-Company');
      const secret = newClientSecret();
      const row = await emOf(ctx).transactional(async (em) => {
        await em.execute(INTEGRATIONS_LOCK, [auth.organizationId]);
        const live = await em.count(Integration, { organizationId: auth.organizationId, revokedAt: null });
        if (live >= config.credentials.maxIntegrationsPerOrganization) {
          throw new DomainError('LIMIT_EXCEEDED', `This organization already has ${live} live integrations, the most allowed (EINV_MAX_INTEGRATIONS_PER_ORGANIZATION); revoke one first`, {
            extra: { limit: config.credentials.maxIntegrationsPerOrganization },
          });
        }
        const account = em.create(TechnicalAccount, { id: newId('technicalAccount'), name: ctx.params.name, livemode: auth.livemode, externalIssuer: null, externalSubject: null, disabledAt: null });
        em.create(Membership, { id: newId('membership'), technicalAccount: account, organizationId: auth.organizationId, role });
        const integration = em.create(Integration, {
          id: newId('integration'),
          organizationId: auth.organizationId,
          technicalAccount: account,
          name: ctx.params.name,
          clientId: newClientId(auth.livemode),
          clientSecretHash: secret.hash,
          // Sandbox callers get sandbox credentials; production callers production ones.
          livemode: auth.livemode,
          companyId,
          revokedAt: null,
        });
        await em.flush();
        return integration;
      });
      return { ...integrationView(row, role), clientSecret: secret.secret };
    }),

    listIntegrations: action(contract.listIntegrations, async (ctx) => {
      const auth = principalOf(ctx);
      const page = readPageRequest(ctx.params);
      const em = emOf(ctx);
      const rows = await em.find(
        Integration,
        { organizationId: auth.organizationId, revokedAt: null, ...(page.after ? { id: { $lt: page.after } } : {}) },
        { orderBy: { id: 'desc' }, limit: page.limit + 1 },
      );
      const memberships = await em.find(Membership, { organizationId: auth.organizationId, technicalAccount: { $in: rows.map((r) => r.technicalAccount.id) } });
      const roleOf = new Map(memberships.map((m) => [m.technicalAccount.id, m.role]));
      return toPage(rows, page, (r) => r.id, (r) => integrationView(r, roleOf.get(r.technicalAccount.id) ?? 'member'));
    }),

    getIntegration: action(contract.getIntegration, async function (this: IdentityThis, ctx) {
      const { row, role } = await this.findIntegration(ctx.params.id, principalOf(ctx).organizationId, emOf(ctx));
      return integrationView(row, role);
    }),

    revokeIntegration: action(contract.revokeIntegration, async function (this: IdentityThis, ctx) {
      const em = emOf(ctx);
      const { row, role } = await this.findIntegration(ctx.params.id, principalOf(ctx).organizationId, em);
      const now = systemClock.now();
      await em.transactional(async (tx) => {
        const integration = await tx.findOneOrFail(Integration, row.id);
        integration.revokedAt ??= now;
        const account = await tx.findOneOrFail(TechnicalAccount, row.technicalAccount.id);
        account.disabledAt ??= now;
        // Tokens already issued are checked against memberships on every call: they stop working now.
        await tx.nativeDelete(Membership, { technicalAccount: account.id });
        await tx.nativeDelete(IssuedToken, { technicalAccountId: account.id });
        await tx.flush();
        row.revokedAt = integration.revokedAt;
      });
      return integrationView(row, role);
    }),

    addTechnicalAccount: action(contract.addTechnicalAccount, async (ctx) => {
      const auth = principalOf(ctx);
      const issuer = config.jwt.issuer;
      if (!config.jwt.jwksUrl || !issuer) {
        throw new DomainError('INVALID_REQUEST', 'No external identity provider is configured (EINV_JWT_JWKS_URL); create an integration with POST /v1/integrations instead', {
          details: [{ field: 'subject', rule: 'externalProvider', message: 'No external identity provider is configured' }],
        });
      }
      const role = ctx.params.role ?? 'admin';
      assertGrantable(auth, role);
      // An external client's membership acts for every company: a one-company credential cannot grant that.
      if (isCompanyBound(auth)) {
        throw new DomainError('INSUFFICIENT_SCOPE', 'A one-company credential (a personal key) cannot make an external client a member of the whole organization; use a platform key', {
          details: [{ field: 'subject', rule: 'organizationWide', message: 'Needs an organization-wide credential' }],
        });
      }
      const { account, membership } = await emOf(ctx).transactional(async (em) => {
        let account = await em.findOne(TechnicalAccount, { externalIssuer: issuer, externalSubject: ctx.params.subject });
        if (account && account.livemode !== auth.livemode) {
          throw new DomainError('INVALID_REQUEST', `Client '${ctx.params.subject}' is registered as a ${account.livemode ? 'production' : 'sandbox'} technical account; sandbox and production use separate clients`, {
            details: [{ field: 'subject', rule: 'livemode', message: 'Registered in the other mode' }],
          });
        }
        account ??= em.create(TechnicalAccount, {
          id: newId('technicalAccount'), name: ctx.params.name, livemode: auth.livemode, externalIssuer: issuer, externalSubject: ctx.params.subject, disabledAt: null,
        });
        let membership = await em.findOne(Membership, { technicalAccount: account.id, organizationId: auth.organizationId });
        if (membership) membership.role = role;
        else membership = em.create(Membership, { id: newId('membership'), technicalAccount: account, organizationId: auth.organizationId, role });
        await em.flush();
        return { account, membership };
      });
      return technicalAccountView(account, membership);
    }),

    listTechnicalAccounts: action(contract.listTechnicalAccounts, async (ctx) => {
      const auth = principalOf(ctx);
      const page = readPageRequest(ctx.params);
      const rows = await emOf(ctx).find(
        Membership,
        { organizationId: auth.organizationId, ...(page.after ? { id: { $lt: page.after } } : {}) },
        { orderBy: { id: 'desc' }, limit: page.limit + 1, populate: ['technicalAccount'] },
      );
      return toPage(rows, page, (m) => m.id, (m) => technicalAccountView(m.technicalAccount.getEntity(), m));
    }),

    updateTechnicalAccount: action(contract.updateTechnicalAccount, async (ctx) => {
      assertGrantable(principalOf(ctx), ctx.params.role);
      const em = emOf(ctx);
      const membership = await em.findOne(Membership, { technicalAccount: ctx.params.id, organizationId: principalOf(ctx).organizationId }, { populate: ['technicalAccount'] });
      if (!membership) throw new DomainError('RESOURCE_NOT_FOUND', `Technical account '${ctx.params.id}' is not a member of this organization`);
      membership.role = ctx.params.role;
      await em.flush();
      return technicalAccountView(membership.technicalAccount.getEntity(), membership);
    }),

    removeTechnicalAccount: action(contract.removeTechnicalAccount, async (ctx) => {
      const removed = await emOf(ctx).nativeDelete(Membership, { technicalAccount: ctx.params.id, organizationId: principalOf(ctx).organizationId });
      if (!removed) throw new DomainError('RESOURCE_NOT_FOUND', `Technical account '${ctx.params.id}' is not a member of this organization`);
      return { id: ctx.params.id, removed: true as const };
    }),

    resolveToken: action(contract.resolveToken, async (ctx) => {
      const p = ctx.params;
      const em = emOf(ctx);
      let role: MembershipRole | undefined;
      let livemode: boolean;
      /** The one company a built-in token's integration is bound to, if any. */
      let boundCompanyId: string | null = null;
      if (p.kind === 'machine') {
        const membership = await em.findOne(
          Membership,
          {
            // A token names its account within its issuer only: an external provider cannot speak for a built-in account.
            technicalAccount: p.externalIssuer
              ? { externalIssuer: p.externalIssuer, externalSubject: p.subject, disabledAt: null }
              : { id: p.subject, externalIssuer: null, disabledAt: null },
            organizationId: p.organizationId,
          },
          { populate: ['technicalAccount'] },
        );
        if (!membership) throw noAccess(p.organizationId);
        if (!p.externalIssuer) {
          // A built-in token counts only if /oauth/token minted it for this account and it is still live.
          const issued = p.tokenId ? await em.findOne(IssuedToken, { jti: p.tokenId, technicalAccountId: p.subject, expiresAt: { $gt: systemClock.now() } }) : null;
          if (!issued) throw new DomainError('INVALID_TOKEN', 'The token was not issued by this service\'s token endpoint, or has been revoked');
          boundCompanyId = issued.companyId ?? null;
        }
        role = membership.role;
        livemode = membership.technicalAccount.getEntity().livemode;
      } else {
        // `_permissions` is the external identity provider's word only: the built-in issuer issues machine tokens.
        if (!p.externalIssuer) throw new DomainError('INVALID_TOKEN', 'The built-in issuer issues machine tokens only');
        const org = await call(ctx, organizationProfile, { organizationId: p.organizationId });
        if (!org) throw new DomainError('ORGANIZATION_FORBIDDEN', `Organization '${p.organizationId}' is not known to this service`);
        livemode = !org.sandbox;
      }
      let companyId: string | null = boundCompanyId;
      if (boundCompanyId && p.companyHeader && p.companyHeader !== boundCompanyId) {
        throw new DomainError('COMPANY_FORBIDDEN', `Company '${p.companyHeader}' is not one this credential may act for`);
      }
      if (p.companyHeader && !boundCompanyId) {
        const company = await call(ctx, companyOf, { organizationId: p.organizationId, companyId: p.companyHeader });
        if (!company) throw new DomainError('COMPANY_FORBIDDEN', `Company '${p.companyHeader}' is not one this credential may act for`);
        companyId = company.id;
      }
      const principal: Principal = {
        authMethod: p.kind === 'machine' ? 'client_credentials' : 'jwt',
        organizationId: p.organizationId,
        apiKeyId: null,
        userId: p.subject,
        email: p.email ?? null,
        keyType: null,
        scopes: role ? ROLE_SCOPES[role] : ['*'],
        livemode,
        companyId,
        organizationIds: p.kind === 'machine' ? [p.organizationId] : p.organizationIds,
        ...(role ? { role } : {}),
        ...(boundCompanyId ? { companyBound: true } : {}),
      };
      return principal;
    }),
  },

  created() {
    const keySecret = resolveKeySecret(config.jwt.signingKeySecret, config.dataDir);
    if (keySecret.generated) {
      const message = `EINV_OAUTH_KEY_SECRET is unset: generated a key-encryption secret for the built-in issuer's signing keys in ${keySecret.path}. Set EINV_OAUTH_KEY_SECRET (the same on every replica) and keep it apart from the database.`;
      if (process.env.NODE_ENV === 'production') this.logger.warn(message);
      else this.logger.info(message);
    }
    this.keyPolicy = {
      clockToleranceSeconds: config.jwt.clockToleranceSeconds,
      maxAgeDays: config.jwt.signingKeyMaxAgeDays,
      secret: keySecret.secret,
    } satisfies KeyPolicy;
  },

  async started() {
    // Before anything signs: keys written in clear by older versions are encrypted, keys sealed with
    // the generated secret move to EINV_OAUTH_KEY_SECRET once it is set.
    const earlier = config.jwt.signingKeySecret ? [generatedKeySecret(config.dataDir)].filter((s): s is string => !!s && s !== this.keyPolicy.secret) : [];
    const report = await secureKeysAtRest(databaseOf(this.broker).em.fork() as ReturnType<typeof emOf>, systemClock.now(), this.keyPolicy, earlier);
    if (report.sealed.length) this.logger.warn(`Encrypted ${report.sealed.length} signing key(s) stored in clear: ${report.sealed.join(', ')}`);
    if (report.resealed.length) this.logger.info(`Re-encrypted ${report.resealed.length} signing key(s) with EINV_OAUTH_KEY_SECRET: ${report.resealed.join(', ')}`);
    if (report.unreadable.length) {
      this.logger.warn(`Signing key(s) ${report.unreadable.join(', ')} cannot be decrypted with the configured secret; they only verify tokens until they retire${report.rotated ? ' (a new signing key was made)' : ''}`);
    }
  },

  methods: {
    async findIntegration(id: string, organizationId: string, em: ReturnType<typeof emOf>) {
      const row = await em.findOne(Integration, { id, organizationId, revokedAt: null });
      if (!row) throw new DomainError('RESOURCE_NOT_FOUND', `Integration '${id}' was not found`);
      const membership = await em.findOne(Membership, { technicalAccount: row.technicalAccount.id, organizationId });
      return { row, role: membership?.role ?? 'member' };
    },
  },
};

interface IdentityThis {
  keyPolicy: KeyPolicy;
  findIntegration(id: string, organizationId: string, em: ReturnType<typeof emOf>): Promise<{ row: Integration; role: MembershipRole }>;
}

export default IdentityService;
