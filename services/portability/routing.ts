/**
 * Routing switches per SIREN (POST /v1/portability/routing, and a request's execution through the
 * same `switchRouting`) and the annuaire read from them. Idempotent on the SIREN: the
 * organization's first switch for a SIREN stands, a repeat answers it with `created` false. Dates
 * are Paris calendar days of the platform clock of the connection (the sandbox's virtual clock
 * moves it).
 */
import type { Context } from 'moleculer';
import type { EntityManager } from '@mikro-orm/postgresql';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { call } from '../shared/call.ts';
import { principalOf } from '../shared/auth.ts';
import { companyClock, type Clock } from '../shared/clock.ts';
import { loadConfig } from '../shared/config.ts';
import { DomainError } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { getCompany, listCompanies } from '../tenancy/tenancy.contract.ts';
import { isValidSiren, isValidSiret } from '../../mappings/identifiers/siret.ts';
import { addMonths, DEFAULT_SERVICE_MONTHS, parisDate } from './legal-clocks.ts';
import { annuaireOf } from './annuaire.ts';
import { PortabilityRouting, type RoutingRole } from './portability.entity.ts';
import type { AnnuaireView, RoutingParams, RoutingView } from './portability.contract.ts';

const issue = (field: string, rule: string, message: string) => ({ field, rule, message });

/** `YYYY-MM-DD` naming a real day, or 400 INVALID_DATE. */
export function checkDate(value: string, field: string): string {
  const d = new Date(`${value}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== value) {
    throw new DomainError('INVALID_DATE', `${field} must be a calendar date (YYYY-MM-DD), got ${JSON.stringify(value)}`, { details: [issue(field, 'date', 'not a calendar date')] });
  }
  return value;
}

function routingView(r: PortabilityRouting, created: boolean, today: string): RoutingView {
  const active = r.role === 'GAINING_PA' ? today >= r.effectiveDate : today < (r.serviceUntil ?? r.effectiveDate);
  return {
    organizationId: r.organizationId, connectionId: r.connectionId ?? null, role: r.role, siren: r.siren, siret: r.siret ?? null,
    effectiveDate: r.effectiveDate, serviceUntil: r.serviceUntil ?? null, created,
    address: { id: r.siret ? `${r.siren}_${r.siret}` : r.siren, siren: r.siren, active },
  };
}

export async function setRouting(ctx: Context<RoutingParams>, em: EntityManager): Promise<RoutingView> {
  const auth = principalOf(ctx);
  const p = ctx.params;
  if (p.organizationId !== auth.organizationId) throw new DomainError('ORGANIZATION_FORBIDDEN', `Organization '${p.organizationId}' is not the one this credential acts in`);
  if (!isValidSiren(p.siren)) throw new DomainError('INVALID_REQUEST', `SIREN ${p.siren} fails its check digit`, { details: [issue('siren', 'siren', 'Luhn check digit')] });
  if (p.siret !== undefined && (!isValidSiret(p.siret) || !p.siret.startsWith(p.siren))) {
    throw new DomainError('INVALID_REQUEST', `SIRET ${p.siret} is not a valid establishment of SIREN ${p.siren}`, { details: [issue('siret', 'siret', 'check digit, and the SIREN as its first nine digits')] });
  }
  checkDate(p.effectiveDate, 'effectiveDate');

  let connectionId: string | null;
  if (p.connectionId !== undefined) {
    // 404 COMPANY_NOT_FOUND from tenancy when it is not a company of the organization.
    connectionId = (await call(ctx, getCompany, { id: p.connectionId })).id;
  } else {
    const companies = (await call(ctx, listCompanies, { limit: 2 })).data;
    if (companies.length > 1) {
      throw new DomainError('MISSING_FIELD', 'The organization has more than one connection: name the one the address routes to with connectionId', { details: [issue('connectionId', 'required', 'required when the organization has more than one connection')] });
    }
    connectionId = companies[0]?.id ?? null;
  }
  const today = parisDate((await companyClock(em, connectionId)).now());
  const { routing, created } = await switchRouting(em, {
    organizationId: auth.organizationId, livemode: auth.livemode, siren: p.siren, siret: p.siret ?? null, role: p.role,
    effectiveDate: p.effectiveDate, connectionId, minimalServiceMonths: p.minimalServiceMonths,
  });
  return routingView(routing, created, today);
}

/** One routing switch as both the endpoint and a request's execution ask for it (already checked). */
export interface RoutingSwitch {
  organizationId: string;
  livemode: boolean;
  siren: string;
  siret: string | null;
  role: RoutingRole;
  effectiveDate: string;
  connectionId: string | null;
  minimalServiceMonths?: number;
}

/**
 * Records the switch for a SIREN unless the organization already has one in the mode: the first
 * stands (`created` false for every later ask). The unique index on (organization, mode, SIREN)
 * decides a race — two readers of an executing request, two replicas, an operator's call at the
 * same moment — so exactly one row exists. Database only, in its own unit of work: the caller holds
 * no transaction and makes no remote call here.
 */
export async function switchRouting(em: EntityManager, line: RoutingSwitch): Promise<{ routing: PortabilityRouting; created: boolean }> {
  const work = em.fork();
  const scope = { organizationId: line.organizationId, livemode: line.livemode, siren: line.siren };
  const existing = await work.findOne(PortabilityRouting, scope);
  if (existing) return { routing: existing, created: false };
  const routing = work.create(PortabilityRouting, {
    id: newId('portabilityRouting'), ...scope, connectionId: line.connectionId, siret: line.siret, role: line.role, effectiveDate: line.effectiveDate,
    serviceUntil: line.role === 'LOSING_PA' ? addMonths(line.effectiveDate, line.minimalServiceMonths ?? DEFAULT_SERVICE_MONTHS) : null,
  });
  try {
    await work.flush();
  } catch (err) {
    if (!(err instanceof UniqueConstraintViolationException)) throw err;
    // A concurrent switch for the same SIREN won: answer it.
    return { routing: await em.fork().findOneOrFail(PortabilityRouting, scope), created: false };
  }
  return { routing, created: true };
}

/** The annuaire for a SIREN in a mode, on `clock`'s Paris calendar. */
export async function readAnnuaire(em: EntityManager, siren: string, livemode: boolean, clock: Clock): Promise<AnnuaireView> {
  const lines = await em.find(PortabilityRouting, { siren, livemode }, { disableIdentityMap: true });
  return annuaireOf(siren, lines.map((l) => ({ role: l.role, siret: l.siret ?? null, effectiveDate: l.effectiveDate, serviceUntil: l.serviceUntil ?? null })), parisDate(clock.now()), loadConfig().portability.paMatricule);
}
