/**
 * The mandate a taxpayer gives the incoming platform: its decree items (who the taxpayer is, which
 * platform takes over, from when, which addresses), who will sign, and the agreement text rendered
 * from them. `mandateSha256` is the digest of the canonical items, so an approval check bound to it
 * (`portability:<requestRef>:<mandateSha256>`) approves exactly these; `agreementSha256` is the
 * digest of the text (or of the signed file a caller deposits).
 */
import { canonicalJson, sha256Hex } from './evidence-chain.ts';
import type { Signatory } from './portability.contract.ts';
import type { RecordedSignature } from './fold.ts';

export interface MandateTerms {
  reference: string;
  requestRef: string;
  taxpayerId: string | null;
  taxpayerName: string | null;
  incomingPlatform: string | null;
  outgoingPlatform: string | null;
  effectiveDate: string | null;
  addressScope: string[];
  signatory: Signatory | null;
}

/** The items the decree requires of a mandate, in the order they are reported missing. */
export const DECREE_ITEMS = ['taxpayerId', 'incomingPlatform', 'effectiveDate', 'addressScope'] as const;

export function missingDecreeItems(m: MandateTerms): string[] {
  return DECREE_ITEMS.filter((item) => {
    const v = m[item];
    return v === null || v === '' || (Array.isArray(v) && v.length === 0);
  });
}

/** What the mandate still lacks: decree items, then who signs, then the signature itself. */
export function mandateGaps(m: MandateTerms, signature: RecordedSignature | null): string[] {
  const gaps = missingDecreeItems(m);
  if (!m.signatory) gaps.push('signatory');
  if (!signature) gaps.push('signature');
  return gaps;
}

export function mandateSha256(m: MandateTerms): string {
  return sha256Hex(canonicalJson(m as unknown as Record<string, unknown>));
}

export const contextKeyOf = (requestRef: string, mandateDigest: string): string => `portability:${requestRef}:${mandateDigest}`;

/** The agreement the signatories approve: plain text, every decree item spelled out. */
export function renderAgreement(m: MandateTerms, digest: string): string {
  const line = (label: string, value: string | null) => `${label}: ${value ?? '(not given)'}`;
  return [
    'MANDAT DE CHANGEMENT DE PLATEFORME AGRÉÉE / MANDATE FOR A CHANGE OF APPROVED PLATFORM',
    '',
    line('Référence / Reference', m.reference),
    line('Demande / Request', m.requestRef),
    line('Assujetti / Taxpayer', m.taxpayerName),
    line('Identifiant / Taxpayer id (SIREN)', m.taxpayerId),
    line('Plateforme entrante / Incoming platform (matricule)', m.incomingPlatform),
    line('Plateforme sortante / Outgoing platform', m.outgoingPlatform),
    line('Date d\'effet / Effective date', m.effectiveDate),
    line('Adresses transférées / Addresses transferred', m.addressScope.length ? m.addressScope.join(', ') : null),
    line('Signataire / Signatory', m.signatory ? [m.signatory.name, m.signatory.role, m.signatory.email].filter(Boolean).join(', ') : null),
    '',
    'L\'assujetti mandate la plateforme entrante pour publier dans l\'annuaire, à la date d\'effet, les lignes d\'adressage ci-dessus et pour notifier la plateforme sortante.',
    'The taxpayer mandates the incoming platform to publish the addressing lines above in the annuaire from the effective date and to notify the outgoing platform.',
    '',
    `mandateSha256: ${digest}`,
    '',
  ].join('\n');
}
