/**
 * Companies through the API: creation checked against the company registry of the VAT number's
 * country, registration on the network, removal with the statutory retention of their documents,
 * and the two jobs behind them (re-checking a company the registry could not answer for, and
 * publishing a registration). Registry calls happen before any transaction opens.
 */
import type { Context, Service } from 'moleculer';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError, rethrowAsDomainError, specCodeOf } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { systemClock } from '../shared/clock.ts';
import { loadConfig } from '../shared/config.ts';
import { principalOf } from '../shared/auth.ts';
import { cancelJobs, completeJobs, rescheduleJob, scheduleJobs, type ClaimedJob } from '../shared/scheduler/scheduler.ts';
import { recordEvent } from '../../mixins/outbox.mixin.ts';
import { OUTBOX_WRITTEN_EVENT } from '../events/events.contract.ts';
import { ICD_BY_VAT_PREFIX, peppolIdFromVat } from '../../mappings/identifiers/peppol-id.ts';
import { countryOfVat, isValidVatNumber } from '../../mappings/identifiers/vat.ts';
import { API_KEY_REVOKED_EVENT, PUBLISH_COMPANY_JOB, UNPUBLISH_COMPANY_JOB, VERIFY_COMPANY_JOB, type ApiKeyRevoked, type CompanyDeletion, type CreateCompanyParams, type MigrationKeyView, type RegistrationView } from './tenancy.contract.ts';
import { askRegistry, type RegistryAnswer } from './company-registry.ts';
import { Company } from './company.entity.ts';
import { ApiKey } from './api-key.entity.ts';
import { Organization } from './organization.entity.ts';
import { slugify } from './views.ts';
import { call } from '../shared/call.ts';
import { smlDeregister, smlMigrate, smlPrepareMigration, smlRegister } from '../smp/smp.contract.ts';

/** Statutory retention of invoices where the country sets its own (years). */
const RETENTION_YEARS: Readonly<Record<string, number>> = { IT: 10, FR: 6 };

/** A re-check after the registry could not answer: 1 min, doubling, at most 6 h apart. */
const recheckDelayMs = (claims: number) => Math.min(6 * 3_600_000, 60_000 * 2 ** Math.max(0, claims - 1));

export const companyNotFound = (id: string) => new DomainError('COMPANY_NOT_FOUND', `Company '${id}' was not found`);

/**
 * The company's Peppol id, derived from its VAT number. A well-formed VAT number of a country Peppol
 * has no VAT-based scheme for (Saudi Arabia: its invoices are cleared by ZATCA, not carried by
 * Peppol) gives a company without one; an unknown prefix or a malformed number stays an error.
 */
function peppolIdOf(vatNumber: string): string | null {
  if (!ICD_BY_VAT_PREFIX[vatNumber.slice(0, 2)] && countryOfVat(vatNumber) && isValidVatNumber(vatNumber)) return null;
  try {
    return peppolIdFromVat(vatNumber);
  } catch (err) {
    return rethrowAsDomainError(err);
  }
}

/** The registry's verdict as an API error, or nothing when the company may be created. */
function refusal(vatNumber: string, answer: RegistryAnswer): DomainError | undefined {
  if (!('result' in answer)) return undefined;
  if (answer.result.status === 'not_found') return new DomainError('VAT_NOT_FOUND', `VAT number ${vatNumber} is not known to the company registry (${answer.source})`, { details: [{ field: 'vatNumber', rule: 'registry', message: 'unknown to the registry' }] });
  if (answer.result.status === 'inactive') return new DomainError('VAT_INACTIVE', `VAT number ${vatNumber} belongs to a company that has ceased trading (${answer.source})`, { details: [{ field: 'vatNumber', rule: 'registry', message: 'ceased' }] });
  return undefined;
}

async function existing(em: EntityManager, organizationId: string, vatNumber: string): Promise<Company | null> {
  return em.findOne(Company, { organization: organizationId, vatNumber, deletedAt: null });
}

const companyExists = (vatNumber: string, existingId: string) =>
  new DomainError('COMPANY_EXISTS', `This organization already has a company with VAT number ${vatNumber}`, { extra: { existingId } });

