/**
 * The French UBL generator. Rendering runs on the document workers (inline for small inputs), the
 * verdict comes from the validation service with the destination country FR (XSD, EN 16931 or
 * EXTENDED-CTC-FR, BR-FR), and a stored document is read through the documents contract, so the
 * caller's access rules apply. Nothing here writes to a table.
 */
import type { Context, ServiceSchema } from 'moleculer';
import { implement } from '../shared/contract.ts';
import { call } from '../shared/call.ts';
import { DomainError, rethrowAsDomainError, type FieldIssue } from '../shared/errors.ts';
import { systemClock } from '../shared/clock.ts';
import { acquireWorkerPool, releaseWorkerPool, type WorkerPool } from '../shared/worker-pool.ts';
import { FRENCH_UBL_EXAMPLES, frenchUblExample, withJsonLocations, type FrenchFacts } from '../../mappings/index.ts';
import { validate } from '../validation/validation.contract.ts';
import { xmlRepresentation } from '../documents/documents.contract.ts';
import { GENERATOR_TASKS, type Rendered } from './generator.tasks.ts';
import {
  convert, fromDocument, generate, getTemplate, listTemplates, preview, validateFrench,
  type Finding, type FrenchOptions, type GenerateParams, type GeneratedDocument, type TemplateView,
} from './generator.contract.ts';

interface GeneratorThis { workers: WorkerPool }

const today = (): string => systemClock.now().toISOString().slice(0, 10);

/** Rendering on a worker (inline under the pool's threshold); pure-layer errors become DomainErrors. */
async function render(self: GeneratorThis, fn: string, args: unknown[], size: number): Promise<Rendered> {
  try {
    return await self.workers.run<Rendered>(GENERATOR_TASKS, fn, args, size);
  } catch (err) {
    rethrowAsDomainError(err);
  }
}

function sizeOf(value: unknown): number {
  return typeof value === 'string' ? Buffer.byteLength(value) : Buffer.byteLength(JSON.stringify(value ?? null));
}

/** The French packs' verdict on XML we wrote; findings of a JSON input also name the body's field. */
async function judge(ctx: Context, rendered: Rendered, syntax: 'ubl' | 'cii', fromJson: boolean): Promise<GeneratedDocument> {
  const result = await call(ctx, validate, { format: syntax === 'ubl' ? 'ubl-xml' : 'cii-xml', xml: rendered.xml, country: 'FR' });
  const findings: Finding[] = fromJson ? withJsonLocations(result.findings) : result.findings;
  return { ...rendered, syntax, valid: result.valid, packs: result.packs, findings };
}

function factsOf(french: FrenchOptions | undefined): FrenchFacts {
  return { ...(french ?? {}) };
}

function jsonInput(p: GenerateParams) {
  return { type: p.type, documentSubtype: p.documentSubtype, selfBilled: p.selfBilled, document: p.document };
}

async function renderAndJudge(self: GeneratorThis, ctx: Context<GenerateParams>): Promise<GeneratedDocument> {
  const rendered = await render(self, 'renderJson', [jsonInput(ctx.params), factsOf(ctx.params.french), today()], sizeOf(ctx.params.document));
  return judge(ctx, rendered, 'ubl', true);
}

/** 422 UBL_VALIDATION_FAILED naming the JSON fields first, the XPath where no field maps. */
function refused(doc: GeneratedDocument): DomainError {
  const fatal = doc.findings.filter((f) => f.severity === 'fatal');
  const details: FieldIssue[] = fatal.map((f) => ({ field: f.path ?? f.location, rule: f.rule, message: f.message }));
  return new DomainError('UBL_VALIDATION_FAILED', `The French invoice fails ${fatal.length} rule(s): ${[...new Set(fatal.map((f) => f.rule))].join(', ')}`, {
    details, extra: { findings: doc.findings },
  });
}

function missing(field: string, format: string): DomainError {
  return new DomainError('MISSING_FIELD', `format=${format} needs \`${field}\``, { details: [{ field, rule: 'required', message: `${field} is required with format=${format}` }] });
}

