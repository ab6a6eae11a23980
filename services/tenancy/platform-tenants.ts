/**
 * Platform operation, tenancy's side: a platform (or white-label) organization's managed companies
 * are its tenants. It onboards them (company and tenant key in one step; publication after),
 * lists them and their keys, revokes tenant keys, suspends and resumes tenants, and keeps its
 * white-label settings (branding, a custom domain verified by a DNS TXT challenge, defaults for
 * its tenants). Sandbox organizations past their expiry are removed here once the other services
 * have wiped their own rows.
 */
import { randomBytes } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import type { Context } from 'moleculer';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { systemClock } from '../shared/clock.ts';
import { loadConfig } from '../shared/config.ts';
import { hasScope, principalOf, requireOrganizationWide, type Principal, type RequestMeta } from '../shared/auth.ts';
import { readPageRequest, toPage, type Page } from '../shared/pagination.ts';
import { cancelJobs } from '../shared/scheduler/scheduler.ts';
import { planRateLimits, PLAN_DOCUMENT_QUOTAS } from '../limits/limits.contract.ts';
import { Organization } from './organization.entity.ts';
import { Company } from './company.entity.ts';
import { ApiKey } from './api-key.entity.ts';
import { generateKey } from './api-key-secrets.ts';
import { apiKeyView, companyView } from './views.ts';
import { createCompany, companyNotFound, registerCompany } from './companies.ts';
import {
  API_KEY_REVOKED_EVENT, COMPANY_SUSPENDED_EVENT, CUSTOM_DOMAIN_CHANGED_EVENT, PUBLISH_COMPANY_JOB, SANDBOX_EXPIRY_JOB, VERIFY_COMPANY_JOB,
  type ApiKeyRevoked, type Branding, type CompanySuspended, type CustomDomainView, type ManagedCompanyView, type OnboardParams, type Onboarded,
  type OrganizationSettings, type Plan, type PlatformDefaults, type PlatformSettingsView, type PublicBranding, type UpdatePlatformSettingsParams,
} from './tenancy.contract.ts';
import type { Scope } from '../shared/contract.ts';

/** Serialises key creations per organization, so the cap on live keys holds under concurrency (as createApiKey). */
export const API_KEYS_LOCK = 'select pg_advisory_xact_lock(hashtext(\'einv.tenancy.api-keys\'), hashtext(?))';
/** Countries an `autoCompliance` map may name at most. */
const MAX_AUTO_COMPLIANCE_COUNTRIES = 60;
/** The TXT record that proves control of a custom domain. */
const CHALLENGE_LABEL = '_svc-challenge';

// ---------- settings ----------

function brandingOf(settings: OrganizationSettings | null | undefined): Branding {
  const b = settings?.branding ?? {};
  return { displayName: b.displayName ?? null, logoUrl: b.logoUrl ?? null, primaryColor: b.primaryColor ?? null, supportEmail: b.supportEmail ?? null };
}

export function defaultsOf(settings: OrganizationSettings | null | undefined): PlatformDefaults {
  return { preferredFormat: settings?.defaults?.preferredFormat ?? null, autoCompliance: { ...settings?.defaults?.autoCompliance } };
}

/** The records a white-label customer creates: the host points at this platform, and a TXT proves who asked. */
export function customDomainView(domain: NonNullable<OrganizationSettings['customDomain']>): CustomDomainView {
  const target = loadConfig().customDomainTarget;
  return {
    domain: domain.domain,
    status: domain.verifiedAt ? 'verified' : 'pending_verification',
    verifiedAt: domain.verifiedAt ?? null,
    dnsRecords: [
      { type: 'CNAME', name: domain.domain, value: target, purpose: 'Routes the domain to this platform' },
      { type: 'TXT', name: `${CHALLENGE_LABEL}.${domain.domain}`, value: domain.verificationToken, purpose: 'Proves the organization controls the domain' },
    ],
    tls: { status: 'external', detail: `Terminate TLS for ${domain.domain} in front of the gateway (load balancer or reverse proxy); this deployment runs no ACME client` },
    requestedAt: domain.requestedAt,
  };
}

function settingsView(org: Organization): PlatformSettingsView {
  const config = loadConfig();
  const plan = org.plan as Plan;
  return {
    organizationId: org.id,
    plan,
    branding: brandingOf(org.settings),
    customDomain: org.settings?.customDomain ? customDomainView(org.settings.customDomain) : null,
    defaults: defaultsOf(org.settings),
    quotas: { requestsPerMinute: planRateLimits(config.rateLimitOverrides)[plan], documentsPerMonth: org.sandbox ? null : PLAN_DOCUMENT_QUOTAS[plan] },
  };
}