export async function createCompany(ctx: Context, em: EntityManager, p: CreateCompanyParams): Promise<Company> {
  const auth = principalOf(ctx);
  const vatNumber = p.vatNumber;
  const peppolId = peppolIdOf(vatNumber);
  const country = countryOfVat(vatNumber) ?? vatNumber.slice(0, 2);
  const already = await existing(em, auth.organizationId, vatNumber);
  if (already) throw companyExists(vatNumber, already.id);

  const answer = await askRegistry(ctx, vatNumber, country, auth.livemode);
  const refused = refusal(vatNumber, answer);
  if (refused) throw refused;
  if ('unavailable' in answer) ctx.broker.logger.warn(`company registry ${answer.source} could not check ${vatNumber} (${answer.unavailable}); the company is created pending verification`);
  const found = 'result' in answer && answer.result.status === 'active' ? answer.result : undefined;
  const name = p.name ?? found?.name ?? vatNumber;
  const now = systemClock.now();
  const company = em.create(Company, {
    id: newId('company'),
    organization: auth.organizationId,
    name,
    legalName: found?.name ?? p.name ?? null,
    slug: slugify(name),
    country,
    vatNumber,
    registrationNumber: found?.registrationNumber ?? (country === 'BE' ? vatNumber.slice(2) : null),
    peppolId,
    address: p.address ?? found?.address ?? null,
    dataProviderType: found && answer.source ? answer.source : null,
    dataProviderSyncDate: found ? now : null,
    status: 'unavailable' in answer ? 'pending_verification' : 'active',
    metadata: p.metadata ?? null,
    registrationStatus: null, registeredAt: null, deletedAt: null, retainUntil: null, siret: null, effectiveDate: null,
  });
  if (company.status === 'pending_verification') scheduleJobs(em, [{ kind: VERIFY_COMPANY_JOB, ref: company.id, companyId: company.id, dueAt: new Date(now.getTime() + recheckDelayMs(1)) }]);
  try {
    await em.flush();
  } catch (err) {
    // Two creations of one VAT number at once: the unique index lets one in.
    if ((err as { name?: string }).name !== 'UniqueConstraintViolationException') throw err;
    const winner = await existing(em.fork(), auth.organizationId, vatNumber);
    throw companyExists(vatNumber, winner?.id ?? 'unknown');
  }
  return company;
}

export async function registerCompany(ctx: Context, em: EntityManager, company: Company, migrationKey?: string): Promise<RegistrationView> {
  if (company.status !== 'active') throw new DomainError('INVALID_TRANSITION', `Company '${company.id}' is still pending verification by the company registry; it can be registered once verified`, { extra: { allowedTransitions: [] } });
  if (!company.peppolId) throw new DomainError('INVALID_REQUEST', `Company '${company.id}' has no Peppol id to register`);
  if (migrationKey !== undefined && !company.smpRegistered) {
    // Arriving from another provider: the SML moves the participant to our SMP now (no transaction
    // is open while it answers); it is then published here at once.
    await call(ctx, smlMigrate, { peppolId: company.peppolId, migrationKey });
    const org = await em.fork().findOneOrFail(Organization, company.organization.id);
    const registered = await em.fork().transactional(async (tx) => {
      const row = await tx.findOneOrFail(Company, { id: company.id, deletedAt: null });
      row.registrationStatus = 'active';
      row.registeredAt ??= systemClock.now();
      row.smpRegistered = true;
      await cancelJobs(tx, [PUBLISH_COMPANY_JOB], row.id);
      await recordEvent(tx, { organizationId: org.id, companyId: row.id, type: 'company.smp_registered', livemode: !org.sandbox, data: { companyId: row.id, peppolId: row.peppolId } });
      return row;
    });
    void ctx.broadcast(OUTBOX_WRITTEN_EVENT, {});
    return { companyId: registered.id, registrationStatus: 'active', peppolId: registered.peppolId!, smpRegistered: true, registeredAt: registered.registeredAt!.toISOString() };
  }
  if (company.registrationStatus !== 'active') {
    company.registrationStatus = 'active';
    company.registeredAt = systemClock.now();
    scheduleJobs(em, [{ kind: PUBLISH_COMPANY_JOB, ref: company.id, companyId: company.id, dueAt: systemClock.now() }]);
    await em.flush();
  }
  return { companyId: company.id, registrationStatus: 'active', peppolId: company.peppolId, smpRegistered: company.smpRegistered, registeredAt: company.registeredAt!.toISOString() };
}

