/**
 * Canonical → UBL 2.1 for the French e-invoicing reform (flux 2: EN 16931 + the BR-FR rules of
 * AFNOR XP Z12-012, optionally the EXTENDED-CTC-FR profile). Like cius-ro.ts, a pre-step over the
 * generic UBL writer (from-canonical.ts), never a second writer: it rewrites the canonical document
 * into what the French rules require and lets `canonicalToUbl` render it. What it changes:
 * - BT-24 is the profile's identifier (`urn:cen.eu:en16931:2017`, or the EXTENDED-CTC-FR one);
 * - BT-23 is the French billing framework (cadre de facturation, BR-FR-08): B1 goods, S1 services,
 *   M1 mixed (the "category of operation" the reform makes a mandatory mention), or the one stated;
 * - the three mandatory payment mentions travel as subject-coded notes (#PMT# recovery fee, #PMD#
 *   late-payment penalties, #AAB# early-payment discount, BR-FR-05), with the statutory wording when
 *   the caller gives none, and the processing rule as the #BAR# note (B2B, B2BINT …, BR-FR-20);
 * - a French party is identified by its SIREN (BT-30 / BT-47 with scheme 0002, from the SIREN, the
 *   SIRET or the French VAT number), its SIRET as party identifier (BT-29 / BT-46, scheme 0009), and
 *   is addressed in the French directory (BT-34 / BT-49, scheme 0225, starting with the SIREN:
 *   `SIREN`, `SIREN_SIRET`, `SIREN_SUFFIX`, BR-FR-21/22). A legacy Peppol id of a French company
 *   (0009 SIRET, 0002 SIREN) becomes the 0225 address of its SIREN.
 * What it cannot make up (a seller without SIREN, a B2B buyer without one, a SIREN or SIRET that
 * fails its check digit) is refused with a MappingError naming every field. Pure: no network, no clock.
 */
import type { CanonicalInvoice, Note, Party, SchemedId } from '../canonical/model.ts';
import { MappingError, type MappingErrorDetail } from '../errors.ts';
import { isValidSiren, isValidSiret } from '../identifiers/siret.ts';
import { FR_CTC_TEMPLATE, PEPPOL_BIS3_TEMPLATE, type Template } from '../json/templates.ts';
import { jsonToCanonical } from '../json/to-canonical.ts';
import { canonicalToUbl } from './from-canonical.ts';

/** The two French flux-2 profiles a UBL invoice can be written in. */
export const FRENCH_PROFILES = ['cius-fr', 'extended-ctc-fr'] as const;
export type FrenchProfile = (typeof FRENCH_PROFILES)[number];

/** BT-24 of each profile: the EN 16931 core (BR-FR runs on top) or the French extended profile. */
export const FRENCH_CUSTOMIZATION_IDS: Readonly<Record<FrenchProfile, string>> = {
  'cius-fr': 'urn:cen.eu:en16931:2017',
  'extended-ctc-fr': FR_CTC_TEMPLATE.customizationId,
};

/** BT-23 values the French rules allow (BR-FR-08): goods B, services S, mixed M; 1 plain, 2 already paid, 4 final after prepayment … */
export const BILLING_FRAMEWORKS = ['B1', 'S1', 'M1', 'B2', 'S2', 'M2', 'S3', 'B4', 'S4', 'M4', 'S5', 'S6', 'B7', 'S7', 'B8', 'S8', 'M8', 'B9', 'S9', 'M9'] as const;
/** The #BAR# note's processing rules (BR-FR-20). */
export const PROCESSING_RULES = ['B2B', 'B2BINT', 'B2C', 'B2CINT', 'OUTOFSCOPE', 'ARCHIVEONLY'] as const;
export const OPERATION_CATEGORIES = ['goods', 'services', 'mixed'] as const;

/** What the French rules need beyond the EN 16931 model, as the caller states it (everything optional). */
export interface FrenchFacts {
  profile?: FrenchProfile;
  /** Category of operation (mandatory mention from September 2026): picks B1 / S1 / M1. */
  operationCategory?: (typeof OPERATION_CATEGORIES)[number];
  /** BT-23 itself, when it is not the plain framework of the category (already paid, final invoice …). */
  billingFramework?: (typeof BILLING_FRAMEWORKS)[number];
  /** The #BAR# note (default B2B). */
  processingRule?: (typeof PROCESSING_RULES)[number];
  /** Wording of the mandatory payment mentions; the statutory defaults below when absent. */
  paymentNotes?: { recoveryFee?: string; latePenalties?: string; earlyPaymentDiscount?: string };
  /** SIRETs stated for the parties (BT-29 / BT-46, scheme 0009), as the JSON body's `seller.siret` / `buyer.siret`. */
  sellerSiret?: string;
  buyerSiret?: string;
  /** The canonical parties came from swapped JSON fields (self-billing): problems name the caller's fields. */
  selfBilled?: boolean;
}

