/**
 * VAT identifier shapes per country prefix. Shapes only (no check-digit algorithms): the registry
 * (VIES and national equivalents) is the authority on whether a number exists.
 */
import { countryOfVatPrefix } from '../canonical/codes.ts';

/** The API-level shape every VAT number must have (error INVALID_VAT_FORMAT otherwise). */
export const VAT_API_PATTERN = /^[A-Z]{2}[A-Z0-9]+$/;

/** National part of the VAT number (after the two-letter prefix), per prefix. */
export const VAT_SHAPES: Readonly<Record<string, RegExp>> = {
  // EU member states (VIES formats)
  AT: /^U\d{8}$/,
  BE: /^[01]\d{9}$/,
  BG: /^\d{9,10}$/,
  CY: /^\d{8}[A-Z]$/,
  CZ: /^\d{8,10}$/,
  DE: /^\d{9}$/,
  DK: /^\d{8}$/,
  EE: /^\d{9}$/,
  EL: /^\d{9}$/,
  ES: /^[A-Z0-9]\d{7}[A-Z0-9]$/,
  FI: /^\d{8}$/,
  FR: /^[0-9A-HJ-NP-Z]{2}\d{9}$/,
  HR: /^\d{11}$/,
  HU: /^\d{8}$/,
  IE: /^(\d{7}[A-W][A-IW]?|\d[A-Z+*]\d{5}[A-W])$/,
  IT: /^\d{11}$/,
  LT: /^(\d{9}|\d{12})$/,
  LU: /^\d{8}$/,
  LV: /^\d{11}$/,
  MT: /^\d{8}$/,
  NL: /^\d{9}B\d{2}$/,
  PL: /^\d{10}$/,
  PT: /^\d{9}$/,
  RO: /^\d{2,10}$/,
  SE: /^\d{10}01$/,
  SI: /^\d{8}$/,
  SK: /^\d{10}$/,
  // Northern Ireland (EU VAT rules for goods) and Great Britain
  XI: /^(\d{9}|\d{12}|GD\d{3}|HA\d{3})$/,
  GB: /^(\d{9}|\d{12}|GD\d{3}|HA\d{3})$/,
  // EEA / EFTA
  NO: /^\d{9}(MVA)?$/,
  IS: /^\d{5,6}$/,
  LI: /^\d{5}$/,
  CH: /^E\d{9}(MVA|TVA|IVA)?$/,
  // Other countries on the Peppol network
  AD: /^[A-Z]\d{6}[A-Z]$/,
  AL: /^[A-Z]\d{8}[A-Z]$/,
  BA: /^\d{12,13}$/,
  MC: /^\d{11}$/,
  ME: /^\d{8}$/,
  MK: /^\d{13}$/,
  RS: /^\d{9}$/,
  SM: /^\d{5}$/,
  TR: /^\d{10}$/,
  VA: /^\d{11}$/,
  AU: /^\d{11}$/,
  NZ: /^\d{8,9}$/,
  SG: /^(\d{8,9}[A-Z]|[A-Z]\d{2}[A-Z]{2}\d{4}[A-Z]|M\d{8}[A-Z])$/,
  JP: /^T\d{13}$/,
  MY: /^[A-Z0-9]{10,17}$/,
  AE: /^\d{15}$/,
  SA: /^\d{15}$/,
};

/** Strips spaces, dots and dashes callers often type, and upper-cases. */
export function normaliseVat(vat: string): string {
  return vat.replace(/[\s.\-]/g, '').toUpperCase();
}

/** True when the VAT number has the API shape and the national shape of its prefix. */
export function isValidVatNumber(vat: string): boolean {
  if (typeof vat !== 'string' || !VAT_API_PATTERN.test(vat)) return false;
  const shape = VAT_SHAPES[vat.slice(0, 2)];
  return shape !== undefined && shape.test(vat.slice(2));
}

/** ISO 3166 country of a VAT number's prefix (EL → GR), or undefined when it has no prefix. */
export function countryOfVat(vat: string): string | undefined {
  const m = /^([A-Z]{2})/.exec(vat);
  return m?.[1] ? countryOfVatPrefix(m[1]) : undefined;
}

/** SIREN (9 digits) inside a French VAT number FRkk + SIREN. */
export function sirenOfFrenchVat(vat: string): string | undefined {
  const m = /^FR[0-9A-HJ-NP-Z]{2}(\d{9})$/.exec(vat);
  return m?.[1];
}

/**
 * The French VAT number of a SIREN: FR, the numeric key (12 + 3 × (SIREN mod 97)) mod 97 on two
 * digits, then the SIREN — the number the tax administration assigns to a company with a SIREN.
 */
export function frenchVatOfSiren(siren: string): string {
  const key = (12 + 3 * (Number(siren) % 97)) % 97;
  return `FR${String(key).padStart(2, '0')}${siren}`;
}