/** `POST /v1/companies/{id}/migration-key`: a key for the provider the company moves to (SML PrepareToMigrate). */
export async function prepareMigration(ctx: Context, company: Company): Promise<MigrationKeyView> {
  if (company.registrationStatus !== 'active' || !company.smpRegistered || !company.peppolId) {
    throw new DomainError('INVALID_TRANSITION', `Company '${company.id}' is not published through this SMP: there is nothing to migrate`, { extra: { allowedTransitions: [] } });
  }
  const { migrationKey } = await call(ctx, smlPrepareMigration, { peppolId: company.peppolId });
  return { companyId: company.id, peppolId: company.peppolId, migrationKey, createdAt: systemClock.now().toISOString() };
}

export async function deleteCompany(ctx: Context, em: EntityManager, company: Company): Promise<CompanyDeletion> {
  const now = systemClock.now();
  const years = RETENTION_YEARS[company.country] ?? loadConfig().documentRetentionYears;
  const retainUntil = new Date(now);
  retainUntil.setUTCFullYear(retainUntil.getUTCFullYear() + years);
  const revoked = await em.transactional(async (tx) => {
    const row = await tx.findOneOrFail(Company, company.id);
    row.deletedAt = now;
    row.retainUntil = retainUntil;
    if (row.registrationStatus === 'active') row.registrationStatus = 'deregistered';
    // published on the network: the SML entry goes too (a job, so the SML's answer is awaited outside this transaction)
    if (row.smpRegistered && row.peppolId) scheduleJobs(tx, [{ kind: UNPUBLISH_COMPANY_JOB, ref: row.peppolId, companyId: row.id, dueAt: now }]);
    row.smpRegistered = false;
    const keys = await tx.find(ApiKey, { company: row.id, revokedAt: null });
    for (const key of keys) key.revokedAt = now;
    await cancelJobs(tx, [VERIFY_COMPANY_JOB, PUBLISH_COMPANY_JOB], row.id);
    return keys.map((k) => k.id);
  });
  for (const apiKeyId of revoked) {
    const event: ApiKeyRevoked = { apiKeyId, organizationId: principalOf(ctx).organizationId };
    await ctx.broadcast(API_KEY_REVOKED_EVENT, event);
  }
  return { id: company.id, deleted: true, retainUntil: retainUntil.toISOString() };
}

/** Job `company.verify`: asks the registry again about companies created while it could not answer. */
export async function verifyPending(this: Service, jobs: ClaimedJob[], em: EntityManager): Promise<void> {
  for (const job of jobs) {
    const company = await em.fork().findOne(Company, { id: job.ref, deletedAt: null }, { populate: ['organization'] });
    if (!company || company.status !== 'pending_verification' || !company.vatNumber) { await completeJobs(em.fork(), [job.id]); continue; }
    const answer = await askRegistry(this.broker, company.vatNumber, company.country, !company.organization.getEntity().sandbox);
    if ('unavailable' in answer) { await rescheduleJob(em.fork(), job.id, new Date(systemClock.now().getTime() + recheckDelayMs(job.claims + 1))); continue; }
    await em.fork().transactional(async (tx) => {
      const row = await tx.findOneOrFail(Company, company.id);
      if ('result' in answer && answer.result.status === 'active') {
        row.status = 'active';
        if (row.name === row.vatNumber) { row.name = answer.result.name; row.slug = slugify(answer.result.name); }
        row.legalName ??= answer.result.name;
        row.address ??= answer.result.address ?? null;
        row.registrationNumber ??= answer.result.registrationNumber ?? null;
        row.dataProviderType = answer.source;
        row.dataProviderSyncDate = systemClock.now();
      } else if (answer.source === null) {
        // No registry serves this country any more: nothing left to check against.
        row.status = 'active';
      } else {
        this.logger.warn(`company ${row.id}: the registry now says ${row.vatNumber} is ${'result' in answer ? answer.result.status : 'unknown'}; it stays pending verification`);
      }
      // Registered while pending (a platform's onboarding): published now that it is verified.
      if (row.status === 'active' && row.registrationStatus === 'active' && !row.smpRegistered) {
        scheduleJobs(tx, [{ kind: PUBLISH_COMPANY_JOB, ref: row.id, companyId: row.id, dueAt: systemClock.now() }]);
      }
      await completeJobs(tx, [job.id]);
    });
  }
}

