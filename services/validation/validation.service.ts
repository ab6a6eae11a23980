import type { ServiceSchema } from 'moleculer';
import { implement } from '../shared/contract.ts';
import { DomainError, rethrowAsDomainError, decodeBase64Field } from '../shared/errors.ts';
import { systemClock } from '../shared/clock.ts';
import { jsonToCanonical, canonicalToUbl, ingestAuto } from '../../mappings/index.ts';
import { validate as runValidation, warmUp, type ValidationResult } from './engine/index.ts';
import { validate, type ValidateParams, type ValidateResult } from './validation.contract.ts';

function required<T>(value: T | undefined, field: string, format: string): T {
  if (value === undefined) throw new DomainError('MISSING_FIELD', `format=${format} needs \`${field}\``, { details: [{ field, rule: 'required', message: `${field} is required with format=${format}` }] });
  return value;
}

async function run(params: ValidateParams): Promise<ValidationResult & { renderedXml?: string }> {
  const options = params.country ? { country: params.country } : {};
  switch (params.format) {
    case 'json': {
      const canonical = jsonToCanonical({ type: params.type, documentSubtype: params.documentSubtype, selfBilled: params.selfBilled, document: required(params.document, 'document', 'json') }, { today: systemClock.now().toISOString().slice(0, 10) });
      const renderedXml = canonicalToUbl(canonical);
      return { ...runValidation(renderedXml, options), renderedXml };
    }
    case 'ubl-xml':
    case 'cii-xml':
      return runValidation(required(params.xml, 'xml', params.format), options);
    case 'auto': {
      const deposit = await ingestAuto(decodeBase64Field(required(params.file, 'file', 'auto').content, 'file.content'));
      // A hybrid PDF is validated on the CII it carries; the caller's bytes stay the record.
      return runValidation(deposit.hybrid ? deposit.hybrid.xml : deposit.original, options);
    }
  }
}

const ValidationService: ServiceSchema = {
  name: 'validation',
  started() {
    // Load XSDs and compiled packs now rather than on the first request (skipped under jest,
    // where most test apps never validate).
    if (process.env.NODE_ENV !== 'test') warmUp();
  },
  actions: {
    validate: implement(validate, async (ctx): Promise<ValidateResult> => {
      let result: ValidationResult & { renderedXml?: string };
      try {
        result = await run(ctx.params);
      } catch (err) {
        rethrowAsDomainError(err);
      }
      return {
        valid: result.valid,
        profile: result.profile,
        syntax: result.syntax,
        customizationId: result.customizationId,
        packs: result.packs,
        findings: result.findings.map((f) => ({ ...f, bt: f.bt[0] ?? null, bts: f.bt })),
        ...(result.renderedXml ? { renderedXml: result.renderedXml } : {}),
      };
    }),
  },
};

export default ValidationService;
