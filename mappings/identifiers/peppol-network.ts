/**
 * Peppol network identifiers (Policy for use of identifiers 4.4, SMP 1.4, SML 1.3): the schemes,
 * the BIS Billing 3.0 document types, the SMP REST paths and the DNS names under which the SML
 * publishes a participant's SMP. Pure: shared by our SMP (services/smp) and the discovery client
 * (adapters/peppol-discovery).
 */
import { createHash } from 'node:crypto';
import { base32 } from '@scure/base';

export const PARTICIPANT_SCHEME = 'iso6523-actorid-upis';
export const DOCUMENT_SCHEME = 'busdox-docid-qns';
/** PINT document types may be published once for a whole family, under this scheme (`…::*`). */
export const WILDCARD_DOCUMENT_SCHEME = 'peppol-doctype-wildcard';
export const BILLING_PROCESS = { scheme: 'cenbii-procid-ubl', value: 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0' } as const;
export const AS4_TRANSPORT_PROFILE = 'peppol-transport-as4-v2_0';

/** Peppol BIS Billing 3.0 document type identifiers by API document type. */
export const BILLING_DOCUMENT_TYPES = {
  invoice: 'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1',
  'credit-note': 'urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2::CreditNote##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1',
} as const;

/** Peppol BIS Order 3.0 (order only): the UBL 2.1 Order's document type and its process. */
export const ORDER_DOCUMENT_TYPE_ID = 'urn:oasis:names:specification:ubl:schema:xsd:Order-2::Order##urn:fdc:peppol.eu:poacc:trns:order:3::2.1';
export const ORDER_PROCESS = { scheme: 'cenbii-procid-ubl', value: 'urn:fdc:peppol.eu:poacc:bis:order_only:3' } as const;

/** Every document type this platform carries over Peppol, by API document type. */
export const PEPPOL_DOCUMENT_TYPES = { ...BILLING_DOCUMENT_TYPES, 'purchase-order': ORDER_DOCUMENT_TYPE_ID } as const;

/** The Peppol document type id of an API document type, and the process it travels under; undefined when Peppol does not carry it here. */
export function peppolDocumentTypeOf(type: string): { documentTypeId: string; process: { scheme: string; value: string } } | undefined {
  if (type === 'purchase-order') return { documentTypeId: ORDER_DOCUMENT_TYPE_ID, process: ORDER_PROCESS };
  const documentTypeId = BILLING_DOCUMENT_TYPES[type as keyof typeof BILLING_DOCUMENT_TYPES];
  return documentTypeId ? { documentTypeId, process: BILLING_PROCESS } : undefined;
}

/** The API document type a Peppol document type identifier carries (BIS Billing and PINT invoices and credit notes, BIS Order 3.0 orders). */
export function apiTypeOfDocumentId(documentTypeId: string): 'invoice' | 'credit-note' | 'purchase-order' | undefined {
  if (documentTypeId === ORDER_DOCUMENT_TYPE_ID) return 'purchase-order';
  const root = documentTypeId.split('::')[1] ?? '';
  if (documentTypeId.startsWith('urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::') && root.startsWith('Invoice##')) return 'invoice';
  if (documentTypeId.startsWith('urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2::') && root.startsWith('CreditNote##')) return 'credit-note';
  return undefined;
}

/**
 * The wildcard registrations that may serve a PINT document type, most specific first (Policy for
 * use of identifiers 4.x, scheme peppol-doctype-wildcard): its customization ID cut after each `@`
 * from the right, with `*` appended. `…##urn:peppol:pint:billing-1@jp-1::2.1` gives
 * `…##urn:peppol:pint:billing-1@jp-1*::2.1` then `…##urn:peppol:pint:billing-1*::2.1`. Other
 * document types have none.
 */
export function wildcardCandidates(documentTypeId: string): string[] {
  const m = /^(.+?##)(urn:peppol:pint:[^:]*(?::[^:]+)*?)(::[^:]+)$/.exec(documentTypeId);
  if (!m) return [];
  const [, head, customization, version] = m as unknown as [string, string, string, string];
  const parts = customization.split('@');
  const out: string[] = [];
  for (let i = parts.length; i >= 1; i--) out.push(`${head}${parts.slice(0, i).join('@')}*${version}`);
  return out;
}

/** `{smp}/{pid}`: the service group (participant id with its scheme, percent-encoded). */
export function serviceGroupUrl(smpBaseUrl: string, participantId: string): string {
  return `${smpBaseUrl.replace(/\/+$/, '')}/${encodeURIComponent(`${PARTICIPANT_SCHEME}::${participantId}`)}`;
}

/** `{smp}/{pid}/services/{docid}`: both identifiers with their scheme, percent-encoded. */
export function serviceMetadataUrl(smpBaseUrl: string, participantId: string, documentTypeId: string, scheme = DOCUMENT_SCHEME): string {
  return `${serviceGroupUrl(smpBaseUrl, participantId)}/services/${encodeURIComponent(`${scheme}::${documentTypeId}`)}`;
}

/**
 * The U-NAPTR name of a participant (SML 1.3, BDXL): base32 of the SHA-256 of the lower-cased
 * value, lower case and without padding, then the scheme and the SML zone. Only the value is hashed.
 */
export function naptrName(participantId: string, smlZone: string, scheme = PARTICIPANT_SCHEME): string {
  const digest = createHash('sha256').update(participantId.toLowerCase(), 'utf8').digest();
  return `${base32.encode(digest).replace(/=+$/, '').toLowerCase()}.${scheme}.${smlZone}`;
}

/** The CNAME name the SML published before 2026-02 (`B-` + MD5 hex of the lower-cased value); kept for old data only. */
export function legacyCnameName(participantId: string, smlZone: string, scheme = PARTICIPANT_SCHEME): string {
  return `B-${createHash('md5').update(participantId.toLowerCase(), 'utf8').digest('hex')}.${scheme}.${smlZone}`;
}

/** SML zones OpenPeppol operates (since 2026-03-19). */
export const SML_ZONES = {
  production: 'participant.sml.prod.tech.peppol.org',
  test: 'participant.sml.test.tech.peppol.org',
} as const;

/**
 * The SMP base URL a NAPTR record of the SML gives: flag `U`, service `Meta:SMP`, and a regexp
 * `!^.*$!<url>!` whose replacement is the URL (any delimiter character). Undefined when the
 * record is not one.
 */
export function smpUrlOfNaptr(record: { flags: string; service: string; regexp: string }): string | undefined {
  if (record.flags.toUpperCase() !== 'U' || record.service.toLowerCase() !== 'meta:smp') return undefined;
  const delim = record.regexp[0];
  if (!delim) return undefined;
  const parts = record.regexp.split(delim);
  // ['', '^.*$', 'https://smp.example', ''] (flags after the last delimiter are not used)
  if (parts.length < 4 || parts[1] !== '^.*$') return undefined;
  const url = parts[2]!;
  return /^https?:\/\/[^\s]+$/i.test(url) ? url.replace(/\/+$/, '') : undefined;
}
