/**
 * The Italian fields EN 16931 has no term for (the SDI recipient code, the certified e-mail, the
 * seller's tax regime, the codice fiscale, the transmission's sender and sequence number), read in
 * one order everywhere: the caller's explicit option, then the invoice's own data (an electronic
 * address or identifier of the right scheme), then its custom fields, then a documented default.
 * Each answer names where it came from, so a refusal points at the field to fix.
 */
import type { CanonicalInvoice, Party } from '../canonical/model.ts';
import {
  DEFAULT_REGIME_FISCALE, EAS_CODDEST, EAS_IPA, EAS_PEC, FOREIGN_SDI_CODE, NO_SDI_CODE, SCHEME_CODICE_FISCALE,
} from './codes.ts';

/** What the caller (the it-sdi connector, a test) states for one transmission; each wins over the invoice. */
export interface FatturaPaOptions {
  /** IdTrasmittente: who transmits to the SDI (an intermediary's country and codice fiscale). Default: the seller's VAT number. */
  transmitter?: { country: string; code: string };
  /** ProgressivoInvio: 1–10 letters or digits, unique per transmitter. Default: the last 10 letters and digits of the invoice number. */
  progressivoInvio?: string;
  /** CodiceDestinatario: the SDI code (7 characters) or the public office's IPA code (6 characters). */
  codiceDestinatario?: string;
  /** PECDestinatario: certified e-mail of the buyer, used when the code is 0000000. */
  pecDestinatario?: string;
  /** RegimeFiscale of the seller (RF01 … RF19). */
  regimeFiscale?: string;
}

/** A value and the path (in the canonical model) it was read from. */
export interface Sourced { value: string; path: string }

/** Custom-field keys this mapping reads (case-insensitive), on the document's custom fields. */
export const CUSTOM_FIELD_KEYS = {
  codiceDestinatario: 'codiceDestinatario',
  pecDestinatario: 'pecDestinatario',
  regimeFiscale: 'regimeFiscale',
  codiceFiscale: 'codiceFiscale',
} as const;

function customField(c: CanonicalInvoice, key: string, party?: 'seller' | 'buyer'): Sourced | undefined {
  const cf = c.extensions?.customFields;
  if (!cf || (party !== undefined && cf.party !== party)) return undefined;
  const i = cf.values.findIndex((v) => v.key.toLowerCase() === key.toLowerCase() && typeof v.value === 'string' && v.value.trim() !== '');
  if (i < 0) return undefined;
  return { value: (cf.values[i]!.value as string).trim(), path: `extensions.customFields.values[${i}]` };
}

/** CodiceDestinatario and the FatturaPA flavour it implies (a 6-character IPA code is a public administration: FPA12). */
export function recipientCode(c: CanonicalInvoice, o: FatturaPaOptions): Sourced {
  if (o.codiceDestinatario !== undefined) return { value: o.codiceDestinatario.trim().toUpperCase(), path: 'options.codiceDestinatario' };
  const ea = c.buyer.electronicAddress;
  if (ea && (ea.scheme === EAS_IPA || ea.scheme === EAS_CODDEST)) return { value: ea.value.trim().toUpperCase(), path: 'buyer.electronicAddress' };
  const custom = customField(c, CUSTOM_FIELD_KEYS.codiceDestinatario);
  if (custom) return { ...custom, value: custom.value.toUpperCase() };
  const country = c.buyer.address?.country;
  if (country !== undefined && country !== 'IT') return { value: FOREIGN_SDI_CODE, path: 'buyer.address.country' };
  return { value: NO_SDI_CODE, path: 'buyer.electronicAddress' };
}

export function recipientPec(c: CanonicalInvoice, o: FatturaPaOptions): Sourced | undefined {
  if (o.pecDestinatario !== undefined) return { value: o.pecDestinatario.trim(), path: 'options.pecDestinatario' };
  const ea = c.buyer.electronicAddress;
  if (ea?.scheme === EAS_PEC) return { value: ea.value.trim(), path: 'buyer.electronicAddress' };
  return customField(c, CUSTOM_FIELD_KEYS.pecDestinatario);
}

export function regimeFiscale(c: CanonicalInvoice, o: FatturaPaOptions): Sourced {
  if (o.regimeFiscale !== undefined) return { value: o.regimeFiscale.trim().toUpperCase(), path: 'options.regimeFiscale' };
  const custom = customField(c, CUSTOM_FIELD_KEYS.regimeFiscale, 'seller');
  return custom ? { ...custom, value: custom.value.toUpperCase() } : { value: DEFAULT_REGIME_FISCALE, path: 'default' };
}

/** The party's codice fiscale: its legal registration or an identifier with scheme 0210, or (for the caller's own party) a custom field. */
export function codiceFiscale(c: CanonicalInvoice, role: 'seller' | 'buyer'): Sourced | undefined {
  const p: Party = c[role];
  if (p.legalRegistration?.scheme === SCHEME_CODICE_FISCALE) return { value: p.legalRegistration.value.trim().toUpperCase(), path: `${role}.legalRegistration` };
  const i = p.identifiers?.findIndex((id) => id.scheme === SCHEME_CODICE_FISCALE) ?? -1;
  if (i >= 0) return { value: p.identifiers![i]!.value.trim().toUpperCase(), path: `${role}.identifiers[${i}]` };
  const custom = customField(c, CUSTOM_FIELD_KEYS.codiceFiscale, role);
  return custom ? { ...custom, value: custom.value.toUpperCase() } : undefined;
}

/** A VAT number split into IdPaese and IdCodice (`IT01234567890` → IT, 01234567890). */
export function splitVat(vat: string): { country: string; code: string } | undefined {
  const m = /^([A-Za-z]{2})\s*(\S.*)$/.exec(vat.trim());
  return m ? { country: m[1]!.toUpperCase(), code: m[2]!.replace(/\s+/g, '') } : undefined;
}

export function progressivoInvio(c: CanonicalInvoice, o: FatturaPaOptions): Sourced {
  if (o.progressivoInvio !== undefined) return { value: o.progressivoInvio, path: 'options.progressivoInvio' };
  const alnum = c.number.replace(/[^A-Za-z0-9]/g, '');
  return { value: alnum.slice(-10) || '1', path: 'number' };
}
