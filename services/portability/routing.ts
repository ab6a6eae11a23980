/**
 * Routing switches per SIREN (POST /v1/portability/routing) and the annuaire read from them.
 * Idempotent on the SIREN: the organization's first switch for a SIREN stands, a repeat answers it
 * with `created` false. Dates are Paris calendar days of the platform clock of the connection (the
 * sandbox's virtual clock moves it).
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
import { PortabilityRouting } from './portability.entity.ts';
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
  const scope = { organizationId: auth.organizationId, livemode: auth.livemode, siren: p.siren };

  const existing = await em.findOne(PortabilityRouting, scope);
  if (existing) return routingView(existing, false, today);
  const routing = em.create(PortabilityRouting, {
    id: newId('portabilityRouting'), ...scope, connectionId, siret: p.siret ?? null, role: p.role, effectiveDate: p.effectiveDate,
    serviceUntil: p.role === 'LOSING_PA' ? addMonths(p.effectiveDate, p.minimalServiceMonths ?? DEFAULT_SERVICE_MONTHS) : null,
  });
  try {
    await em.flush();
  } catch (err) {
    if (!(err instanceof UniqueConstraintViolationException)) throw err;
    // A concurrent switch for the same SIREN won: answer it.
    const winner = await em.fork().findOneOrFail(PortabilityRouting, scope);
    return routingView(winner, false, today);
  }
  return routingView(routing, true, today);
}

/** The annuaire for a SIREN in a mode, on `clock`'s Paris calendar. */
export async function readAnnuaire(em: EntityManager, siren: string, livemode: boolean, clock: Clock): Promise<AnnuaireView> {
  const lines = await em.find(PortabilityRouting, { siren, livemode }, { disableIdentityMap: true });
  return annuaireOf(siren, lines.map((l) => ({ role: l.role, siret: l.siret ?? null, effectiveDate: l.effectiveDate, serviceUntil: l.serviceUntil ?? null })), parisDate(clock.now()), loadConfig().portability.paMatricule);
}
