/**
 * The French UBL generator's rendering, run on a document worker (services/shared/worker-pool.ts)
 * or inline for small inputs: JSON or a stored/supplied XML to the canonical model, the French
 * pre-step (mappings/ubl-2.1/cius-fr.ts), and the generic writers. Pure, plain data in and out.
 */
import { canonicalToCii, ciiToCanonical, detectCii, detectUbl, jsonToFrenchUbl, toCiusFr, canonicalToUbl, ublToCanonical, MappingError, type FrenchFacts } from '../../mappings/index.ts';

export const GENERATOR_TASKS = import.meta.url;

/** A rendered document and the French facts it ended up with. */
export interface Rendered {
  xml: string;
  customizationId: string;
  billingFramework: string;
  processingRule: string;
}

export interface JsonInput {
  type?: string;
  documentSubtype?: string | number;
  selfBilled?: boolean;
  document: Record<string, unknown>;
}

function describe(c: { customizationId: string; profileId?: string; notes?: Array<{ subjectCode?: string; text: string }> }, xml: string): Rendered {
  return {
    xml,
    customizationId: c.customizationId,
    billingFramework: c.profileId ?? '',
    processingRule: c.notes?.find((n) => n.subjectCode === 'BAR')?.text ?? '',
  };
}

/** The caller's JSON invoice as French UBL. */
export function renderJson(input: JsonInput, facts: FrenchFacts, today: string): Rendered {
  const { canonical, xml } = jsonToFrenchUbl({ ...input, type: input.type ?? 'invoice' }, facts, today);
  return describe(canonical, xml);
}

function canonicalOf(xml: string, field: string) {
  const bytes = Buffer.from(xml, 'utf8');
  if (detectUbl(bytes)) return ublToCanonical(bytes).canonical;
  if (detectCii(bytes)) return ciiToCanonical(bytes).canonical;
  throw new MappingError('INVALID_REQUEST', `${field} is neither a UBL 2.1 Invoice/CreditNote nor a CII CrossIndustryInvoice`, [{ field, rule: 'syntax', message: 'expected UBL 2.1 or CII D16B' }]);
}

/** A UBL or CII invoice (supplied, or a stored document's XML) rewritten as French UBL. */
export function renderXmlAsFrenchUbl(xml: string, facts: FrenchFacts, field: string): Rendered {
  const canonical = toCiusFr(canonicalOf(xml, field), facts);
  return describe(canonical, canonicalToUbl(canonical));
}

/** A UBL invoice as CII D16B, French facts kept (BT-23, subject-coded notes, SIREN and 0225 addresses). */
export function renderUblAsCii(xml: string, facts: FrenchFacts, field: string): Rendered {
  const bytes = Buffer.from(xml, 'utf8');
  if (!detectUbl(bytes)) throw new MappingError('INVALID_REQUEST', `${field} is not a UBL 2.1 Invoice or CreditNote`, [{ field, rule: 'syntax', message: 'expected UBL 2.1' }]);
  const canonical = toCiusFr(ublToCanonical(bytes).canonical, facts);
  return describe(canonical, canonicalToCii(canonical));
}