/** Statutory wording (Code de commerce L441-10; 40 € fixed recovery fee, D441-5). */
export const DEFAULT_PAYMENT_NOTES = {
  recoveryFee: 'Indemnité forfaitaire pour frais de recouvrement en cas de retard de paiement : 40 €',
  latePenalties: 'Pénalités de retard : trois fois le taux d\'intérêt légal',
  earlyPaymentDiscount: 'Pas d\'escompte pour paiement anticipé',
} as const;

/** The JSON mapping template of each profile: every EN 16931 slot, and no Peppol routing or BIS profile inferred. */
export function frenchTemplate(profile: FrenchProfile = 'cius-fr'): Template {
  if (profile === 'extended-ctc-fr') return FR_CTC_TEMPLATE;
  const slots = { ...PEPPOL_BIS3_TEMPLATE.slots, 'BT-23': 'optional' as const, 'BT-34': 'optional' as const, 'BT-49': 'optional' as const };
  return { id: 'fr-cius', name: 'French e-invoicing reform (EN 16931 + BR-FR)', customizationId: FRENCH_CUSTOMIZATION_IDS['cius-fr'], slots };
}

const SUBJECT_PREFIX = /^#([A-Z]{3})#/;

/** Notes as subject-coded notes: a caller's `#PMT#…` text note is the PMT note. */
function codedNotes(notes: readonly Note[]): Note[] {
  return notes.map((n) => {
    const m = n.subjectCode ? null : SUBJECT_PREFIX.exec(n.text);
    return m ? { subjectCode: m[1], text: n.text.slice(m[0].length) } : n;
  });
}

function frenchNotes(c: CanonicalInvoice, facts: FrenchFacts): Note[] {
  const notes = codedNotes(c.notes ?? []);
  const has = (code: string) => notes.some((n) => n.subjectCode === code);
  const wording = { ...DEFAULT_PAYMENT_NOTES, ...facts.paymentNotes };
  if (!has('PMT')) notes.push({ subjectCode: 'PMT', text: wording.recoveryFee });
  if (!has('PMD')) notes.push({ subjectCode: 'PMD', text: wording.latePenalties });
  if (!has('AAB')) notes.push({ subjectCode: 'AAB', text: wording.earlyPaymentDiscount });
  if (facts.processingRule || !has('BAR')) {
    const kept = notes.filter((n) => n.subjectCode !== 'BAR');
    kept.push({ subjectCode: 'BAR', text: facts.processingRule ?? 'B2B' });
    return kept;
  }
  return notes;
}

function processingRuleOf(notes: readonly Note[]): string {
  return notes.find((n) => n.subjectCode === 'BAR')?.text.trim() ?? 'B2B';
}

/** The SIREN a party states: its 0002 legal registration, else the one in its French VAT number (FR + 2 key digits + SIREN). */
function sirenOf(party: Party): string | undefined {
  if (party.legalRegistration?.scheme === '0002') return party.legalRegistration.value;
  if (party.legalRegistration && party.legalRegistration.scheme === undefined && /^\d{9}$/.test(party.legalRegistration.value)) return party.legalRegistration.value;
  const vat = party.vatId && /^FR[0-9A-Z]{2}(\d{9})$/.exec(party.vatId);
  if (vat) return vat[1];
  if (party.electronicAddress?.scheme === '0002') return party.electronicAddress.value;
  if (party.electronicAddress?.scheme === '0009' && /^\d{14}$/.test(party.electronicAddress.value)) return party.electronicAddress.value.slice(0, 9);
  return undefined;
}

function isFrench(party: Party): boolean {
  return party.address?.country === 'FR' || (party.vatId?.startsWith('FR') ?? false) || party.legalRegistration?.scheme === '0002'
    || ['0002', '0009', '0225'].includes(party.electronicAddress?.scheme ?? '');
}

interface PartyRule { field: string; sirenRule: string; required: boolean }

function frenchParty(party: Party, siret: string | undefined, rule: PartyRule, problems: MappingErrorDetail[]): Party {
  const siren = sirenOf(party);
  if (!siren) {
    if (rule.required) problems.push({ field: `${rule.field}.siren`, rule: rule.sirenRule, message: `${rule.field} needs its SIREN (9 digits): give siren, siret or a French VAT number` });
    return party;
  }
  if (!isValidSiren(siren)) {
    problems.push({ field: `${rule.field}.siren`, rule: 'siren', message: `"${siren}" is not a SIREN: 9 digits whose Luhn check digit holds` });
    return party;
  }
  const out: Party = { ...party, legalRegistration: { value: siren, scheme: '0002' } };
  const identifiers: SchemedId[] = [...(party.identifiers ?? [])];
  const stated = party.electronicAddress;
  // A 0009 address of 14 digits is a legacy Peppol SIRET; of 9, the SIREN-based id Peppol derives from a French VAT number.
  const legacySiret = stated?.scheme === '0009' && /^\d{14}$/.test(stated.value) ? stated.value : undefined;
  for (const s of [siret, legacySiret]) {
    if (s === undefined || identifiers.some((i) => i.scheme === '0009' && i.value === s)) continue;
    if (!isValidSiret(s) || !s.startsWith(siren)) {
      problems.push({ field: `${rule.field}.siret`, rule: 'BR-FR-09', message: `"${s}" is not a SIRET of SIREN ${siren}: 14 digits starting with the SIREN, Luhn check digit` });
      continue;
    }
    identifiers.push({ value: s, scheme: '0009' });
  }
  if (identifiers.length) out.identifiers = identifiers;
  const address = party.electronicAddress;
  if (address?.scheme === '0225') {
    if (!address.value.startsWith(siren)) problems.push({ field: `${rule.field}.peppolId`, rule: 'BR-FR-21', message: `the French electronic address "${address.value}" must start with the SIREN ${siren}` });
  } else {
    out.electronicAddress = { value: siren, scheme: '0225' };
  }
  return out;
}

