/**
 * Peppol participant identifiers `<ICD scheme>:<identifier>` derived from a VAT number. The scheme
 * comes from the VAT number's country prefix; the identifier is whatever that scheme registers
 * (the national company number where it is the VAT number's own digits, otherwise the VAT number).
 */
import { MappingError } from '../errors.ts';
import { VAT_API_PATTERN, isValidVatNumber } from './vat.ts';

export interface IcdRule {
  /** ISO 6523 ICD / Peppol EAS code used for participants of this prefix. */
  scheme: string;
  /** What the identifier is, for readers of the table. */
  registers: string;
  /** Builds the identifier from a valid VAT number of this prefix. */
  identifier: (vat: string) => string;
  /** National registry schemes of the country that a VAT number cannot be turned into. */
  registrySchemes?: readonly string[];
}

const whole = (vat: string): string => vat;
const national = (vat: string): string => vat.slice(2);

/** Prefix → scheme table for the EU/EEA and the other countries on the Peppol network. */
export const ICD_BY_VAT_PREFIX: Readonly<Record<string, IcdRule>> = {
  AT: { scheme: '9914', registers: 'Austrian VAT number (UID)', identifier: whole },
  BE: { scheme: '0208', registers: 'Belgian enterprise number (KBO/BCE), the VAT digits', identifier: national },
  BG: { scheme: '9926', registers: 'Bulgarian VAT number', identifier: whole },
  CY: { scheme: '9928', registers: 'Cypriot VAT number', identifier: whole },
  CZ: { scheme: '9929', registers: 'Czech VAT number', identifier: whole },
  DE: { scheme: '9930', registers: 'German VAT number (USt-IdNr.)', identifier: whole },
  DK: { scheme: '0184', registers: 'Danish CVR number (DIGSTORG), the VAT digits', identifier: national },
  EE: { scheme: '9931', registers: 'Estonian VAT number', identifier: whole },
  EL: { scheme: '9933', registers: 'Greek VAT number', identifier: whole },
  ES: { scheme: '9920', registers: 'Spanish VAT number (AEAT)', identifier: whole },
  FI: { scheme: '0213', registers: 'Finnish organisation VAT identifier', identifier: whole, registrySchemes: ['0212', '0216', '0037'] },
  FR: { scheme: '0009', registers: 'French SIREN, the last nine digits of the VAT number', identifier: (v) => v.slice(4), registrySchemes: ['0002', '0225', '9957'] },
  HR: { scheme: '9934', registers: 'Croatian VAT number', identifier: whole },
  HU: { scheme: '9910', registers: 'Hungarian VAT number', identifier: whole },
  IE: { scheme: '9935', registers: 'Irish VAT number', identifier: whole },
  IT: { scheme: '0211', registers: 'Italian partita IVA, with its IT prefix', identifier: whole, registrySchemes: ['0201', '0210'] },
  LT: { scheme: '9937', registers: 'Lithuanian VAT number', identifier: whole, registrySchemes: ['0200'] },
  LU: { scheme: '9938', registers: 'Luxembourg VAT number', identifier: whole },
  LV: { scheme: '9939', registers: 'Latvian VAT number', identifier: whole, registrySchemes: ['0218'] },
  MT: { scheme: '9943', registers: 'Maltese VAT number', identifier: whole },
  // NL: KvK (0106) and OIN (0190) are the Dutch registry schemes, but neither number can be
  // computed from a VAT number, so the VAT-based scheme 9944 is the one a VAT number yields.
  NL: { scheme: '9944', registers: 'Dutch VAT number', identifier: whole, registrySchemes: ['0106', '0190'] },
  PL: { scheme: '9945', registers: 'Polish VAT number', identifier: whole },
  PT: { scheme: '9946', registers: 'Portuguese VAT number', identifier: whole },
  RO: { scheme: '9947', registers: 'Romanian VAT number', identifier: whole },
  SE: { scheme: '0007', registers: 'Swedish organisation number, the ten digits inside the VAT number', identifier: (v) => v.slice(2, 12) },
  SI: { scheme: '9949', registers: 'Slovenian VAT number', identifier: whole },
  SK: { scheme: '9950', registers: 'Slovak VAT number', identifier: whole },
  XI: { scheme: '9932', registers: 'UK VAT number (Northern Ireland)', identifier: whole },
  GB: { scheme: '9932', registers: 'UK VAT number', identifier: whole },
  NO: { scheme: '0192', registers: 'Norwegian organisation number, the nine digits of the VAT number', identifier: (v) => v.slice(2, 11) },
  IS: { scheme: '0196', registers: 'Icelandic kennitala (as given after IS)', identifier: national },
  LI: { scheme: '9936', registers: 'Liechtenstein VAT number', identifier: whole },
  CH: { scheme: '9927', registers: 'Swiss VAT number (UID)', identifier: whole, registrySchemes: ['0183'] },
  AD: { scheme: '9922', registers: 'Andorran VAT number', identifier: whole },
  AL: { scheme: '9923', registers: 'Albanian VAT number', identifier: whole },
  BA: { scheme: '9924', registers: 'Bosnian VAT number', identifier: whole },
  MC: { scheme: '9940', registers: 'Monegasque VAT number', identifier: whole },
  ME: { scheme: '9941', registers: 'Montenegrin VAT number', identifier: whole },
  MK: { scheme: '9942', registers: 'North Macedonian VAT number', identifier: whole },
  RS: { scheme: '9948', registers: 'Serbian VAT number', identifier: whole },
  SM: { scheme: '9951', registers: 'San Marino VAT number', identifier: whole },
  TR: { scheme: '9952', registers: 'Turkish VAT number', identifier: whole },
  VA: { scheme: '9953', registers: 'Holy See VAT number', identifier: whole },
  AU: { scheme: '0151', registers: 'Australian Business Number', identifier: national },
  NZ: { scheme: '0088', registers: 'New Zealand NZBN (GLN), as given after NZ', identifier: national },
  SG: { scheme: '0195', registers: 'Singapore UEN', identifier: national },
  JP: { scheme: '0221', registers: 'Japanese qualified invoice issuer number (T + 13 digits)', identifier: national },
  MY: { scheme: '0230', registers: 'Malaysian TIN', identifier: national },
  AE: { scheme: '0235', registers: 'UAE TIN', identifier: national },
};

