/**
 * AFNOR XP Z12-013 Directory Service 1.3.0 from our companies, pure. The French directory of this
 * platform is made of the French companies registered on the network (tenancy, read through the
 * directory service):
 *
 * - a legal unit (SIREN) per company: the first nine digits of its SIRET, else its French
 *   registration number, Peppol id (0009 / 0002) or VAT number;
 * - a facility (SIRET) per company with a SIRET;
 * - routing codes: the company's `metadata.routingCodes` (`[{routingIdentifier, name?}]`, ICD 0224),
 *   sub-addresses under its SIRET, as the company publishes them through PATCH /v1/companies;
 * - directory lines: its electronic addresses `SIREN`, `SIREN_SIRET` and `SIREN_SIRET_CODEROUTAGE`.
 */
import type { FrenchCompany } from '../../tenancy/tenancy.contract.ts';

export interface LegalUnit { siren: string; businessName: string; entityType: 'Public' | 'PrivateVatRegistered'; administrativeStatus: 'A' }
export interface AddressRead { addressLine1?: string; addressLine2?: string; postalCode?: string; locality?: string; countryCode?: string }
export interface Facility { siret: string; siren: string; name: string; facilityType: 'P'; administrativeStatus: 'A'; address: AddressRead }
export interface RoutingCode {
  routingIdentifier: string; siret: string; routingIdentifierType: string; routingCodeName: string; managesLegalCommitmentCode: boolean;
  administrativeStatus: 'A'; address: AddressRead;
}
export interface DirectoryLine {
  addressingIdentifier: string; platformType: 'WK'; directoryLineStatus: 'Enabled'; siren: string; siret?: string; routingIdentifier?: string;
}

/** One company with everything the directory says of it. */
export interface FrenchEntity {
  legalUnit: LegalUnit;
  facility: Facility | undefined;
  routingCodes: RoutingCode[];
  lines: DirectoryLine[];
}

const clip = (text: string, max: number) => (text.length > max ? text.slice(0, max) : text);
/** ICD of French routing codes (code routage). */
const ROUTING_CODE_ICD = '0224';
const ROUTING_IDENTIFIER = /^(?!\s+$)[-_/a-zA-Z0-9]{1,100}$/;

export function sirenOf(c: Pick<FrenchCompany, 'siret' | 'registrationNumber' | 'peppolId' | 'vatNumber'>): string | undefined {
  if (c.siret && /^\d{14}$/.test(c.siret)) return c.siret.slice(0, 9);
  if (c.registrationNumber && /^\d{9}$/.test(c.registrationNumber)) return c.registrationNumber;
  const fromPeppol = c.peppolId ? /^(?:0009|0002):(\d{9})$/.exec(c.peppolId)?.[1] : undefined;
  if (fromPeppol) return fromPeppol;
  return c.vatNumber ? /^FR[0-9A-Z]{2}(\d{9})$/.exec(c.vatNumber)?.[1] : undefined;
}

function addressOf(c: FrenchCompany): AddressRead {
  const a = c.address ?? {};
  return {
    ...(a.street ? { addressLine1: clip(a.street, 255) } : {}),
    ...(a.streetLine2 ? { addressLine2: clip(a.streetLine2, 255) } : {}),
    ...(a.postalCode && /^\d{1,5}$/.test(a.postalCode) ? { postalCode: a.postalCode } : {}),
    ...(a.city ? { locality: clip(a.city, 100) } : {}),
    ...(a.country && /^[A-Z]{2}$/.test(a.country) ? { countryCode: a.country } : {}),
  };
}

function routingCodesOf(c: FrenchCompany, siret: string, address: AddressRead): RoutingCode[] {
  const listed = c.metadata?.routingCodes;
  if (!Array.isArray(listed)) return [];
  const codes: RoutingCode[] = [];
  for (const item of listed.slice(0, 100)) {
    const id = (item as { routingIdentifier?: unknown })?.routingIdentifier;
    if (typeof id !== 'string' || !ROUTING_IDENTIFIER.test(id)) continue;
    const name = (item as { name?: unknown }).name;
    codes.push({
      routingIdentifier: id, siret, routingIdentifierType: ROUTING_CODE_ICD,
      routingCodeName: clip(typeof name === 'string' && name.trim() ? name : id, 100),
      managesLegalCommitmentCode: false, administrativeStatus: 'A', address,
    });
  }
  return codes;
}

/** A company as the French directory shows it; undefined when no SIREN can be told. */
export function frenchEntity(c: FrenchCompany): FrenchEntity | undefined {
  const siren = sirenOf(c);
  if (!siren) return undefined;
  const address = addressOf(c);
  const legalUnit: LegalUnit = { siren, businessName: clip(c.legalName ?? c.name, 150), entityType: c.isPublic ? 'Public' : 'PrivateVatRegistered', administrativeStatus: 'A' };
  const siret = c.siret && /^\d{14}$/.test(c.siret) ? c.siret : undefined;
  const facility: Facility | undefined = siret ? { siret, siren, name: clip(c.name, 100), facilityType: 'P', administrativeStatus: 'A', address } : undefined;
  const routingCodes = siret ? routingCodesOf(c, siret, address) : [];
  const line = (addressingIdentifier: string, extra: Partial<DirectoryLine> = {}): DirectoryLine => ({ addressingIdentifier, platformType: 'WK', directoryLineStatus: 'Enabled', siren, ...extra });
  const lines = [line(siren)];
  if (siret) lines.push(line(`${siren}_${siret}`, { siret }));
  for (const rc of routingCodes) lines.push(line(`${siren}_${siret}_${rc.routingIdentifier}`, { siret: siret!, routingIdentifier: rc.routingIdentifier }));
  return { legalUnit, facility, routingCodes, lines };
}

/** `{op, value}` of an AFNOR search filter. */
export interface Match { op?: string; value?: string }

export function matches(actual: string | undefined, m: Match | undefined): boolean {
  if (!m || m.value === undefined) return true;
  if (actual === undefined) return false;
  const [a, v] = [actual.toLowerCase(), m.value.toLowerCase()];
  if (m.op === 'contains') return a.includes(v);
  if (m.op === 'startWith') return a.startsWith(v);
  return a === v;
}

/** What `include` embeds: kept whatever `fields` selects. */
const INCLUDED = ['legalUnit', 'facility', 'routingCode'];

/** The `fields` selection: only these top-level properties (all when none is asked), plus what `include` embedded. */
export function pick<T extends object>(row: T, fields: readonly string[] | undefined): Partial<T> {
  if (!fields?.length) return row;
  return Object.fromEntries(Object.entries(row).filter(([k]) => fields.includes(k) || INCLUDED.includes(k))) as Partial<T>;
}

/** `sorting: [{field, order}]`, applied in order. */
export function sortRows<T extends object>(rows: T[], sorting: ReadonlyArray<{ field?: string; order?: string }> | undefined): T[] {
  if (!sorting?.length) return rows;
  const value = (row: T, field: string) => {
    const v = (row as Record<string, unknown>)[field];
    return v === undefined || v === null ? '' : String(v);
  };
  return [...rows].sort((x, y) => {
    for (const s of sorting) {
      if (!s.field) continue;
      const c = value(x, s.field).localeCompare(value(y, s.field));
      if (c !== 0) return s.order === 'descending' ? -c : c;
    }
    return 0;
  });
}

/** One page of rows by AFNOR's `limit` / `ignore`. */
export function pageOf<T>(rows: T[], limit: number | undefined, ignore: number | undefined): T[] {
  const start = Math.max(0, ignore ?? 0);
  return rows.slice(start, start + Math.max(0, limit ?? rows.length));
}
