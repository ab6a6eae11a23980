/**
 * The `to` of a send: a Peppol id, a company id, or a French reception-point address
 * `{siren}_{siret}[_{suffix}]` (recognised by shape or by a routing prefix). The SIRET (preferred)
 * or SIREN drives recipient resolution; the suffix never enters the Peppol id and travels in
 * `metadata.recipientRouting`, where an explicit caller value wins.
 */
import { MappingError } from '../errors.ts';
import { parsePeppolId } from '../identifiers/peppol-id.ts';

export const ROUTING_PREFIXES = ['routage:', 'addressing:', 'adressage:', 'routing:', 'adr:'] as const;

export interface RecipientRouting {
  addressingIdentifier?: string;
  addressingSuffix?: string;
}

/** The `to` object echoed in the send response. */
export interface RecipientEcho {
  peppolId?: string;
  addressingIdentifier?: string;
  addressingSuffix?: string;
}

export type ParsedRecipient =
  | { kind: 'peppol'; peppolId: string; scheme: string; identifier: string; to: RecipientEcho; recipientRouting?: RecipientRouting }
  | { kind: 'company'; companyId: string; to: RecipientEcho; recipientRouting?: RecipientRouting }
  | {
      kind: 'reception-point';
      siren: string;
      siret?: string;
      suffix?: string;
      /** SIRET when present, else SIREN: what recipient resolution looks up. */
      addressingIdentifier: string;
      /** French participants register under 0009 with their SIREN (see company import). */
      peppolId: string;
      /** Routing carried in `metadata.recipientRouting` (explicit caller values win). */
      recipientRouting: RecipientRouting;
      to: RecipientEcho;
    };

const COMPANY_ID = /^(comp|org)_[A-Za-z0-9_-]+$/;
const SIREN = /^\d{9}$/;
const SIRET = /^\d{14}$/;
/** Suffix characters allowed in a French electronic address (0225: A–Z a–z 0–9 - _ .). */
const SUFFIX = /^[A-Za-z0-9.\-_]{1,100}$/;

function invalid(message: string): MappingError {
  return new MappingError('INVALID_REQUEST', message, [{ field: 'to', rule: 'recipient', message }]);
}

function explicitRouting(metadata: unknown): RecipientRouting | undefined {
  if (typeof metadata !== 'object' || metadata === null) return undefined;
  const r = (metadata as Record<string, unknown>).recipientRouting;
  if (typeof r !== 'object' || r === null) return undefined;
  const o = r as Record<string, unknown>;
  const out: RecipientRouting = {};
  if (typeof o.addressingIdentifier === 'string' && o.addressingIdentifier !== '') out.addressingIdentifier = o.addressingIdentifier;
  if (typeof o.addressingSuffix === 'string' && o.addressingSuffix !== '') out.addressingSuffix = o.addressingSuffix;
  return Object.keys(out).length ? out : undefined;
}

/**
 * Splits a composed address. Returns undefined when the text does not have the reception-point
 * shape; throws when a prefixed address is malformed (the caller said it is an address).
 */
function composed(text: string, prefixed: boolean): { siren: string; siret?: string; suffix?: string } | undefined {
  const parts = text.split('_');
  const [first, second, ...rest] = parts;
  let siren: string | undefined;
  let siret: string | undefined;
  let suffixParts: string[] = [];
  if (first !== undefined && SIREN.test(first)) {
    siren = first;
    if (second !== undefined && SIRET.test(second)) { siret = second; suffixParts = rest; }
    else if (second !== undefined) suffixParts = [second, ...rest];
  } else if (first !== undefined && SIRET.test(first)) {
    siret = first;
    siren = first.slice(0, 9);
    suffixParts = second !== undefined ? [second, ...rest] : [];
  }
  // Recognised by shape only when it is underscore-joined; a prefix also admits a bare SIREN/SIRET.
  if (!siren || (!prefixed && parts.length < 2)) {
    if (prefixed) throw invalid(`"${text}" is not a reception-point address {siren}_{siret}[_{suffix}]`);
    return undefined;
  }
  if (siret && siret.slice(0, 9) !== siren) throw invalid(`SIRET ${siret} does not belong to SIREN ${siren}`);
  const suffix = suffixParts.length ? suffixParts.join('_') : undefined;
  if (suffix !== undefined && !SUFFIX.test(suffix)) throw invalid(`reception-point suffix "${suffix}" has characters outside A–Z a–z 0–9 - _ .`);
  const out: { siren: string; siret?: string; suffix?: string } = { siren };
  if (siret) out.siret = siret;
  if (suffix !== undefined) out.suffix = suffix;
  return out;
}

export function parseRecipient(to: unknown, metadata?: unknown): ParsedRecipient {
  if (typeof to !== 'string' || to.trim() === '') {
    throw new MappingError('MISSING_FIELD', 'to is required', [{ field: 'to', rule: 'required', message: 'to is required for every type except event' }]);
  }
  const value = to.trim();
  const explicit = explicitRouting(metadata);
  if (COMPANY_ID.test(value)) {
    return explicit ? { kind: 'company', companyId: value, to: { ...explicit }, recipientRouting: explicit } : { kind: 'company', companyId: value, to: {} };
  }
  const lower = value.toLowerCase();
  const prefix = ROUTING_PREFIXES.find((p) => lower.startsWith(p));
  if (!prefix) {
    const peppol = parsePeppolId(value);
    if (peppol) {
      const peppolId = `${peppol.scheme}:${peppol.identifier}`;
      const base = { kind: 'peppol' as const, peppolId, scheme: peppol.scheme, identifier: peppol.identifier, to: { peppolId, ...explicit } };
      return explicit ? { ...base, recipientRouting: explicit } : base;
    }
  }
  const address = composed(prefix ? value.slice(prefix.length).trim() : value, prefix !== undefined);
  if (!address) throw invalid(`to "${value}" is neither a Peppol id <scheme>:<identifier>, a company id nor a reception-point address`);
  const addressingIdentifier = address.siret ?? address.siren;
  const derived: RecipientRouting = { addressingIdentifier };
  if (address.suffix !== undefined) derived.addressingSuffix = address.suffix;
  const recipientRouting: RecipientRouting = { ...derived, ...explicit };
  const peppolId = `0009:${address.siren}`;
  return {
    kind: 'reception-point',
    ...address,
    addressingIdentifier,
    peppolId,
    recipientRouting,
    to: { peppolId, ...recipientRouting },
  };
}