export async function platformSettings(ctx: Context, em: EntityManager): Promise<PlatformSettingsView> {
  const auth = principalOf(ctx);
  requireOrganizationWide(auth);
  return settingsView(await em.findOneOrFail(Organization, auth.organizationId));
}

const domainInUse = (domain: string) => new DomainError('DOMAIN_IN_USE', `Another organization already serves ${domain}`, { details: [{ field: 'customDomain', rule: 'unique', message: 'already served for another organization' }] });

/** The hosts that are this platform's own: never a customer's custom domain. */
function ownHosts(): Set<string> {
  const config = loadConfig();
  return new Set([config.customDomainTarget, new URL(config.publicUrl).hostname].map((h) => h.toLowerCase()));
}

/** Branding and a custom domain are what white-label adds to platform operation (spec: Multi-tenant operation). */
function requireWhiteLabel(org: Organization, what: string): void {
  if (org.plan !== 'white_label') {
    throw new DomainError('WHITE_LABEL_ONLY', `${what} belong${what.endsWith('s') ? '' : 's'} to white-label organizations; this one is on the ${org.plan} plan (defaults are open to every plan)`, {
      details: [{ field: what === 'Custom domains' ? 'customDomain' : 'branding', rule: 'whiteLabel', message: 'white-label plan only' }],
    });
  }
}

export async function updatePlatformSettings(ctx: Context<UpdatePlatformSettingsParams>, em: EntityManager): Promise<PlatformSettingsView> {
  const auth = principalOf(ctx);
  requireOrganizationWide(auth);
  const p = ctx.params;
  const org = await em.findOneOrFail(Organization, auth.organizationId);
  if (p.branding) requireWhiteLabel(org, 'Branding');
  if (p.customDomain !== undefined) requireWhiteLabel(org, 'Custom domains');
  const settings: OrganizationSettings = structuredClone(org.settings ?? {});
  if (p.branding) {
    const branding: Record<string, string> = { ...settings.branding } as Record<string, string>;
    for (const [field, value] of Object.entries(p.branding)) {
      if (value === null) delete branding[field];
      else if (value !== undefined) branding[field] = value;
    }
    settings.branding = branding;
  }
  if (p.defaults) {
    const defaults = { ...settings.defaults };
    if (p.defaults.preferredFormat === null) delete defaults.preferredFormat;
    else if (p.defaults.preferredFormat !== undefined) defaults.preferredFormat = p.defaults.preferredFormat;
    if (p.defaults.autoCompliance) {
      const merged = { ...defaults.autoCompliance, ...p.defaults.autoCompliance };
      if (Object.keys(merged).length > MAX_AUTO_COMPLIANCE_COUNTRIES) {
        throw new DomainError('INVALID_REQUEST', `defaults.autoCompliance names at most ${MAX_AUTO_COMPLIANCE_COUNTRIES} countries`, { details: [{ field: 'defaults.autoCompliance', rule: 'maxProperties', message: `at most ${MAX_AUTO_COMPLIANCE_COUNTRIES} countries` }] });
      }
      defaults.autoCompliance = merged;
    }
    settings.defaults = defaults;
  }
  const changedDomains: string[] = [];
  const current = settings.customDomain?.domain ?? null;
  if (p.customDomain !== undefined && p.customDomain !== current) {
    // The host stops being served at once; a new one is served once its TXT challenge is verified.
    if (org.customDomain) changedDomains.push(org.customDomain);
    org.customDomain = null;
    if (p.customDomain === null) {
      settings.customDomain = null;
    } else {
      const domain = p.customDomain;
      if (ownHosts().has(domain)) throw new DomainError('INVALID_REQUEST', `${domain} is this platform's own host, not a custom domain`, { details: [{ field: 'customDomain', rule: 'notOwnHost', message: 'the platform\'s own host' }] });
      if (await em.count(Organization, { customDomain: domain, id: { $ne: org.id } })) throw domainInUse(domain);
      settings.customDomain = { domain, verificationToken: `svc-verify-${randomBytes(16).toString('hex')}`, requestedAt: systemClock.now().toISOString(), verifiedAt: null };
    }
  }
  org.settings = settings;
  await em.flush();
  if (changedDomains.length) await ctx.broadcast(CUSTOM_DOMAIN_CHANGED_EVENT, { domains: changedDomains });
  return settingsView(org);
}