/** An SML answer worth waiting for: the registration is tried again later (1 min, doubling, at most 6 h). */
const smlUnavailable = (err: unknown) => specCodeOf(err) === 'UPSTREAM_UNAVAILABLE' || ['SERVICE_NOT_FOUND', 'SERVICE_NOT_AVAILABLE', 'REQUEST_TIMEOUT'].includes(String((err as { type?: unknown }).type));

/**
 * Job `company.publish`: makes a registration visible on the network. Sandbox companies are
 * published by the sandbox network itself (its directory is this platform); a company whose mode
 * this deployment's SMP publishes (EINV_SMP_MODE) is also registered with the SML (services/smp,
 * when EINV_SML_URL is set) so the network's DNS points at our SMP. The SML is asked before any
 * transaction opens; while it cannot answer, the job is tried again later.
 */
export async function publishRegistrations(this: Service, jobs: ClaimedJob[], em: EntityManager): Promise<void> {
  let published = false;
  const smpMode = loadConfig().smp.mode;
  for (const job of jobs) {
    const company = await em.fork().findOne(Company, { id: job.ref, deletedAt: null, registrationStatus: 'active' }, { populate: ['organization'] });
    const org = company?.organization.getEntity() as Organization | undefined;
    if (!company || !org || company.smpRegistered) { await completeJobs(em.fork(), [job.id]); continue; }
    if (!org.sandbox && smpMode !== 'live') {
      this.logger.warn(`company ${company.id}: registered, but this deployment's SMP publishes sandbox registrations only (EINV_SMP_MODE=test); it stays unpublished`);
      await completeJobs(em.fork(), [job.id]);
      continue;
    }
    if (smpMode === (org.sandbox ? 'test' : 'live') && company.peppolId) {
      try {
        await call(this.broker, smlRegister, { peppolId: company.peppolId });
      } catch (err) {
        if (smlUnavailable(err)) { await rescheduleJob(em.fork(), job.id, new Date(systemClock.now().getTime() + recheckDelayMs(job.claims + 1))); continue; }
        // e.g. registered with another provider's SMP: it can move here with that provider's migration key
        this.logger.warn(`company ${company.id}: the SML refused ${company.peppolId}: ${(err as Error).message}; it stays unpublished`);
        await completeJobs(em.fork(), [job.id]);
        continue;
      }
    }
    await em.fork().transactional(async (tx) => {
      const row = await tx.findOne(Company, { id: company.id, deletedAt: null, registrationStatus: 'active' });
      if (row && !row.smpRegistered) {
        row.smpRegistered = true;
        await recordEvent(tx, { organizationId: org.id, companyId: row.id, type: 'company.smp_registered', livemode: !org.sandbox, data: { companyId: row.id, peppolId: row.peppolId } });
        published = true;
      }
      await completeJobs(tx, [job.id]);
    });
  }
  // Committed: the outbox followers need not wait for their next poll.
  if (published) void this.broker.broadcast(OUTBOX_WRITTEN_EVENT, {});
}

/** Job `company.unpublish`: a deleted company's participant leaves the SML (its ref is the Peppol id). */
export async function unpublishRegistrations(this: Service, jobs: ClaimedJob[], em: EntityManager): Promise<void> {
  for (const job of jobs) {
    try {
      await call(this.broker, smlDeregister, { peppolId: job.ref });
    } catch (err) {
      if (smlUnavailable(err)) { await rescheduleJob(em.fork(), job.id, new Date(systemClock.now().getTime() + recheckDelayMs(job.claims + 1))); continue; }
      this.logger.warn(`the SML refused to remove ${job.ref}: ${(err as Error).message}`);
    }
    await completeJobs(em.fork(), [job.id]);
  }
}
