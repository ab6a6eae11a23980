/**
 * The validation work itself, run on a document worker (services/shared/worker-pool.ts), or inline
 * for small inputs. Pure: no Moleculer, no I/O beyond the engine's packs; arguments and result are
 * plain data (they cross to the worker process as structured clones).
 */
import { jsonToCanonical, canonicalToUbl, ingestAuto } from '../../mappings/index.ts';
import { validate as runValidation, warmUp as warmUpEngine, type ValidateOptions, type ValidationResult } from './engine/index.ts';
import { decodeBase64Field } from '../shared/errors.ts';
import { validateReport, type ReportFinding } from './engine/reporting.ts';

export const VALIDATION_TASKS = import.meta.url;

/** What to validate, once the service has checked the fields its format needs. */
export type ValidationInput =
  | { format: 'json'; type: string | undefined; documentSubtype: string | number | undefined; selfBilled: boolean | undefined; document: Record<string, unknown>; today: string }
  | { format: 'ubl-xml' | 'cii-xml'; xml: string }
  /** The deposit as the caller sent it: decoding megabytes of base64 is work for the worker too. */
  | { format: 'auto'; base64: string };

export type ValidationOutcome = ValidationResult & { renderedXml?: string };

/** Called by a worker when it starts: XSDs and compiled packs are loaded before the first task. */
export function warmUp(): void {
  warmUpEngine();
}

export async function validateInput(input: ValidationInput, options: ValidateOptions): Promise<ValidationOutcome> {
  switch (input.format) {
    case 'json': {
      const canonical = jsonToCanonical({ type: input.type, documentSubtype: input.documentSubtype, selfBilled: input.selfBilled, document: input.document }, { today: input.today });
      const renderedXml = canonicalToUbl(canonical);
      return { ...runValidation(renderedXml, options), renderedXml };
    }
    case 'ubl-xml':
    case 'cii-xml':
      return runValidation(input.xml, options);
    case 'auto': {
      const deposit = await ingestAuto(decodeBase64Field(input.base64, 'file.content'));
      // A hybrid PDF is validated on the CII it carries; the caller's bytes stay the record.
      return runValidation(deposit.hybrid ? deposit.hybrid.xml : deposit.original, options);
    }
  }
}

/** The Peppol Reporting rules on a TSR or EUSR (services/validation/engine/reporting.ts): its findings, empty when valid. */
export async function validatePeppolReport(xml: string): Promise<ReportFinding[]> {
  return validateReport(xml);
}