/** The TXT strings published under a name ([] when the name does not exist). */
async function txtRecords(name: string): Promise<string[]> {
  const resolver = new Resolver({ timeout: 3_000, tries: 2 });
  const servers = loadConfig().customDomainDnsServers;
  if (servers.length) resolver.setServers(servers);
  try {
    return (await resolver.resolveTxt(name)).map((chunks) => chunks.join(''));
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'ENOTFOUND' || code === 'ENODATA' || code === 'ENONAME' || code === 'NXDOMAIN') return [];
    throw new DomainError('UPSTREAM_UNAVAILABLE', `The DNS could not be asked for ${name} (${code ?? 'error'}); verify again later`, { retryAfter: 30 });
  }
}

/** POST /v1/platform/settings/custom-domain/verify: the TXT challenge found, the host is this organization's. */
export async function verifyCustomDomain(ctx: Context, em: EntityManager): Promise<PlatformSettingsView> {
  const auth = principalOf(ctx);
  requireOrganizationWide(auth);
  const org = await em.findOneOrFail(Organization, auth.organizationId);
  requireWhiteLabel(org, 'Custom domains');
  const claim = org.settings?.customDomain;
  if (!claim) throw new DomainError('INVALID_TRANSITION', 'No custom domain is set: PATCH /v1/platform/settings with customDomain first', { extra: { allowedTransitions: [] } });
  if (claim.verifiedAt && org.customDomain === claim.domain) return settingsView(org);
  const name = `${CHALLENGE_LABEL}.${claim.domain}`;
  const found = await txtRecords(name);
  if (!found.includes(claim.verificationToken)) {
    throw new DomainError('DOMAIN_NOT_VERIFIED', `The TXT record ${name} does not hold this domain's challenge yet${found.length ? ` (found ${found.length} other value${found.length > 1 ? 's' : ''})` : ''}; create it as the settings list, then verify again`, {
      details: [{ field: 'customDomain', rule: 'dnsChallenge', message: `TXT ${name} = ${claim.verificationToken} not found` }],
    });
  }
  org.customDomain = claim.domain;
  org.settings = { ...org.settings, customDomain: { ...claim, verifiedAt: systemClock.now().toISOString() } };
  try {
    await em.flush();
  } catch (err) {
    // Another organization verified the same host first: the unique index keeps one.
    if ((err as { name?: string }).name === 'UniqueConstraintViolationException') throw domainInUse(claim.domain);
    throw err;
  }
  await ctx.broadcast(CUSTOM_DOMAIN_CHANGED_EVENT, { domains: [claim.domain] });
  return settingsView(org);
}

/** A request's host without its port, lowercase. */
export function hostName(host: string | undefined): string | undefined {
  const name = host?.trim().toLowerCase().replace(/:\d+$/, '');
  return name || undefined;
}

export async function hostBranding(ctx: Context, em: EntityManager): Promise<PublicBranding> {
  const host = hostName((ctx.meta as RequestMeta).host);
  const org = host ? await em.findOne(Organization, { customDomain: host }) : null;
  if (!org || !host) throw new DomainError('RESOURCE_NOT_FOUND', `${host ?? 'This host'} is not the custom domain of a white-label service`);
  return { organizationId: org.id, domain: host, branding: brandingOf(org.settings) };
}

// ---------- tenants ----------

async function liveTenantKeyCounts(em: EntityManager, companyIds: string[]): Promise<Map<string, number>> {
  if (!companyIds.length) return new Map();
  const rows = await em.execute<Array<{ company_id: string; n: string }>>(
    `select company_id, count(*) as n from api_keys where company_id in (${companyIds.map(() => '?').join(', ')}) and revoked_at is null and (expires_at is null or expires_at > ?) group by company_id`,
    [...companyIds, systemClock.now()], 'all');
  return new Map(rows.map((r) => [r.company_id, Number(r.n)]));
}

function managedView(c: Company, keys: number): ManagedCompanyView {
  return { ...companyView(c), suspended: !!c.suspendedAt, suspendedAt: c.suspendedAt?.toISOString() ?? null, tenantKeys: keys };
}

