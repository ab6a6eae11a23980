/**
 * Who a portability taxpayer is, from the one string a caller gives (SIRET, SIREN, VAT number,
 * Peppol id, registration number, domain, e-mail or `name:<company>`). The identifier is read with
 * the house parsers (mappings/identifiers); then the layers are asked in order: this platform's
 * companies (`platform`, through tenancy), then the company registry of the VAT number's country
 * (`registry`: a French SIREN is asked under its FR VAT number), then what a checksum-valid identifier says by itself
 * (`identifier`: a SIREN is a French company, registered under 0009). A name, a domain, an e-mail
 * or a foreign registration number no company of ours matches resolves to nothing (404).
 */
import { DomainError } from '../shared/errors.ts';
import { isValidSiren, isValidSiret, sirenOfSiret } from '../../mappings/identifiers/siret.ts';
import { countryOfPeppolId, parsePeppolId, peppolIdFromVat } from '../../mappings/identifiers/peppol-id.ts';
import { countryOfVat, frenchVatOfSiren, isValidVatNumber, normaliseVat, sirenOfFrenchVat } from '../../mappings/identifiers/vat.ts';
import type { Resolution, Taxpayer } from './portability.contract.ts';

export type TaxpayerId =
  | { kind: 'siret'; siret: string; siren: string }
  | { kind: 'siren'; siren: string }
  | { kind: 'vat'; vat: string; country: string; siren: string | null }
  | { kind: 'peppol'; peppolId: string; country: string | null; siren: string | null }
  | { kind: 'registration'; number: string; country: string }
  | { kind: 'domain'; domain: string }
  | { kind: 'name'; name: string };

const invalid = (message: string, rule: string) => new DomainError('INVALID_REQUEST', message, { details: [{ field: 'taxpayer', rule, message }] });

/** What kind of identifier the caller gave. */
export function classifyTaxpayer(raw: string, country?: string): TaxpayerId {
  const value = raw.trim();
  if (/^name:/i.test(value)) {
    const name = value.slice(5).trim();
    if (!name) throw invalid('name: needs a company name after it', 'name');
    return { kind: 'name', name };
  }
  if (value.includes('@')) {
    const domain = value.slice(value.lastIndexOf('@') + 1).toLowerCase();
    if (!/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(domain)) throw invalid(`'${value}' is not an e-mail address`, 'email');
    return { kind: 'domain', domain };
  }
  const digits = value.replace(/[\s.]/g, '');
  if (/^\d{14}$/.test(digits) && (!country || country === 'FR')) {
    if (!isValidSiret(digits)) throw invalid(`SIRET ${digits} fails its check digit`, 'siret');
    return { kind: 'siret', siret: digits, siren: sirenOfSiret(digits) };
  }
  if (/^\d{9}$/.test(digits) && (!country || country === 'FR')) {
    if (!isValidSiren(digits)) throw invalid(`SIREN ${digits} fails its check digit`, 'siren');
    return { kind: 'siren', siren: digits };
  }
  const peppol = parsePeppolId(value);
  if (peppol) {
    const peppolId = `${peppol.scheme}:${peppol.identifier}`;
    const siren = peppol.scheme === '0009' || peppol.scheme === '0002' ? peppol.identifier.slice(0, 9) : peppol.scheme === '0225' ? peppol.identifier.split('_')[0]! : null;
    return { kind: 'peppol', peppolId, country: countryOfPeppolId(peppolId) ?? (siren ? 'FR' : null), siren: siren && isValidSiren(siren) ? siren : null };
  }
  const vat = normaliseVat(value);
  if (/^[A-Z]{2}[A-Z0-9]{2,}$/.test(vat) && isValidVatNumber(vat)) {
    const vatCountry = countryOfVat(vat) ?? vat.slice(0, 2);
    return { kind: 'vat', vat, country: vatCountry, siren: sirenOfFrenchVat(vat) ?? null };
  }
  if (/^[a-z0-9-]+(\.[a-z0-9-]+)*\.[a-z]{2,}$/i.test(value)) return { kind: 'domain', domain: value.toLowerCase().replace(/^www\./, '') };
  if (/^[A-Za-z0-9-]{2,40}$/.test(value)) {
    if (!country) {
      throw new DomainError('MISSING_FIELD', `'${value}' reads as a registration number, which names no country: give country`, { details: [{ field: 'country', rule: 'required', message: 'required for a registration number' }] });
    }
    return { kind: 'registration', number: value.toUpperCase(), country };
  }
  throw invalid(`'${value}' is not a SIRET, SIREN, VAT number, Peppol id, registration number, domain, e-mail or name:<company>`, 'identifier');
}

