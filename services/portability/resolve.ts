/**
 * The `platform` layer of taxpayer resolution: this platform's directory of companies, asked
 * through tenancy (findParticipant for French addresses and Peppol ids, searchParticipants for a
 * name) and the caller's own companies for a domain, an e-mail or a registration number; then the
 * `registry` layer (tenancy's company registry, under the VAT number); then the `identifier` layer
 * (taxpayer.ts); 404 when none answers.
 */
import type { Context } from 'moleculer';
import { call } from '../shared/call.ts';
import { notFound } from '../shared/errors.ts';
import { findParticipant, listCompanies, lookupRegistry, searchParticipants, type CompanyRef, type CompanyView } from '../tenancy/tenancy.contract.ts';
import { peppolIdFromVat } from '../../mappings/identifiers/peppol-id.ts';
import { fromCompany, fromIdentifier, fromRegistry, sirenOf, vatOf, type KnownCompany, type TaxpayerId } from './taxpayer.ts';
import type { Taxpayer } from './portability.contract.ts';

async function participant(ctx: Context, livemode: boolean, p: { addressingIdentifier?: string; peppolId?: string }): Promise<CompanyRef | null> {
  return call(ctx, findParticipant, { participant: p, livemode });
}

async function ownCompanies(ctx: Context): Promise<CompanyView[]> {
  return (await call(ctx, listCompanies, { limit: 100 })).data;
}

function metadataMentions(company: CompanyView, domain: string): boolean {
  const m = company.metadata ?? {};
  return ['domain', 'website', 'email'].some((k) => {
    const v = m[k];
    if (typeof v !== 'string') return false;
    const host = v.toLowerCase().replace(/^[a-z]+:\/\//, '').replace(/^[^@]*@/, '').replace(/^www\./, '').split(/[/:?#]/)[0];
    return host === domain;
  });
}

async function platformCompany(ctx: Context, id: TaxpayerId, livemode: boolean): Promise<KnownCompany | null> {
  const siren = sirenOf(id);
  switch (id.kind) {
    case 'siret': return participant(ctx, livemode, { addressingIdentifier: id.siret });
    case 'siren': return participant(ctx, livemode, { addressingIdentifier: id.siren });
    case 'peppol': return participant(ctx, livemode, siren ? { addressingIdentifier: siren } : { peppolId: id.peppolId });
    case 'vat': {
      if (siren) return participant(ctx, livemode, { addressingIdentifier: siren });
      let peppolId: string | undefined;
      try { peppolId = peppolIdFromVat(id.vat); } catch { return null; }
      return participant(ctx, livemode, { peppolId });
    }
    case 'name': {
      const found = await call(ctx, searchParticipants, { query: id.name, livemode, limit: 10 });
      const own = (await ownCompanies(ctx)).filter((c) => [c.name, c.legalName].some((n) => n?.toLowerCase().includes(id.name.toLowerCase())));
      const all: KnownCompany[] = [...found, ...own];
      return all.find((c) => c.name.toLowerCase() === id.name.toLowerCase()) ?? all[0] ?? null;
    }
    case 'domain': return (await ownCompanies(ctx)).find((c) => metadataMentions(c, id.domain)) ?? null;
    case 'registration':
      return (await ownCompanies(ctx)).find((c) => c.country === id.country && c.registrationNumber?.toUpperCase() === id.number) ?? null;
  }
}

export async function resolveTaxpayer(ctx: Context, id: TaxpayerId, livemode: boolean, raw: string): Promise<Taxpayer> {
  const company = await platformCompany(ctx, id, livemode);
  if (company) return fromCompany(company, id);
  const vat = vatOf(id);
  if (vat) {
    // A registry that is down, or knows nothing of the number, leaves the next layer to answer.
    const found = await call(ctx, lookupRegistry, { vatNumber: vat, livemode });
    const named = found.status === 'active' || found.status === 'inactive' ? fromRegistry(id, found) : null;
    if (named) return named;
  }
  const derived = fromIdentifier(id);
  if (derived) return derived;
  throw notFound('Taxpayer', raw);
}
