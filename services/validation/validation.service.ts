import type { ServiceSchema } from 'moleculer';
import { implement } from '../shared/contract.ts';
import { DomainError, isErrorCode, type FieldIssue } from '../shared/errors.ts';
import { systemClock } from '../shared/clock.ts';
import { jsonToCanonical, canonicalToUbl, ingestAuto, MappingError } from '../../mappings/index.ts';
import { validate as runValidation, warmUp, InvalidXmlInputError, type ValidationResult } from './engine/index.ts';
import { validate, type ValidateParams, type ValidateResult } from './validation.contract.ts';

/**
 * Errors of the pure layers (mappings, engine) carry the spec code and details at the top level;
 * at the service boundary they become DomainErrors, whose fields survive NATS transit.
 */
function asDomainError(err: unknown): never {
  if (err instanceof MappingError || err instanceof InvalidXmlInputError) {
    const code = isErrorCode(err.code) ? err.code : 'INVALID_REQUEST';
    throw new DomainError(code, err.message, { details: err.details as FieldIssue[] });
  }
  throw err;
}

function required<T>(value: T | undefined, field: string, format: string): T {
  if (value === undefined) throw new DomainError('MISSING_FIELD', `format=${format} needs \`${field}\``, { details: [{ field, rule: 'required', message: `${field} is required with format=${format}` }] });
  return value;
}

function decodeBase64(content: string): Buffer {
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(content.replace(/\s+/g, ''))) {
    throw new DomainError('INVALID_REQUEST', 'file.content must be base64', { details: [{ field: 'file.content', rule: 'base64', message: 'not base64' }] });
  }
  return Buffer.from(content, 'base64');
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
      const deposit = await ingestAuto(decodeBase64(required(params.file, 'file', 'auto').content));
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
        asDomainError(err);
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