/** The canonical document as the French reform wants it; throws a MappingError listing every field it cannot fix. */
export function toCiusFr(c: CanonicalInvoice, facts: FrenchFacts = {}): CanonicalInvoice {
  const problems: MappingErrorDetail[] = [];
  const notes = frenchNotes(c, facts);
  const processingRule = processingRuleOf(notes);
  const b2b = processingRule === 'B2B';
  // Self-billing swapped the JSON roles: the canonical seller is the caller's `document.buyer`.
  const [sellerField, buyerField] = facts.selfBilled ? ['document.buyer', 'document.seller'] : ['document.seller', 'document.buyer'];
  const seller = frenchParty(c.seller, facts.sellerSiret, { field: sellerField, sirenRule: 'BR-FR-10', required: true }, problems);
  const buyer = isFrench(c.buyer) || b2b
    ? frenchParty(c.buyer, facts.buyerSiret, { field: buyerField, sirenRule: 'BR-FR-11', required: b2b }, problems)
    : c.buyer;
  if (!buyer.electronicAddress && !problems.some((p) => p.field.startsWith(buyerField))) problems.push({ field: `${buyerField}.peppolId`, rule: 'BR-FR-12', message: 'the buyer needs an electronic address (BT-49): a French buyer gets 0225:<SIREN>, a foreign one states its own' });
  if (problems.length) {
    throw new MappingError(problems[0]!.rule === 'siren' ? 'INVALID_REQUEST' : 'MISSING_FIELD', `The invoice cannot be written for the French reform: ${problems.map((p) => `${p.field}: ${p.message}`).join('; ')}`, problems);
  }
  // A document that already states a French framework keeps it unless the caller names a category or framework.
  const stated = (BILLING_FRAMEWORKS as readonly string[]).includes(c.profileId ?? '') && !facts.operationCategory ? c.profileId : undefined;
  const letter = { goods: 'B', services: 'S', mixed: 'M' }[facts.operationCategory ?? 'services'];
  return {
    ...c,
    customizationId: FRENCH_CUSTOMIZATION_IDS[facts.profile ?? 'cius-fr'],
    profileId: facts.billingFramework ?? stated ?? `${letter}1`,
    notes,
    seller,
    buyer,
  };
}

/** Renders the canonical document as a French flux-2 UBL Invoice (CreditNote for credit notes). */
export function canonicalToFrenchUbl(c: CanonicalInvoice, facts: FrenchFacts = {}): string {
  return canonicalToUbl(toCiusFr(c, facts));
}

/** What the French generator makes of a JSON body: the canonical invoice as written and its UBL. */
export interface FrenchUbl {
  canonical: CanonicalInvoice;
  xml: string;
}

function siretIn(party: unknown): string | undefined {
  const v = typeof party === 'object' && party !== null ? (party as Record<string, unknown>).siret : undefined;
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

/**
 * The send envelope's JSON (`type`, `selfBilled`, `document` …) as French UBL: the JSON mapping under
 * the profile's template, then {@link toCiusFr}. MappingErrors name the body's fields.
 */
export function jsonToFrenchUbl(envelope: { type?: string; documentSubtype?: string | number; selfBilled?: boolean; document: Record<string, unknown> }, facts: FrenchFacts, today: string): FrenchUbl {
  const mapped = jsonToCanonical(envelope, { template: frenchTemplate(facts.profile), today });
  const selfBilled = envelope.selfBilled === true && (envelope.type ?? 'invoice') === 'invoice';
  const [sellerJson, buyerJson] = selfBilled ? [envelope.document.buyer, envelope.document.seller] : [envelope.document.seller, envelope.document.buyer];
  const canonical = toCiusFr(mapped, { ...facts, selfBilled, sellerSiret: facts.sellerSiret ?? siretIn(sellerJson), buyerSiret: facts.buyerSiret ?? siretIn(buyerJson) });
  return { canonical, xml: canonicalToUbl(canonical) };
}