export async function listManagedCompanies(ctx: Context<{ limit?: number; cursor?: string; status?: 'active' | 'suspended' }>, em: EntityManager): Promise<Page<ManagedCompanyView>> {
  const auth = principalOf(ctx);
  requireOrganizationWide(auth);
  const page = readPageRequest(ctx.params);
  const where: Record<string, unknown> = { organization: auth.organizationId, deletedAt: null };
  if (ctx.params.status) where.suspendedAt = ctx.params.status === 'suspended' ? { $ne: null } : null;
  if (page.after) where.id = { $lt: page.after };
  const rows = await em.find(Company, where, { orderBy: { id: 'desc' }, limit: page.limit + 1 });
  const keys = await liveTenantKeyCounts(em, rows.map((r) => r.id));
  return toPage(rows, page, (r) => r.id, (r) => managedView(r, keys.get(r.id) ?? 0));
}

export async function listTenantKeys(ctx: Context<{ limit?: number; cursor?: string; companyId?: string }>, em: EntityManager) {
  const auth = principalOf(ctx);
  requireOrganizationWide(auth);
  const page = readPageRequest(ctx.params);
  const where: Record<string, unknown> = { organization: auth.organizationId, revokedAt: null, company: ctx.params.companyId ?? { $ne: null } };
  if (page.after) where.id = { $lt: page.after };
  const rows = await em.find(ApiKey, where, { orderBy: { id: 'desc' }, limit: page.limit + 1 });
  return toPage(rows, page, (r) => r.id, apiKeyView);
}

export async function revokeTenantKey(ctx: Context<{ id: string }>, em: EntityManager) {
  const auth = principalOf(ctx);
  requireOrganizationWide(auth);
  const row = await em.findOne(ApiKey, { id: ctx.params.id, organization: auth.organizationId, company: { $ne: null } });
  if (!row) throw new DomainError('RESOURCE_NOT_FOUND', `Tenant key '${ctx.params.id}' was not found`);
  row.revokedAt ??= systemClock.now();
  await em.flush();
  const revoked: ApiKeyRevoked = { apiKeyId: row.id, organizationId: auth.organizationId };
  await ctx.broadcast(API_KEY_REVOKED_EVENT, revoked);
  return { id: row.id, revoked: true as const, revokedAt: row.revokedAt.toISOString() };
}

export async function setSuspended(ctx: Context<{ id: string }>, em: EntityManager, suspended: boolean): Promise<ManagedCompanyView> {
  const auth = principalOf(ctx);
  requireOrganizationWide(auth);
  const company = await em.findOne(Company, { id: ctx.params.id, organization: auth.organizationId, deletedAt: null });
  if (!company) throw companyNotFound(ctx.params.id);
  if (suspended) company.suspendedAt ??= systemClock.now();
  else company.suspendedAt = null;
  await em.flush();
  // Awaited so this replica's gateway has dropped the tenant's principals before the caller hears it.
  const event: CompanySuspended = { companyId: company.id, organizationId: auth.organizationId };
  await ctx.broadcast(COMPANY_SUSPENDED_EVENT, event);
  return managedView(company, (await liveTenantKeyCounts(em, [company.id])).get(company.id) ?? 0);
}

/** The caller's scopes the tenant key may have: what it asks, never beyond the caller's. */
function tenantScopes(auth: Principal, asked: Scope[] | undefined): Scope[] {
  const scopes = asked?.length ? asked : (['*'] as Scope[]);
  const beyond = scopes.filter((s) => !hasScope(auth.scopes, s));
  if (beyond.length) {
    throw new DomainError('INSUFFICIENT_SCOPE', `A tenant key cannot hold scopes the calling credential does not: ${beyond.join(', ')}`, {
      details: beyond.map((s) => ({ field: 'apiKey.scopes', rule: 'subset', message: `Scope '${s}' is not held by the calling credential` })),
    });
  }
  return scopes;
}

/** Removes a company created moments ago, with its keys and jobs (an onboarding that could not finish). */
async function removeCompany(em: EntityManager, companyId: string): Promise<boolean> {
  return em.transactional(async (tx) => {
    await cancelJobs(tx, [VERIFY_COMPANY_JOB, PUBLISH_COMPANY_JOB], companyId);
    await tx.execute('delete from api_keys where company_id = ?', [companyId], 'run');
    const res = await tx.execute<{ affectedRows?: number }>('delete from companies where id = ?', [companyId], 'run');
    return (res.affectedRows ?? 0) > 0;
  });
}

