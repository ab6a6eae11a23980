import type { ServiceSchema } from 'moleculer';
import { implement } from '../shared/contract.ts';
import { DomainError, rethrowAsDomainError } from '../shared/errors.ts';
import { systemClock } from '../shared/clock.ts';
import { acquireWorkerPool, releaseWorkerPool, type WorkerPool } from '../shared/worker-pool.ts';
import { VALIDATION_TASKS, type ValidationInput, type ValidationOutcome } from './validation.tasks.ts';
import { NETWORK_PACKS, rulePacks, validate, validatePeppolReport, type ReportFindingView, type RulePackView, type ValidateParams, type ValidateResult } from './validation.contract.ts';
import { getRegistry } from './engine/index.ts';
import { publishedRuleId } from './published-rule-ids.ts';
import { observeSeconds } from '../shared/metrics.ts';
import { withJsonLocations } from '../../mappings/index.ts';

function required<T>(value: T | undefined, field: string, format: string): T {
  if (value === undefined) throw new DomainError('MISSING_FIELD', `format=${format} needs \`${field}\``, { details: [{ field, rule: 'required', message: `${field} is required with format=${format}` }] });
  return value;
}

function inputOf(params: ValidateParams): ValidationInput {
  switch (params.format) {
    case 'json':
      return { format: 'json', type: params.type, documentSubtype: params.documentSubtype, selfBilled: params.selfBilled, document: required(params.document, 'document', 'json'), today: systemClock.now().toISOString().slice(0, 10) };
    case 'ubl-xml':
    case 'cii-xml':
      return { format: params.format, xml: required(params.xml, 'xml', params.format) };
    case 'auto':
      return { format: 'auto', base64: required(params.file, 'file', 'auto').content };
  }
}

interface ValidationThis { workers: WorkerPool }

const ValidationService: ServiceSchema = {
  name: 'validation',
  started() {
    // Parsing and rule packs run on the document workers (off the event loop); each worker loads
    // the XSDs and compiled packs before it takes its first task.
    const self = this as unknown as ValidationThis;
    self.workers = acquireWorkerPool();
    self.workers.preload(VALIDATION_TASKS);
    // Workers boot now, not on the first request (skipped under jest, where most test apps never validate).
    if (process.env.NODE_ENV !== 'test') self.workers.startAll();
  },
  async stopped() {
    await releaseWorkerPool((this as unknown as ValidationThis).workers);
  },
  actions: {
    validate: implement(validate, async function (this: ValidationThis, ctx): Promise<ValidateResult> {
      let result: ValidationOutcome;
      try {
        const input = inputOf(ctx.params);
        const options = {
          ...(ctx.params.country ? { country: ctx.params.country } : {}),
          ...(ctx.params.network ? { networkPacks: NETWORK_PACKS[ctx.params.network] } : {}),
        };
        // Always on a worker, whatever the size: the rule packs take ~55 ms even for a one-line
        // invoice, as long inline (blocking every other request) as on a worker.
        result = await this.workers.submit<ValidationOutcome>(VALIDATION_TASKS, 'validateInput', [input, options]);
      } catch (err) {
        rethrowAsDomainError(err);
      }
      for (const [pack, ms] of Object.entries(result.timings ?? {})) observeSeconds(ctx.broker, 'validationPackDuration', ms, { pack });
      // Rules the spec names otherwise (UBL.BE's ubl-BE-NN as BR-BE-NN) keep their official id in `sourceRule`.
      const findings = result.findings.map((f) => ({ ...f, ...publishedRuleId(f.rule), bt: f.bt[0] ?? null, bts: f.bt }));
      return {
        valid: result.valid,
        profile: result.profile,
        syntax: result.syntax,
        customizationId: result.customizationId,
        packs: result.packs,
        // A JSON document is validated on the UBL rendered from it: its findings also name the JSON field.
        findings: ctx.params.format === 'json' ? withJsonLocations(findings) : findings,
        ...(result.renderedXml ? { renderedXml: result.renderedXml } : {}),
      };
    }),

    // Reads the pack manifest only (no rule is loaded): cheap on the service's own thread.
    rulePacks: implement(rulePacks, async (ctx): Promise<RulePackView[][]> => {
      const registry = getRegistry();
      return ctx.params.queries.map((q) => registry.select({ syntax: q.syntax, customizationId: q.customizationId, ...(q.country ? { country: q.country } : {}) })
        .map((f) => ({ id: f.pack, version: f.version, title: f.title })));
    }),

    validatePeppolReport: implement(validatePeppolReport, async function (this: ValidationThis, ctx): Promise<ReportFindingView[]> {
      try {
        return await this.workers.submit<ReportFindingView[]>(VALIDATION_TASKS, 'validatePeppolReport', [ctx.params.xml]);
      } catch (err) {
        rethrowAsDomainError(err);
      }
    }),
  },
};

export default ValidationService;
