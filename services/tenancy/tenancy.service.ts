import type { Context, Service, ServiceSchema } from 'moleculer';
import { OrmMixin, emOf } from '../../mixins/orm.mixin.ts';
import { OutboxMixin, type OutboxEventInput } from '../../mixins/outbox.mixin.ts';
import { SchedulerMixin } from '../../mixins/scheduler.mixin.ts';
import { DomainError } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { systemClock } from '../shared/clock.ts';
import { principalOf, hasScope, isCompanyBound, type Principal } from '../shared/auth.ts';
import { readPageRequest, toPage } from '../shared/pagination.ts';
import { implement as action } from '../shared/contract.ts';
import { Organization } from './organization.entity.ts';
import { Company } from './company.entity.ts';
import { ApiKey } from './api-key.entity.ts';
import { generateKey, hashKey } from './api-key-secrets.ts';
import { apiKeyView, companyView, slugify } from './views.ts';
import { participantAliases } from '../../mappings/identifiers/peppol-id.ts';
import { countryOfVat } from '../../mappings/identifiers/vat.ts';
import { askRegistry } from './company-registry.ts';
import * as contract from './tenancy.contract.ts';
import { loadConfig } from '../shared/config.ts';
import { testReachability } from './reachability.ts';
import { createCompany, registerCompany, prepareMigration, deleteCompany, verifyPending, publishRegistrations, unpublishRegistrations, companyNotFound } from './companies.ts';
import { importOne, checkImportItem } from './company-import.ts';
import * as platform from './platform-tenants.ts';
import { scheduleJobs } from '../shared/scheduler/scheduler.ts';
import type { EntityManager } from '@mikro-orm/postgresql';
import { likeContaining, likeLiteral } from '../shared/pg-text.ts';

const config = loadConfig();

const API_KEYS_LOCK = platform.API_KEYS_LOCK;

const companyForbidden = (id: string) => new DomainError('COMPANY_FORBIDDEN', `Company '${id}' is not one this credential may act for`);
const companySuspended = (id: string) => new DomainError('COMPANY_SUSPENDED', `Company '${id}' is suspended by its platform; its keys work again once it is resumed`);

async function findCompanyOf(ctx: Context, organizationId: string, ref: string) {
  const em = emOf(ctx);
  if (ref.startsWith('vat:')) return em.findOne(Company, { organization: organizationId, vatNumber: ref.slice(4).toUpperCase(), deletedAt: null });
  if (ref.startsWith('peppol:')) return em.findOne(Company, { organization: organizationId, peppolId: ref.slice(7), deletedAt: null });
  return em.findOne(Company, { id: ref, organization: organizationId, deletedAt: null });
}

/** A company the caller may change: one of its organization's, and its own when the credential is bound to one. */
async function companyToChange(ctx: Context, ref: string): Promise<Company> {
  const auth = principalOf(ctx);
  if (auth.companyId && auth.companyId !== ref) throw companyForbidden(ref);
  const company = await findCompanyOf(ctx, auth.organizationId, ref);
  if (!company) throw companyNotFound(ref);
  return company;
}

const companyRef = (c: Company): contract.CompanyRef => ({
  id: c.id, organizationId: c.organization.id, name: c.name, country: c.country, vatNumber: c.vatNumber ?? null,
  registrationNumber: c.registrationNumber ?? null, peppolId: c.peppolId ?? null, status: c.status, metadata: c.metadata ?? null,
});

interface NewKeyRow {
  organizationId: string;
  company: Company | null;
  name: string;
  keyType: ApiKey['keyType'];
  scopes: string[];
  livemode: boolean;
  email: string | null;
  expiresAt: Date | null;
}