const GeneratorService: ServiceSchema = {
  name: 'generator',
  started() {
    (this as unknown as GeneratorThis).workers = acquireWorkerPool();
  },
  async stopped() {
    await releaseWorkerPool((this as unknown as GeneratorThis).workers);
  },
  actions: {
    generate: implement(generate, async function (this: GeneratorThis, ctx): Promise<GeneratedDocument> {
      const doc = await renderAndJudge(this, ctx);
      if (!doc.valid) throw refused(doc);
      return doc;
    }),

    preview: implement(preview, async function (this: GeneratorThis, ctx): Promise<GeneratedDocument> {
      return renderAndJudge(this, ctx);
    }),

    validate: implement(validateFrench, async function (this: GeneratorThis, ctx) {
      const p = ctx.params;
      let doc: GeneratedDocument;
      if (p.format === 'json') {
        if (!p.document) throw missing('document', 'json');
        const rendered = await render(this, 'renderJson', [jsonInput({ ...p, document: p.document }), factsOf(p.french), today()], sizeOf(p.document));
        doc = await judge(ctx, rendered, 'ubl', true);
      } else {
        if (!p.xml) throw missing('xml', 'ubl-xml');
        const result = await call(ctx, validate, { format: 'ubl-xml', xml: p.xml, country: 'FR' });
        return { valid: result.valid, profile: result.profile, packs: result.packs, findings: result.findings };
      }
      return { valid: doc.valid, profile: doc.customizationId.includes('extended-ctc-fr') ? 'extended-ctc-fr' : 'en16931', packs: doc.packs, findings: doc.findings };
    }),

    convert: implement(convert, async function (this: GeneratorThis, ctx): Promise<GeneratedDocument> {
      const { to, xml, french } = ctx.params;
      const fn = to === 'ubl' ? 'renderXmlAsFrenchUbl' : 'renderUblAsCii';
      const rendered = await render(this, fn, [xml, factsOf(french), 'xml'], sizeOf(xml));
      return judge(ctx, rendered, to, false);
    }),

    listTemplates: implement(listTemplates, async () => ({
      data: FRENCH_UBL_EXAMPLES.map(({ id, name, description }) => ({ id, name, description })),
    })),

    getTemplate: implement(getTemplate, async (ctx): Promise<TemplateView> => {
      const example = frenchUblExample(ctx.params.id);
      if (!example) throw new DomainError('RESOURCE_NOT_FOUND', `No French UBL template '${ctx.params.id}'; GET /v1/fr/ubl/templates lists them`);
      // A copy: the shipped examples are frozen and shared.
      return structuredClone({ ...example, body: example.body as GenerateParams });
    }),

    fromDocument: implement(fromDocument, async function (this: GeneratorThis, ctx): Promise<GeneratedDocument> {
      let xml: string;
      try {
        const stored = await call(ctx, xmlRepresentation, { id: ctx.params.id });
        xml = typeof stored === 'string' ? stored : Buffer.isBuffer(stored) ? stored.toString('utf8') : JSON.stringify(stored);
      } catch (err) {
        if ((err as { type?: string }).type === 'RESOURCE_NOT_FOUND') {
          throw new DomainError('INVALID_REQUEST', `Document '${ctx.params.id}' has no structured XML: only invoices and credit notes in UBL or CII can be written as French UBL`, {
            details: [{ field: 'id', rule: 'structured-invoice', message: 'the stored document is not a UBL or CII invoice' }],
          });
        }
        throw err;
      } finally {
        // The representation set the XML media type for its own HTTP answer; this answer is JSON.
        delete (ctx.meta as { $responseType?: string }).$responseType;
      }
      const rendered = await render(this, 'renderXmlAsFrenchUbl', [xml, factsOf(ctx.params.french), 'id'], sizeOf(xml));
      return judge(ctx, rendered, 'ubl', false);
    }),
  },
};

export default GeneratorService;