/** A company of this platform, as tenancy describes it. */
export interface KnownCompany {
  name: string;
  country: string;
  vatNumber: string | null;
  registrationNumber: string | null;
  peppolId: string | null;
}

/** The SIREN an identifier carries, when it is French. */
export function sirenOf(id: TaxpayerId): string | null {
  switch (id.kind) {
    case 'siret': case 'siren': return id.siren;
    case 'vat': case 'peppol': return id.siren;
    case 'registration': return id.country === 'FR' && isValidSiren(id.number) ? id.number : null;
    default: return null;
  }
}

export const siretOf = (id: TaxpayerId): string | null => (id.kind === 'siret' ? id.siret : null);

/** What the identifier says by itself, when it is enough to name a taxpayer (not a name, a domain or a bare number). */
export function fromIdentifier(id: TaxpayerId): Taxpayer | null {
  const siren = sirenOf(id);
  if (siren) {
    return { name: null, country: 'FR', registrationNumber: siren, peppolId: `0009:${siren}`, addressingIdentifier: id.kind === 'siret' ? `${siren}_${id.siret}` : siren, resolvedFrom: 'identifier' };
  }
  if (id.kind === 'vat') {
    let peppolId: string | null = null;
    try { peppolId = peppolIdFromVat(id.vat); } catch { /* a country without a VAT-derived scheme */ }
    return { name: null, country: id.country, registrationNumber: null, peppolId, addressingIdentifier: null, resolvedFrom: 'identifier' };
  }
  if (id.kind === 'peppol') return { name: null, country: id.country, registrationNumber: null, peppolId: id.peppolId, addressingIdentifier: null, resolvedFrom: 'identifier' };
  return null;
}

/** The VAT number a registry is asked under: the one given, or a French SIREN's. */
export function vatOf(id: TaxpayerId): string | null {
  if (id.kind === 'vat') return id.vat;
  const siren = sirenOf(id);
  return siren ? frenchVatOfSiren(siren) : null;
}

/** What the identifier says, named by the company registry that knows it. */
export function fromRegistry(id: TaxpayerId, found: { name: string | null; registrationNumber: string | null }): Taxpayer | null {
  const derived = fromIdentifier(id);
  if (!derived) return null;
  return { ...derived, name: found.name, registrationNumber: derived.registrationNumber ?? found.registrationNumber, resolvedFrom: 'registry' };
}

/** A company of ours, described as a taxpayer (its French addressing from the identifier given, when any). */
export function fromCompany(company: KnownCompany, id: TaxpayerId): Taxpayer {
  const siren = sirenOf(id) ?? (company.peppolId && /^0009:\d{9}$/.test(company.peppolId) ? company.peppolId.slice(5) : null) ?? (company.vatNumber ? sirenOfFrenchVat(company.vatNumber) ?? null : null);
  return {
    name: company.name,
    country: company.country,
    registrationNumber: company.registrationNumber ?? siren,
    peppolId: company.peppolId,
    addressingIdentifier: siren ? (id.kind === 'siret' ? `${siren}_${id.siret}` : siren) : null,
    resolvedFrom: 'platform',
  };
}

/**
 * The addresses a switch moves by default (spec): the resolved directory line and the Peppol id; a
 * French company with no declared line and not on Peppol: its own SIREN and SIRET.
 */
export function defaultAddressScope(taxpayer: Taxpayer, id: TaxpayerId): string[] {
  const scope: string[] = [];
  const add = (v: string | null | undefined) => { if (v && !scope.includes(v)) scope.push(v); };
  if (taxpayer.resolvedFrom === 'platform') {
    add(taxpayer.addressingIdentifier);
    add(taxpayer.peppolId);
  } else if (taxpayer.country === 'FR' && taxpayer.registrationNumber) {
    add(taxpayer.registrationNumber);
    add(siretOf(id));
  } else {
    add(taxpayer.peppolId);
  }
  return scope;
}

export function resolution(taxpayer: Taxpayer, id: TaxpayerId): Resolution {
  const regime = taxpayer.country === 'FR' ? 'FR_CTC' : taxpayer.peppolId ? 'PEPPOL' : 'UNKNOWN';
  const stillNeeded = (['name', 'country', 'registrationNumber', 'peppolId', 'addressingIdentifier'] as const).filter((k) => taxpayer[k] === null && !(k === 'addressingIdentifier' && taxpayer.country !== 'FR'));
  return { taxpayer, regime, requirements: { addressChanges: defaultAddressScope(taxpayer, id), reGrant: true, archiveHolder: 'outgoing_platform' }, stillNeeded };
}