/** Stores a new key under the organization's cap on live keys (serialised per organization); the full key is in the answer only. */
async function storeNewKey(em: EntityManager, input: NewKeyRow): Promise<contract.ApiKeyView & { key: string }> {
  const secret = generateKey(input.keyType, input.livemode);
  const now = systemClock.now();
  return em.transactional(async (tx) => {
    await tx.execute(API_KEYS_LOCK, [input.organizationId]);
    const live = await tx.count(ApiKey, { organization: input.organizationId, revokedAt: null, $or: [{ expiresAt: null }, { expiresAt: { $gt: now } }] });
    if (live >= config.credentials.maxApiKeysPerOrganization) {
      throw new DomainError('LIMIT_EXCEEDED', `This organization already has ${live} live API keys, the most allowed (EINV_MAX_API_KEYS_PER_ORGANIZATION); revoke one first`, {
        extra: { limit: config.credentials.maxApiKeysPerOrganization },
      });
    }
    const row = tx.create(ApiKey, {
      id: newId('apiKey'),
      organization: input.organizationId,
      company: input.company,
      name: input.name,
      keyPrefix: secret.keyPrefix,
      keyHash: secret.keyHash,
      keyType: input.keyType,
      scopes: input.scopes,
      livemode: input.livemode,
      email: input.email,
      expiresAt: input.expiresAt,
    });
    await tx.flush();
    return { ...apiKeyView(row), key: secret.key };
  });
}

/** Revokes a key of the organization (idempotent) and tells every gateway to drop it; null when there is no such key. */
async function revokeKey(ctx: Context, organizationId: string, id: string): Promise<ApiKey | null> {
  const em = emOf(ctx);
  const row = await em.findOne(ApiKey, { id, organization: organizationId });
  if (!row) return null;
  row.revokedAt ??= systemClock.now();
  await em.flush();
  // Awaited so this replica's gateway has dropped the key before the caller hears "revoked".
  const revoked: contract.ApiKeyRevoked = { apiKeyId: row.id, organizationId };
  await ctx.broadcast(contract.API_KEY_REVOKED_EVENT, revoked);
  return row;
}

type TenancyThis = Service & { recordEvent(ctx: Context, em: EntityManager, input: OutboxEventInput): Promise<unknown> };

