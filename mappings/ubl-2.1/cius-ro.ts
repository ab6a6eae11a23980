/**
 * Canonical → UBL 2.1 under CIUS-RO 1.0.1, the form ANAF's RO e-Factura takes. A pre-step over the
 * generic UBL writer (from-canonical.ts), not a second writer: it rewrites the canonical document into
 * what CIUS-RO requires and lets `canonicalToUbl` render it, so element order and XSD validity stay the
 * writer's. What it changes:
 * - BT-24 becomes the CIUS-RO identifier (BR-RO-001);
 * - a Romanian address names its county as an ISO 3166-2:RO code (BR-RO-110/111: `Cluj`, `CJ`,
 *   `Județul Cluj` → `RO-CJ`) and a Bucharest address its sector as the city (BR-RO-100/101:
 *   `Sector 3`, `sectorul 3` → `SECTOR3`);
 * - a Romanian party's CUI/CIF (the digits of its RO VAT number) is its legal registration identifier
 *   when none is given (BT-30 / BT-47), so the buyer is identifiable (BR-RO-120).
 * What it cannot make up (a Romanian address without a county, a Bucharest address without its
 * sector, a foreign-currency invoice without its VAT in RON) is refused with a MappingError naming the
 * field, before anything reaches ANAF. Pure: no network, no clock.
 */
import type { Address, CanonicalInvoice, Party } from '../canonical/model.ts';
import { MappingError, type MappingErrorDetail } from '../errors.ts';
import { canonicalToUbl } from './from-canonical.ts';

/** BT-24 of CIUS-RO 1.0.1, exactly as ANAF checks it (BR-RO-001). */
export const CIUS_RO_CUSTOMIZATION_ID = 'urn:cen.eu:en16931:2017#compliant#urn:efactura.mfinante.ro:CIUS-RO:1.0.1';

/** ISO 3166-2:RO codes (without the `RO-` prefix) and the county's name, folded (no diacritics, lower case). */
const COUNTIES: Readonly<Record<string, string>> = {
  AB: 'alba', AG: 'arges', AR: 'arad', B: 'bucuresti', BC: 'bacau', BH: 'bihor', BN: 'bistrita nasaud',
  BR: 'braila', BT: 'botosani', BV: 'brasov', BZ: 'buzau', CJ: 'cluj', CL: 'calarasi', CS: 'caras severin',
  CT: 'constanta', CV: 'covasna', DB: 'dambovita', DJ: 'dolj', GJ: 'gorj', GL: 'galati', GR: 'giurgiu',
  HD: 'hunedoara', HR: 'harghita', IF: 'ilfov', IL: 'ialomita', IS: 'iasi', MH: 'mehedinti', MM: 'maramures',
  MS: 'mures', NT: 'neamt', OT: 'olt', PH: 'prahova', SB: 'sibiu', SJ: 'salaj', SM: 'satu mare', SV: 'suceava',
  TL: 'tulcea', TM: 'timis', TR: 'teleorman', VL: 'valcea', VN: 'vrancea', VS: 'vaslui',
};
const CODE_BY_NAME = new Map(Object.entries(COUNTIES).map(([code, name]) => [name, code]));
/** Other names of Bucharest a caller may write as the county. */
const BUCHAREST_NAMES = new Set(['bucuresti', 'bucharest', 'municipiul bucuresti', 'mun bucuresti']);

/** Lower case, no diacritics (ș ş ț ţ ă â î), hyphens and dots as spaces, single spaces. */
function fold(s: string): string {
  return s.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[-.]/g, ' ').replace(/\s+/g, ' ').trim();
}

/** The ISO 3166-2:RO code of what a caller wrote as the county, or undefined when it names none. */
export function romanianCountyCode(subdivision: string | undefined): string | undefined {
  if (subdivision === undefined || subdivision.trim() === '') return undefined;
  const raw = subdivision.trim().toUpperCase();
  const bare = raw.startsWith('RO-') ? raw.slice(3) : raw;
  if (COUNTIES[bare]) return `RO-${bare}`;
  const name = fold(subdivision).replace(/^(judetul|judet|jud) /, '');
  if (BUCHAREST_NAMES.has(name)) return 'RO-B';
  const code = CODE_BY_NAME.get(name);
  return code ? `RO-${code}` : undefined;
}