export async function onboardTenant(ctx: Context<OnboardParams>, em: EntityManager): Promise<Onboarded> {
  const auth = principalOf(ctx);
  requireOrganizationWide(auth);
  const p = ctx.params;
  const scopes = tenantScopes(auth, p.apiKey?.scopes);
  const company = await createCompany(ctx, em, { vatNumber: p.vatNumber, ...(p.name ? { name: p.name } : {}), ...(p.address ? { address: p.address } : {}), ...(p.metadata ? { metadata: p.metadata } : {}) });
  try {
    const caller = auth.apiKeyId ? await em.findOne(ApiKey, auth.apiKeyId) : null;
    const secret = generateKey('personal', auth.livemode);
    const config = loadConfig();
    const key = await em.fork().transactional(async (tx) => {
      await tx.execute(API_KEYS_LOCK, [auth.organizationId]);
      const now = systemClock.now();
      const live = await tx.count(ApiKey, { organization: auth.organizationId, revokedAt: null, $or: [{ expiresAt: null }, { expiresAt: { $gt: now } }] });
      if (live >= config.credentials.maxApiKeysPerOrganization) {
        throw new DomainError('LIMIT_EXCEEDED', `This organization already has ${live} live API keys, the most allowed (EINV_MAX_API_KEYS_PER_ORGANIZATION); revoke one first`, { extra: { limit: config.credentials.maxApiKeysPerOrganization } });
      }
      const row = tx.create(ApiKey, {
        id: newId('apiKey'), organization: auth.organizationId, company: company.id, name: p.apiKey?.name ?? `${company.name} (tenant)`,
        keyPrefix: secret.keyPrefix, keyHash: secret.keyHash, keyType: 'personal', scopes, livemode: auth.livemode, email: auth.email,
        // A sandbox tenant key never outlives the sandbox key that minted it.
        expiresAt: caller?.expiresAt ?? null,
      });
      await tx.flush();
      return row;
    });
    return { company: companyView(company), apiKey: { ...apiKeyView(key), key: secret.key } };
  } catch (err) {
    await removeCompany(em.fork(), company.id);
    throw err;
  }
}

export async function abandonTenant(ctx: Context<{ companyId: string }>, em: EntityManager): Promise<{ removed: boolean }> {
  const auth = principalOf(ctx);
  const company = await em.findOne(Company, { id: ctx.params.companyId, organization: auth.organizationId });
  if (!company) return { removed: false };
  return { removed: await removeCompany(em.fork(), company.id) };
}

export async function publishTenant(ctx: Context<{ companyId: string }>, em: EntityManager) {
  const auth = principalOf(ctx);
  const company = await em.findOne(Company, { id: ctx.params.companyId, organization: auth.organizationId, deletedAt: null });
  if (!company) throw companyNotFound(ctx.params.companyId);
  if (company.status === 'active') await registerCompany(ctx, em, company);
  else if (company.registrationStatus !== 'active') {
    // The registry could not check it yet: registered now, published by the re-check that verifies it (companies.ts verifyPending).
    company.registrationStatus = 'active';
    company.registeredAt = systemClock.now();
    await em.flush();
  }
  return companyView(company);
}

// ---------- sandbox expiry ----------

export async function removeSandboxOrganization(ctx: Context<{ organizationId: string }>, em: EntityManager): Promise<{ removed: boolean; companyIds: string[] }> {
  const org = await em.findOne(Organization, { id: ctx.params.organizationId, sandbox: true });
  if (!org?.expiresAt || org.expiresAt > systemClock.now()) return { removed: false, companyIds: [] };
  const companyIds = (await em.find(Company, { organization: org.id }, { fields: ['id'] })).map((c) => c.id);
  const keys = await em.find(ApiKey, { organization: org.id }, { fields: ['id'] });
  await em.transactional(async (tx) => {
    if (companyIds.length) {
      const marks = companyIds.map(() => '?').join(', ');
      await tx.execute(`delete from scheduled_jobs where company_id in (${marks}) or (kind in (?, ?) and ref in (${marks}))`, [...companyIds, VERIFY_COMPANY_JOB, PUBLISH_COMPANY_JOB, ...companyIds], 'run');
    }
    await tx.execute('delete from scheduled_jobs where kind = ? and ref = ?', [SANDBOX_EXPIRY_JOB, org.id], 'run');
    // Companies, keys and whatever else still names the organization go with it (foreign keys cascade).
    await tx.execute('delete from organizations where id = ?', [org.id], 'run');
  });
  // Gateways forget its keys at once, as for a revocation.
  for (const key of keys) await ctx.broadcast(API_KEY_REVOKED_EVENT, { apiKeyId: key.id, organizationId: org.id } satisfies ApiKeyRevoked);
  return { removed: true, companyIds };
}