/** `<scheme>:<identifier>` for a VAT number; MappingError INVALID_VAT_FORMAT when the shape is wrong. */
export function peppolIdFromVat(vat: string): string {
  if (typeof vat !== 'string' || !VAT_API_PATTERN.test(vat)) {
    throw new MappingError('INVALID_VAT_FORMAT', `VAT number "${String(vat)}" does not match ^[A-Z]{2}[A-Z0-9]+$`, [
      { field: 'vatNumber', rule: 'pattern', message: 'country prefix, uppercase, no spaces' },
    ]);
  }
  const rule = ICD_BY_VAT_PREFIX[vat.slice(0, 2)];
  if (!rule) {
    throw new MappingError('INVALID_REQUEST', `No Peppol identifier scheme is known for VAT prefix ${vat.slice(0, 2)}`, [
      { field: 'vatNumber', rule: 'icd-scheme', message: `unsupported VAT prefix ${vat.slice(0, 2)}` },
    ]);
  }
  if (!isValidVatNumber(vat)) {
    throw new MappingError('INVALID_VAT_FORMAT', `VAT number ${vat} does not have the ${vat.slice(0, 2)} shape`, [
      { field: 'vatNumber', rule: 'vat-shape', message: `not a valid ${vat.slice(0, 2)} VAT number shape` },
    ]);
  }
  return `${rule.scheme}:${rule.identifier(vat)}`;
}

/** Splits `<scheme>:<identifier>` (also accepting the `iso6523-actorid-upis::` prefix). */
export function parsePeppolId(id: string): { scheme: string; identifier: string } | undefined {
  const m = /^(?:iso6523-actorid-upis::)?(\d{4}):(\S{1,130})$/i.exec(id.trim());
  if (!m?.[1] || !m[2]) return undefined;
  return { scheme: m[1], identifier: m[2] };
}

/** Schemes used worldwide even where one country's VAT rule maps to them (GLN: New Zealand's NZBN is one). */
const GLOBAL_SCHEMES: ReadonlySet<string> = new Set(['0088']);

/**
 * The country a Peppol id names, when its scheme is one of a single country's (the ICD table above:
 * 9945 Polish VAT, 0208 Belgian enterprise number, 0009 SIREN …) or, for a scheme two countries share
 * (9932: GB and XI), when the identifier starts with the country's VAT prefix. Routing uses it to put
 * a country's own connector (its tax platform) first.
 */
export function countryOfPeppolId(id: string): string | undefined {
  const parsed = parsePeppolId(id);
  if (!parsed || GLOBAL_SCHEMES.has(parsed.scheme)) return undefined;
  // The table is keyed by VAT prefix; Greece's (EL) is not its ISO 3166 code (GR).
  const iso = (prefix: string) => (prefix === 'EL' ? 'GR' : prefix);
  const countries = Object.entries(ICD_BY_VAT_PREFIX).filter(([, rule]) => rule.scheme === parsed.scheme).map(([country]) => country);
  if (countries.length === 1) return iso(countries[0]!);
  const found = countries.find((c) => parsed.identifier.toUpperCase().startsWith(c));
  return found && iso(found);
}

/**
 * The identifiers one participant goes by (Policy for use of identifiers 4.4 and the French
 * addressing rules): a Belgian company is registered under 0208 (its enterprise number) and also
 * found under 9925 (its VAT number); a French one under 0009 with its SIREN, also found under 0002
 * (SIREN), 9957 (VAT number) and 0225 (the French electronic address: the SIREN, then optionally
 * `_SIRET`, `_SIRET_ROUTING` or `_SUFFIX`). The input comes first; unknown schemes stand alone.
 */
export function participantAliases(peppolId: string): string[] {
  const parsed = parsePeppolId(peppolId);
  if (!parsed) return [peppolId];
  const { scheme, identifier } = parsed;
  const out = [`${scheme}:${identifier}`];
  const add = (id: string) => { if (!out.includes(id)) out.push(id); };
  const upper = identifier.toUpperCase();
  if (scheme === '9925' && /^BE[01]\d{9}$/.test(upper)) add(`0208:${upper.slice(2)}`);
  if (scheme === '0208' && /^[01]\d{9}$/.test(identifier)) add(`9925:BE${identifier}`);
  const siren = scheme === '0225' || scheme === '0002' || scheme === '0009' ? /^(\d{9})/.exec(identifier)?.[1]
    : scheme === '9957' ? /^FR[0-9A-Z]{2}(\d{9})$/.exec(upper)?.[1] : undefined;
  if (siren) for (const s of ['0009', '0002', '0225']) add(`${s}:${siren}`);
  return out;
}
