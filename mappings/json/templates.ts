/**
 * Templates decide which business terms a JSON-built document may carry. The rule (spec, "Rules on
 * lines" 3): what the caller states goes in its BT slot; a value the service infers goes in only
 * where the template marks the slot required; a BT renders only if the template declares a slot.
 */
import { PEPPOL_BIS3_CUSTOMIZATION_ID, PEPPOL_BIS3_PROFILE_ID } from '../canonical/codes.ts';

export type SlotUse = 'required' | 'optional';

export interface CustomFieldDefinition {
  /** Definition UUID. */
  id: string;
  name: string;
  type: 'text' | 'date' | 'number' | 'monetary' | 'address';
}

export interface Template {
  id: string;
  name: string;
  /** BT-24 written by documents built with this template. */
  customizationId: string;
  /** BT-23 written by documents built with this template. */
  profileId?: string;
  /** Slots keyed by term id (`BT-1`, `BG-23`, `EXT-FR-FE-185` …). A missing key means no slot. */
  slots: Readonly<Record<string, SlotUse>>;
  /** Custom fields the organization declared. */
  customFields?: readonly CustomFieldDefinition[];
  /**
   * French reform flow: credit/debit notes need BT-25/BT-26 (BR-FR-CO-04/05) and the mapped flow
   * drops BT-120/BT-121 (BR-FR-MAP-08/09), so the exemption wording is also carried in a note (BT-22).
   */
  frenchReform?: boolean;
}

/** EN 16931 terms Peppol BIS Billing 3.0 marks mandatory (1..1 or 1..n) in its UBL binding. */
const PEPPOL_REQUIRED = [
  'BT-1', 'BT-2', 'BT-3', 'BT-5', 'BT-23', 'BT-24', 'BT-27', 'BT-31', 'BT-34', 'BT-40', 'BT-44', 'BT-49', 'BT-55',
  'BT-81', 'BT-106', 'BT-109', 'BT-110', 'BT-112', 'BT-115', 'BT-116', 'BT-117', 'BT-118', 'BT-119', 'BT-126',
  'BT-129', 'BT-130', 'BT-131', 'BT-146', 'BT-151', 'BT-153', 'BG-23', 'BG-25',
];

/** Every EN 16931 business term: Peppol BIS 3.0 declares a slot for each of them. */
function en16931Terms(): string[] {
  const terms: string[] = [];
  for (let i = 1; i <= 165; i++) terms.push(`BT-${i}`);
  for (let i = 1; i <= 32; i++) terms.push(`BG-${i}`);
  return terms;
}

function slotsOf(all: string[], required: string[], extra: Record<string, SlotUse> = {}): Record<string, SlotUse> {
  const slots: Record<string, SlotUse> = {};
  for (const t of all) slots[t] = 'optional';
  for (const t of required) slots[t] = 'required';
  return { ...slots, ...extra };
}

/** The default template: Peppol BIS Billing 3.0 (EN 16931 CIUS), no extension terms. */
export const PEPPOL_BIS3_TEMPLATE: Template = Object.freeze({
  id: 'peppol-bis-billing-3.0',
  name: 'Peppol BIS Billing 3.0',
  customizationId: PEPPOL_BIS3_CUSTOMIZATION_ID,
  profileId: PEPPOL_BIS3_PROFILE_ID,
  slots: Object.freeze(slotsOf(en16931Terms(), PEPPOL_REQUIRED)),
});

/**
 * French reform flow (EN 16931 plus the CTC-FR extension terms that the API fills: incoterms,
 * line despatch references). Exemption reasons are dropped from the flow (BR-FR-MAP-08/09).
 */
export const FR_CTC_TEMPLATE: Template = Object.freeze({
  id: 'fr-ctc-extended',
  name: 'French e-invoicing reform (EXTENDED-CTC-FR)',
  customizationId: 'urn:cen.eu:en16931:2017#conformant#urn.cpro.gouv.fr:1p0:extended-ctc-fr',
  profileId: 'S1',
  slots: Object.freeze(
    slotsOf(en16931Terms(), PEPPOL_REQUIRED.filter((t) => t !== 'BT-34' && t !== 'BT-49' && t !== 'BT-23'), {
      'EXT-FR-FE-140': 'optional',
      'EXT-FR-FE-141': 'optional',
      'EXT-FR-FE-185': 'optional',
      'EXT-FR-FE-186': 'optional',
    }),
  ),
  frenchReform: true,
});

export function hasSlot(template: Template, term: string): boolean {
  return template.slots[term] !== undefined;
}

export function isRequired(template: Template, term: string): boolean {
  return template.slots[term] === 'required';
}