/** `SECTOR1` … `SECTOR6` from a Bucharest city as written (`Sector 3`, `sectorul 3`, `București, Sector 3`, `3`). */
export function bucharestSector(city: string | undefined): string | undefined {
  if (city === undefined) return undefined;
  const m = /^(?:.*\bsector(?:ul)?\s*)?([1-6])$/.exec(fold(city));
  return m ? `SECTOR${m[1]}` : undefined;
}

function romanianAddress(address: Address, field: string, problems: MappingErrorDetail[]): Address {
  const county = romanianCountyCode(address.subdivision);
  if (!county) {
    problems.push({
      field: `${field}.subdivision`, rule: 'BR-RO-110',
      message: address.subdivision
        ? `"${address.subdivision}" is not a Romanian county; give its ISO 3166-2:RO code (RO-CJ, RO-B …) or its name`
        : 'a Romanian address needs its county (ISO 3166-2:RO code such as RO-CJ, or RO-B for Bucharest)',
    });
    return address;
  }
  if (county !== 'RO-B') return { ...address, subdivision: county };
  const sector = bucharestSector(address.city);
  if (!sector) {
    problems.push({
      field: `${field}.city`, rule: 'BR-RO-100',
      message: `a Bucharest address names its sector as the city (SECTOR1 … SECTOR6); "${address.city ?? ''}" names none`,
    });
    return { ...address, subdivision: county };
  }
  return { ...address, subdivision: county, city: sector };
}

/** The CUI/CIF in a Romanian VAT number (`RO123456` → `123456`). */
export function cuiOfVat(vatId: string | undefined): string | undefined {
  const m = vatId ? /^RO\s*(\d{2,10})$/i.exec(vatId.trim()) : null;
  return m?.[1];
}

function romanianParty(party: Party, field: string, problems: MappingErrorDetail[]): Party {
  const out: Party = { ...party };
  if (party.address?.country === 'RO') out.address = romanianAddress(party.address, `${field}.address`, problems);
  const cui = cuiOfVat(party.vatId);
  if (!out.legalRegistration && cui && (party.address?.country ?? 'RO') === 'RO') out.legalRegistration = { value: cui };
  return out;
}

/** The canonical document as CIUS-RO wants it; throws a MappingError listing every field it cannot fix. */
export function toCiusRo(c: CanonicalInvoice): CanonicalInvoice {
  const problems: MappingErrorDetail[] = [];
  const out: CanonicalInvoice = {
    ...c,
    customizationId: CIUS_RO_CUSTOMIZATION_ID,
    seller: romanianParty(c.seller, 'document.seller', problems),
    buyer: romanianParty(c.buyer, 'document.buyer', problems),
  };
  if (c.taxRepresentative?.address.country === 'RO') {
    out.taxRepresentative = { ...c.taxRepresentative, address: romanianAddress(c.taxRepresentative.address, 'document.taxRepresentative.address', problems) };
  }
  const deliveryAddress = c.delivery?.address;
  if (c.delivery && deliveryAddress?.country === 'RO') {
    out.delivery = { ...c.delivery, address: romanianAddress(deliveryAddress, 'document.delivery.address', problems) };
  }
  if (c.currency !== 'RON' && c.vatAccountingCurrency !== 'RON') {
    problems.push({ field: 'document.vatAccountingCurrency', rule: 'BR-RO-030', message: `an invoice in ${c.currency} states its VAT in RON too (vatAccountingCurrency RON and the VAT total in RON)` });
  }
  if (problems.length) {
    throw new MappingError('INVALID_REQUEST', `The invoice cannot be written under CIUS-RO: ${problems.map((p) => `${p.field}: ${p.message}`).join('; ')}`, problems);
  }
  return out;
}

/** Renders the canonical document as a CIUS-RO 1.0.1 UBL Invoice (CreditNote for credit notes). */
export function canonicalToCiusRoUbl(c: CanonicalInvoice): string {
  return canonicalToUbl(toCiusRo(c));
}
