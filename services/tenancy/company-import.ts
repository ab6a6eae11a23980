/**
 * Company import (France, portability from another platform): a SIRET becomes a company of the
 * organization, registered under 0009 plus its SIREN. Outcomes in the spec's priority order: a
 * named backend company is linked and keeps its data; else a named organization (the caller's)
 * gets a company provisioned; else the company is registered `pending_verification`. Idempotent on
 * the SIRET: the same one again re-syncs the same company. Each import is one transaction with its
 * event (`company.imported` or `company.import.pending`) and its publication job.
 */
import type { Context } from 'moleculer';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError } from '../shared/errors.ts';
import { compileParamsChecker } from '../shared/params-checker.ts';
import { newId } from '../shared/ids.ts';
import { systemClock } from '../shared/clock.ts';
import { principalOf } from '../shared/auth.ts';
import { scheduleJobs } from '../shared/scheduler/scheduler.ts';
import type { OutboxEventInput } from '../../mixins/outbox.mixin.ts';
import { isValidSiret, sirenOfSiret } from '../../mappings/identifiers/siret.ts';
import { Company } from './company.entity.ts';
import { slugify } from './views.ts';
import { companyNotFound } from './companies.ts';
import { importCompany as importContract, PUBLISH_COMPANY_JOB, type ImportCompanyParams, type ImportedCompany } from './tenancy.contract.ts';

type RecordEvent = (tx: EntityManager, input: OutboxEventInput) => Promise<unknown>;

function checkSiret(siret: string): void {
  if (!isValidSiret(siret)) {
    throw new DomainError('INVALID_REQUEST', `SIRET ${siret} is not 14 digits with a valid check digit`, { details: [{ field: 'siret', rule: 'siret', message: '14 digits, Luhn check digit (digit sum for La Poste)' }] });
  }
}

function view(c: Company, outcome: ImportedCompany['outcome']): ImportedCompany {
  return {
    id: c.id, organizationId: c.organization.id, peppolId: c.peppolId!, siret: c.siret!, siren: sirenOfSiret(c.siret!), country: c.country,
    outcome, status: c.status, registrationStatus: c.registrationStatus === 'active' ? 'active' : null, effectiveDate: c.effectiveDate ?? null,
  };
}

export async function importOne(ctx: Context, em: EntityManager, p: ImportCompanyParams, recordEvent: RecordEvent): Promise<ImportedCompany> {
  const auth = principalOf(ctx);
  checkSiret(p.siret);
  if (p.organizationId && p.organizationId !== auth.organizationId) {
    throw new DomainError('ORGANIZATION_FORBIDDEN', `Organization '${p.organizationId}' is not the one this credential acts in`);
  }
  const siren = sirenOfSiret(p.siret);
  const peppolId = `0009:${siren}`;
  const country = p.countryCode ?? 'FR';
  const outcome: ImportedCompany['outcome'] = p.backendCompanyId ? 'imported' : p.organizationId ? 'provisioned' : 'pending';
  const now = systemClock.now();

  const run = () => em.fork().transactional(async (tx) => {
    let company = await tx.findOne(Company, { organization: auth.organizationId, siret: p.siret, deletedAt: null });
    const known = company !== null;
    if (p.backendCompanyId) {
      const backend = await tx.findOne(Company, { id: p.backendCompanyId, organization: auth.organizationId, deletedAt: null });
      if (!backend) throw companyNotFound(p.backendCompanyId);
      if (company && company.id !== backend.id) throw new DomainError('COMPANY_EXISTS', `SIRET ${p.siret} is already imported as company '${company.id}'`, { extra: { existingId: company.id } });
      // The backend company's own data is authoritative: only what it lacks is filled in.
      company = backend;
      company.siret = p.siret;
      company.peppolId ??= peppolId;
      company.registrationNumber ??= siren;
    } else if (company) {
      // A re-run re-syncs: the latest name and effective date win.
      if (p.companyName) { company.name = p.companyName; company.legalName = p.companyName; company.slug = slugify(p.companyName); }
    } else {
      const name = p.companyName ?? `SIREN ${siren}`;
      company = tx.create(Company, {
        id: newId('company'), organization: auth.organizationId, name, legalName: p.companyName ?? null, slug: slugify(name), country,
        vatNumber: null, registrationNumber: siren, peppolId, address: null, status: 'pending_verification', metadata: null,
        registrationStatus: null, registeredAt: null, deletedAt: null, retainUntil: null, siret: p.siret, effectiveDate: null,
      });
    }
    if (p.effectiveDate) company.effectiveDate = p.effectiveDate;
    const wasRegistered = company.registrationStatus === 'active';
    if (outcome !== 'pending' || company.status === 'active') {
      company.status = 'active';
      if (!wasRegistered) {
        company.registrationStatus = 'active';
        company.registeredAt = now;
        scheduleJobs(tx, [{ kind: PUBLISH_COMPANY_JOB, ref: company.id, companyId: company.id, dueAt: now }]);
      }
    }
    const registered = company.registrationStatus === 'active';
    // An event when the import changes what the company is (new, or registered now), not on every re-run.
    if ((registered && !wasRegistered) || (!registered && !known)) {
      await recordEvent(tx, {
        organizationId: auth.organizationId, companyId: company.id, livemode: auth.livemode,
        type: registered ? 'company.imported' : 'company.import.pending',
        data: { companyId: company.id, peppolId: company.peppolId, siret: p.siret, siren, country: company.country },
      });
    }
    await tx.flush();
    return view(company, registered && outcome === 'pending' ? 'imported' : outcome);
  });
  try {
    return await run();
  } catch (err) {
    // The same SIRET imported twice at once: the unique index lets one in; the other re-syncs it.
    if ((err as { name?: string }).name !== 'UniqueConstraintViolationException') throw err;
    return run();
  }
}

/** Each batch item is checked with the single import's own schema (a bad item fails alone). */
export const checkImportItem = compileParamsChecker<ImportCompanyParams>(importContract.params);