const TenancyService: ServiceSchema = {
  name: 'tenancy',
  mixins: [OrmMixin, OutboxMixin, SchedulerMixin({
    [contract.VERIFY_COMPANY_JOB]: { batch: 10, handle: verifyPending },
    [contract.PUBLISH_COMPANY_JOB]: { batch: 20, handle: publishRegistrations },
    [contract.UNPUBLISH_COMPANY_JOB]: { batch: 20, handle: unpublishRegistrations },
  })],

  actions: {
    organizationProfile: action(contract.organizationProfile, async (ctx) => {
      const org = await emOf(ctx).findOne(Organization, ctx.params.organizationId, { fields: ['id', 'plan', 'sandbox'] });
      return org ? { organizationId: org.id, plan: org.plan, sandbox: org.sandbox } : null;
    }),

    notificationContacts: action(contract.notificationContacts, async (ctx) => {
      const { organizationId, livemode, companyId } = ctx.params;
      const em = emOf(ctx);
      const org = await em.findOne(Organization, organizationId, { fields: ['id', 'name', 'settings'] });
      if (!org) return { organizationName: null, emails: [], source: 'none' as const };
      const now = systemClock.now();
      const keys = await em.find(ApiKey, {
        organization: organizationId, livemode, revokedAt: null, email: { $ne: null }, $or: [{ expiresAt: null }, { expiresAt: { $gt: now } }],
      }, { fields: ['email', 'scopes', 'company'], orderBy: { createdAt: 'asc' }, limit: 500 });
      // A company's key hears about its own company's webhooks only; organization-wide keys about all of them.
      const concerned = keys.filter((k) => (!k.company || (companyId && k.company.id === companyId)) && hasScope(k.scopes as contract.ApiKeyView['scopes'], 'receive'));
      const emails = [...new Set(concerned.map((k) => k.email!.trim().toLowerCase()))].slice(0, 20);
      if (emails.length) return { organizationName: org.name, emails, source: 'api_keys' as const };
      const support = org.settings?.branding?.supportEmail;
      return support ? { organizationName: org.name, emails: [support], source: 'support_email' as const } : { organizationName: org.name, emails: [], source: 'none' as const };
    }),

    companyOf: action(contract.companyOf, async (ctx) => {
      const company = await emOf(ctx).findOne(Company, { id: ctx.params.companyId, organization: ctx.params.organizationId, deletedAt: null });
      return company ? companyRef(company) : null;
    }),

    findParticipant: action(contract.findParticipant, async (ctx) => {
      const { participant, livemode } = ctx.params;
      const where: Record<string, unknown> = { organization: { sandbox: !livemode }, status: 'active', deletedAt: null };
      if (participant.companyId) where.id = participant.companyId;
      else if (participant.addressingIdentifier) {
        const siren = participant.addressingIdentifier.slice(0, 9);
        where.$or = [{ registrationNumber: { $in: [participant.addressingIdentifier, siren] } }, { siret: participant.addressingIdentifier }, { peppolId: `0009:${siren}` }];
      } else if (participant.peppolId) where.peppolId = { $in: participantAliases(participant.peppolId) };
      else return null;
      const company = await emOf(ctx).findOne(Company, where);
      return company ? companyRef(company) : null;
    }),

    registeredParticipant: action(contract.registeredParticipant, async (ctx) => {
      const company = await emOf(ctx).findOne(Company, {
        peppolId: { $ilike: likeLiteral(ctx.params.peppolId) },
        organization: { sandbox: !ctx.params.livemode }, status: 'active', registrationStatus: 'active', deletedAt: null,
      });
      return company ? companyRef(company) : null;
    }),

    searchParticipants: action(contract.searchParticipants, async (ctx) => {
      const { query, country, livemode, limit, after } = ctx.params;
      const where: Record<string, unknown> = { organization: { sandbox: !livemode }, status: 'active', registrationStatus: 'active', deletedAt: null, peppolId: { $ne: null } };
      if (country) where.country = country;
      if (after) where.id = { $gt: after };
      if (query?.trim()) {
        const like = likeContaining(query.trim());
        where.$or = [{ name: { $ilike: like } }, { peppolId: { $ilike: like } }];
      }
      return (await emOf(ctx).find(Company, where, { orderBy: { id: 'asc' }, limit })).map(companyRef);
    }),

    frenchCompanies: action(contract.frenchCompanies, async (ctx) => {
      const { livemode, siren, siret, name, postalCode, locality, limit, offset } = ctx.params;
      const like = (m: contract.TextMatch) => (m.op === 'strict' ? m.value : m.op === 'startWith' ? `${likeLiteral(m.value)}%` : likeContaining(m.value));
      const text = (m: contract.TextMatch) => (m.op === 'strict' ? { $ilike: likeLiteral(m.value) } : { $ilike: like(m) });
      const and: Array<Record<string, unknown>> = [
        { $or: [{ siret: { $ne: null } }, { country: 'FR' }] },
      ];
      if (siren) and.push({ $or: [{ siret: { $like: `${siren}%` } }, { registrationNumber: siren }, { peppolId: { $in: [`0009:${siren}`, `0002:${siren}`] } }] });
      if (siret) and.push({ siret });
      if (name) and.push({ $or: [{ name: text(name) }, { legalName: text(name) }] });
      if (postalCode) and.push({ address: { postalCode: postalCode.op === 'strict' ? postalCode.value : { $like: `${likeLiteral(postalCode.value)}%` } } });
      if (locality) and.push({ address: { city: text(locality) } });
      const where = { organization: { sandbox: !livemode }, status: 'active', registrationStatus: 'active', deletedAt: null, $and: and } as const;
      const [rows, total] = await emOf(ctx).findAndCount(Company, where as never, { orderBy: { id: 'asc' }, limit, offset });
      return {
        total,
        rows: rows.map((c) => ({
          id: c.id, name: c.name, legalName: c.legalName ?? null, siret: c.siret ?? null, registrationNumber: c.registrationNumber ?? null, peppolId: c.peppolId ?? null,
          vatNumber: c.vatNumber ?? null, isPublic: c.isPublic, address: c.address ?? null, metadata: c.metadata ?? null,
        })),
      };
    }),

    lookupRegistry: action(contract.lookupRegistry, async (ctx) => {
      const { vatNumber, livemode } = ctx.params;
      const answer = await askRegistry(ctx, vatNumber, countryOfVat(vatNumber) ?? vatNumber.slice(0, 2), livemode);
      if (answer.source === null) return { source: null, status: 'no_registry', name: null, registrationNumber: null };
      if ('unavailable' in answer) return { source: answer.source, status: 'unavailable', name: null, registrationNumber: null };
      const r = answer.result;
      return { source: answer.source, status: r.status, name: r.status === 'not_found' ? null : r.name ?? null, registrationNumber: r.status === 'active' ? r.registrationNumber ?? null : null };
    }),

    companiesByIds: action(contract.companiesByIds, async (ctx) => {
      if (!ctx.params.ids.length) return [];
      return (await emOf(ctx).find(Company, { id: { $in: [...new Set(ctx.params.ids)] } })).map(companyRef);
    }),

    authenticateKey: action(contract.authenticateKey, async (ctx) => {
      const em = emOf(ctx);
      const row = await em.findOne(ApiKey, { keyHash: hashKey(ctx.params.key) }, { populate: ['company'] });
      if (!row) throw new DomainError('INVALID_TOKEN', 'The API key is not recognised');
      if (row.revokedAt) throw new DomainError('REVOKED_KEY', 'This API key has been revoked');
      if (row.expiresAt && row.expiresAt <= systemClock.now()) throw new DomainError('EXPIRED_TOKEN', 'This API key has expired; bootstrap a new sandbox key');

      let companyId = row.company?.id ?? null;
      const header = ctx.params.companyHeader;
      if (header) {
        const company = await em.findOne(Company, { id: header, organization: row.organization.id, deletedAt: null });
        // A company of another organization is refused the same way as an unknown one: no existence leak.
        if (!company) throw companyForbidden(header);
        if (row.keyType === 'personal' && companyId && companyId !== company.id) throw companyForbidden(header);
        if (company.suspendedAt) throw companySuspended(company.id);
        companyId = company.id;
      } else if (row.keyType !== 'personal') {
        companyId = null;
      } else if (row.company?.getEntity().suspendedAt) {
        throw companySuspended(row.company.id);
      }
      const principal: Principal = {
        authMethod: 'api_key',
        organizationId: row.organization.id,
        apiKeyId: row.id,
        userId: null,
        email: row.email ?? null,
        keyType: row.keyType,
        scopes: row.scopes as Principal['scopes'],
        livemode: row.livemode,
        companyId,
      };
      return { principal, expiresAt: row.expiresAt?.toISOString() ?? null };
    }),

    me: action(contract.me, async (ctx) => {
      const auth = principalOf(ctx);
      const em = emOf(ctx);
      const org = await em.findOneOrFail(Organization, auth.organizationId);
      // JWT callers: every organization their token grants that this service knows, in claim order.
      const ids = auth.organizationIds ?? [org.id];
      const known = new Map((await em.find(Organization, { id: { $in: ids } })).map((o) => [o.id, o]));
      const granted = ids.filter((id) => known.has(id));
      return {
        authMethod: auth.authMethod,
        userId: auth.userId,
        email: auth.email,
        keyType: auth.keyType,
        apiKeyId: auth.apiKeyId,
        organizationId: org.id,
        organizationIds: granted,
        organizations: granted.map((id) => known.get(id)!).map((o) => ({ id: o.id, name: o.name, country: o.country ?? null, vatNumber: o.vatNumber ?? null })),
        scopes: auth.scopes,
        isTestMode: !auth.livemode,
      };
    }),

    actingCompany: action(contract.actingCompany, async (ctx) => {
      const auth = principalOf(ctx);
      if (!auth.companyId) throw new DomainError('COMPANY_REQUIRED', 'This credential has no company; send X-Service-Company');
      const company = await emOf(ctx).findOne(Company, { id: auth.companyId, organization: auth.organizationId, deletedAt: null });
      if (!company) throw companyForbidden(auth.companyId);
      return companyView(company);
    }),

    createApiKey: action(contract.createApiKey, async (ctx) => {
      const auth = principalOf(ctx);
      const em = emOf(ctx);
      const scopes = ctx.params.scopes ?? ['*'];
      const beyond = scopes.filter((s) => !hasScope(auth.scopes, s));
      if (beyond.length) {
        throw new DomainError('INSUFFICIENT_SCOPE', `A key cannot grant scopes it does not hold: ${beyond.join(', ')}`, {
          details: beyond.map((s) => ({ field: 'scopes', rule: 'subset', message: `Scope '${s}' is not held by the calling key` })),
        });
      }
      const keyType = ctx.params.keyType ?? 'personal';
      // Organization-wide keys come only from organization-wide `*` credentials: never from a
      // personal key (one company), never from a narrower key.
      if (keyType !== 'personal' && (isCompanyBound(auth) || !auth.scopes.includes('*'))) {
        throw new DomainError('INSUFFICIENT_SCOPE', `Only an organization-wide credential holding '*' may create ${keyType} keys`, {
          details: [{ field: 'keyType', rule: 'subset', message: `A ${auth.keyType ?? auth.authMethod} credential with these scopes cannot create ${keyType} keys` }],
        });
      }
      let company: Company | null = null;
      const companyRef = ctx.params.companyId ?? (keyType === 'personal' ? auth.companyId : null);
      // A personal key stays on its company: what it mints is bound to that company too.
      if (isCompanyBound(auth) && (!auth.companyId || companyRef !== auth.companyId)) {
        throw companyRef ? companyForbidden(companyRef) : new DomainError('COMPANY_FORBIDDEN', 'A one-company credential creates keys for its own company only');
      }
      // A personal key without a company would act for whichever company a header names.
      if (keyType === 'personal' && !companyRef) throw new DomainError('COMPANY_REQUIRED', 'A personal key acts for one company: send companyId (or X-Service-Company)');
      if (companyRef) {
        company = await em.findOne(Company, { id: companyRef, organization: auth.organizationId });
        if (!company) throw companyForbidden(companyRef);
      }
      const caller = auth.apiKeyId ? await em.findOne(ApiKey, auth.apiKeyId) : null;
      // A sandbox key never outlives the sandbox key that minted it.
      return storeNewKey(em, { organizationId: auth.organizationId, company, name: ctx.params.name, keyType, scopes, livemode: auth.livemode, email: auth.email, expiresAt: caller?.expiresAt ?? null });
    }),

    mintDelegatedKey: action(contract.mintDelegatedKey, async (ctx) => {
      const { grantor, scopes, name } = ctx.params;
      const em = emOf(ctx);
      const company = await em.findOne(Company, { id: grantor.companyId, organization: grantor.organizationId, deletedAt: null });
      if (!company) throw companyForbidden(grantor.companyId);
      let expiresAt: Date | null = null;
      if (grantor.apiKeyId) {
        // The key that consented may have been revoked, or may expire, since: checked again now.
        const key = await em.findOne(ApiKey, { id: grantor.apiKeyId, organization: grantor.organizationId });
        if (!key || key.revokedAt) throw new DomainError('REVOKED_KEY', 'The key that allowed this agent has been revoked since');
        if (key.expiresAt && key.expiresAt <= systemClock.now()) throw new DomainError('EXPIRED_TOKEN', 'The key that allowed this agent has expired since');
        const beyond = scopes.filter((s) => !hasScope(key.scopes as contract.ApiKeyView['scopes'], s));
        if (beyond.length) throw new DomainError('INSUFFICIENT_SCOPE', `The key that allowed this agent does not hold: ${beyond.join(', ')}`);
        if (key.keyType === 'personal' && key.company?.id !== company.id) throw companyForbidden(company.id);
        if (key.livemode !== grantor.livemode) throw new DomainError('INSUFFICIENT_SCOPE', 'The key that allowed this agent is of another mode');
        expiresAt = key.expiresAt ?? null;
      }
      return storeNewKey(em, { organizationId: grantor.organizationId, company, name, keyType: 'personal', scopes, livemode: grantor.livemode, email: grantor.email, expiresAt });
    }),

    listApiKeys: action(contract.listApiKeys, async (ctx) => {
      const auth = principalOf(ctx);
      const page = readPageRequest(ctx.params);
      const rows = await emOf(ctx).find(
        ApiKey,
        { organization: auth.organizationId, revokedAt: null, ...(page.after ? { id: { $lt: page.after } } : {}) },
        { orderBy: { id: 'desc' }, limit: page.limit + 1 },
      );
      return toPage(rows, page, (r) => r.id, apiKeyView);
    }),

    revokeApiKey: action(contract.revokeApiKey, async (ctx) => {
      const row = await revokeKey(ctx, principalOf(ctx).organizationId, ctx.params.id);
      if (!row) throw new DomainError('RESOURCE_NOT_FOUND', `API key '${ctx.params.id}' was not found`);
      return { id: row.id, revoked: true as const, revokedAt: row.revokedAt!.toISOString() };
    }),

    revokeDelegatedKey: action(contract.revokeDelegatedKey, async (ctx) => {
      const row = await revokeKey(ctx, ctx.params.organizationId, ctx.params.id);
      return { id: ctx.params.id, revoked: row !== null };
    }),

    listCompanies: action(contract.listCompanies, async (ctx) => {
      const auth = principalOf(ctx);
      const page = readPageRequest(ctx.params);
      const rows = await emOf(ctx).find(
        Company,
        { organization: auth.organizationId, deletedAt: null, ...(page.after ? { id: { $lt: page.after } } : {}) },
        { orderBy: { id: 'desc' }, limit: page.limit + 1 },
      );
      return toPage(rows, page, (r) => r.id, companyView);
    }),

    getCompany: action(contract.getCompany, async (ctx) => {
      const auth = principalOf(ctx);
      const company = await findCompanyOf(ctx, auth.organizationId, ctx.params.id);
      if (!company) throw companyNotFound(ctx.params.id);
      return companyView(company);
    }),

    createCompany: action(contract.createCompany, async (ctx) => {
      const auth = principalOf(ctx);
      // A one-company credential acts for its own company only: new companies come from organization-wide ones.
      if (auth.keyType === 'personal' || isCompanyBound(auth)) throw companyForbidden('new');
      return companyView(await createCompany(ctx, emOf(ctx), ctx.params));
    }),

    registerCompany: action(contract.registerCompany, async (ctx) => registerCompany(ctx, emOf(ctx), await companyToChange(ctx, ctx.params.id), ctx.params.migrationKey)),
    testCompanyReachability: action(contract.testCompanyReachability, async (ctx) => testReachability(ctx, await companyToChange(ctx, ctx.params.id), ctx.params.documentType ?? 'invoice')),
    prepareCompanyMigration: action(contract.prepareCompanyMigration, async (ctx) => prepareMigration(ctx, await companyToChange(ctx, ctx.params.id))),

    importCompany: action(contract.importCompany, async function (this: TenancyThis, ctx) {
      return importOne(ctx, emOf(ctx), ctx.params, (tx, input) => this.recordEvent(ctx, tx, input));
    }),

    importCompanies: action(contract.importCompanies, async function (this: TenancyThis, ctx) {
      const items = ctx.params.items;
      const results: contract.ImportBatchItemResult[] = new Array(items.length);
      let next = 0;
      // Five at a time; each item its own transaction, so a failed one takes nothing else with it.
      await Promise.all(Array.from({ length: Math.min(contract.IMPORT_BATCH_CONCURRENCY, items.length) }, async () => {
        for (let index = next++; index < items.length; index = next++) {
          try {
            const done = await importOne(ctx, emOf(ctx), checkImportItem(items[index]), (tx, input) => this.recordEvent(ctx, tx, input));
            results[index] = { index, status: 'imported', companyId: done.id, peppolId: done.peppolId, error: null };
          } catch (err) {
            if (!(err instanceof DomainError)) this.logger.error(`company import item ${index} failed`, err);
            const error = err instanceof DomainError ? { code: err.errorCode as string, message: err.message } : { code: 'INTERNAL_ERROR', message: 'This item could not be imported; try it again' };
            results[index] = { index, status: 'failed', companyId: null, peppolId: null, error };
          }
        }
      }));
      return { results };
    }),

    deleteCompany: action(contract.deleteCompany, async (ctx) => deleteCompany(ctx, emOf(ctx), await companyToChange(ctx, ctx.params.id))),

    getPlatformSettings: action(contract.getPlatformSettings, async (ctx) => platform.platformSettings(ctx, emOf(ctx))),
    updatePlatformSettings: action(contract.updatePlatformSettings, async (ctx) => platform.updatePlatformSettings(ctx, emOf(ctx))),
    verifyCustomDomain: action(contract.verifyCustomDomain, async (ctx) => platform.verifyCustomDomain(ctx, emOf(ctx))),
    hostBranding: action(contract.hostBranding, async (ctx) => platform.hostBranding(ctx, emOf(ctx))),
    organizationByDomain: action(contract.organizationByDomain, async (ctx) => {
      const org = await emOf(ctx).findOne(Organization, { customDomain: ctx.params.host.toLowerCase() }, { fields: ['id'] });
      return org ? { organizationId: org.id } : null;
    }),
    tenantDefaults: action(contract.tenantDefaults, async (ctx) => {
      const org = await emOf(ctx).findOne(Organization, ctx.params.organizationId, { fields: ['settings'] });
      return platform.defaultsOf(org?.settings);
    }),
    listManagedCompanies: action(contract.listManagedCompanies, async (ctx) => platform.listManagedCompanies(ctx, emOf(ctx))),
    listTenantKeys: action(contract.listTenantKeys, async (ctx) => platform.listTenantKeys(ctx, emOf(ctx))),
    revokeTenantKey: action(contract.revokeTenantKey, async (ctx) => platform.revokeTenantKey(ctx, emOf(ctx))),
    suspendTenant: action(contract.suspendTenant, async (ctx) => platform.setSuspended(ctx, emOf(ctx), true)),
    resumeTenant: action(contract.resumeTenant, async (ctx) => platform.setSuspended(ctx, emOf(ctx), false)),
    onboardTenant: action(contract.onboardTenant, async (ctx) => platform.onboardTenant(ctx, emOf(ctx))),
    abandonTenant: action(contract.abandonTenant, async (ctx) => platform.abandonTenant(ctx, emOf(ctx))),
    publishTenant: action(contract.publishTenant, async (ctx) => platform.publishTenant(ctx, emOf(ctx))),
    removeSandboxOrganization: action(contract.removeSandboxOrganization, async (ctx) => platform.removeSandboxOrganization(ctx, emOf(ctx))),

    provision: action(contract.provision, async (ctx) => {
      const { organization: o, company: c, apiKey: k } = ctx.params;
      return emOf(ctx).transactional(async (em) => {
        const org = em.create(Organization, {
          id: newId('organization'),
          name: o.name,
          plan: (o.plan ?? 'free') as contract.Plan,
          sandbox: o.sandbox,
          country: o.country ?? null,
          vatNumber: o.vatNumber ?? null,
          expiresAt: o.expiresAt ? new Date(o.expiresAt) : null,
        });
        // The scheduler removes an expiring sandbox organization when its time comes (services/sandbox).
        if (o.sandbox && o.expiresAt) scheduleJobs(em, [{ kind: contract.SANDBOX_EXPIRY_JOB, ref: org.id, dueAt: new Date(o.expiresAt) }]);
        const company = em.create(Company, {
          id: newId('company'),
          organization: org,
          name: c.name,
          legalName: c.name,
          slug: slugify(c.name),
          country: c.country,
          vatNumber: c.vatNumber ?? null,
          registrationNumber: c.registrationNumber ?? null,
          peppolId: c.peppolId ?? null,
          address: c.address ?? null,
          status: 'active',
        });
        const secret = generateKey(k.keyType, !o.sandbox);
        const key = em.create(ApiKey, {
          id: newId('apiKey'),
          organization: org,
          company: k.keyType === 'personal' ? company : null,
          name: k.name,
          keyPrefix: secret.keyPrefix,
          keyHash: secret.keyHash,
          keyType: k.keyType,
          scopes: k.scopes ?? ['*'],
          livemode: !o.sandbox,
          email: k.email ?? null,
          expiresAt: k.expiresAt ? new Date(k.expiresAt) : null,
        });
        await em.flush();
        return { organizationId: org.id, company: companyView(company), apiKey: { ...apiKeyView(key), key: secret.key } };
      });
    }),
  },
};

export default TenancyService;
