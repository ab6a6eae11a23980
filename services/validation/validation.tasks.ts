/**
 * The validation work itself, run on a document worker (services/shared/worker-pool.ts), or inline
 * for small inputs. Pure: no Moleculer, no I/O beyond the engine's packs; arguments and result are
 * plain data (they cross to the worker process as structured clones).
 */
import { jsonToCanonical, canonicalToUbl, ingestAuto, zugferd1DeliveryForm, type AutoDeposit } from '../../mappings/index.ts';
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
      if (deposit.format === 'zugferd-1') return validateZugferd1(deposit, options);
      // A hybrid PDF is validated on the CII it carries; the caller's bytes stay the record.
      return runValidation(deposit.hybrid ? deposit.hybrid.xml : deposit.original, options);
    }
  }
}

/**
 * ZUGFeRD 1.0 (XML, or embedded in a PDF) is checked by what applies to it: its own schema on the
 * caller's XML, then the EN 16931 rules and the destination country's packs on the CII D16B derived
 * from its canonical view, which is the form it is delivered in (`renderedXml`; findings locate
 * into it). A network's packs are left to the form that network carries: send derives it with the
 * routing it knows (a Peppol UBL names the endpoints) and validates it again.
 */
function validateZugferd1(deposit: AutoDeposit, options: ValidateOptions): ValidationOutcome {
  const structural = runValidation(deposit.hybrid ? deposit.hybrid.xml : deposit.original, options);
  const form = zugferd1DeliveryForm(deposit.parsed.canonical, { syntax: 'cii' });
  const { networkPacks: _network, ...derivedOptions } = options;
  const rules = runValidation(form.xml, derivedOptions);
  return {
    valid: structural.valid && rules.valid,
    profile: structural.profile,
    syntax: structural.syntax,
    customizationId: structural.customizationId,
    packs: rules.packs,
    findings: [...structural.findings, ...rules.findings],
    timings: sumTimings(structural.timings, rules.timings),
    renderedXml: form.xml,
  };
}

function sumTimings(...parts: Array<Record<string, number> | undefined>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of parts) for (const [step, ms] of Object.entries(part ?? {})) out[step] = (out[step] ?? 0) + ms;
  return out;
}

/** The Peppol Reporting rules on a TSR or EUSR (services/validation/engine/reporting.ts): its findings, empty when valid. */
export async function validatePeppolReport(xml: string): Promise<ReportFinding[]> {
  return validateReport(xml);
}
