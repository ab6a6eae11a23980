/**
 * generator: the French UBL generator (spec, "Other surfaces"). Our JSON invoice, a supplied UBL or
 * CII, or a stored document, written as UBL 2.1 for the French reform (EN 16931 + BR-FR, or the
 * EXTENDED-CTC-FR profile) and judged by the rule packs we ship. Nothing is stored: the result is
 * the XML to send (`POST /v1/documents/send` with `format: ubl-xml`) or to hand to a platform.
 */
import { defineAction, STRICT_REMOVE, type JsonSchema } from '../shared/contract.ts';
import { DOCUMENT_BODY_SCHEMA } from '../../mappings/json/document-schema.ts';
import { BILLING_FRAMEWORKS, FRENCH_PROFILES, OPERATION_CATEGORIES, PROCESSING_RULES, type FrenchFacts, type FrenchUblRequest } from '../../mappings/index.ts';
import { FINDING_SCHEMA, type ValidateResult } from '../validation/validation.contract.ts';

const SERVICE = 'generator';
const TAG = 'UBL generator (France)';

export type Finding = ValidateResult['findings'][number];
/** The French facts a caller may state (the rest of FrenchFacts is read from the document). */
export type FrenchOptions = NonNullable<FrenchUblRequest['french']>;

/** A French UBL (or CII) document as the generator wrote it, with the verdict of the French packs. */
export interface GeneratedDocument {
  /** The XML written: UBL 2.1 (`convert` to CII: CII D16B). */
  xml: string;
  syntax: 'ubl' | 'cii';
  /** BT-24 written. */
  customizationId: string;
  /** BT-23: the French billing framework (B1, S1, M1, B2 …). */
  billingFramework: string;
  /** The #BAR# note's processing rule (B2B, B2BINT …). */
  processingRule: string;
  /** false when a rule pack reports a fatal finding (only `preview`, `convert` and `fromDocument` answer with one). */
  valid: boolean;
  packs: string[];
  findings: Finding[];
}

const frenchParam = {
  type: 'object', optional: true, strict: 'remove',
  props: {
    profile: { type: 'enum', values: [...FRENCH_PROFILES], optional: true },
    operationCategory: { type: 'enum', values: [...OPERATION_CATEGORIES], optional: true },
    billingFramework: { type: 'enum', values: [...BILLING_FRAMEWORKS], optional: true },
    processingRule: { type: 'enum', values: [...PROCESSING_RULES], optional: true },
    paymentNotes: {
      type: 'object', optional: true, strict: 'remove',
      props: {
        recoveryFee: { type: 'string', optional: true, min: 1, max: 512 },
        latePenalties: { type: 'string', optional: true, min: 1, max: 512 },
        earlyPaymentDiscount: { type: 'string', optional: true, min: 1, max: 512 },
      },
    },
  },
  openapi: {
    type: 'object',
    description: 'What the French rules need beyond EN 16931; all optional',
    properties: {
      profile: { type: 'string', enum: [...FRENCH_PROFILES], description: '`cius-fr` (default): EN 16931 + BR-FR, BT-24 `urn:cen.eu:en16931:2017`; `extended-ctc-fr`: the French extended profile (AFNOR XP Z12-012)' },
      operationCategory: { type: 'string', enum: [...OPERATION_CATEGORIES], description: 'Category of operation (mandatory mention from September 2026): billing framework B1, S1 or M1 (default services)' },
      billingFramework: { type: 'string', enum: [...BILLING_FRAMEWORKS], description: 'BT-23 itself (cadre de facturation, BR-FR-08), e.g. S2 already paid, B4 final invoice after prepayment' },
      processingRule: { type: 'string', enum: [...PROCESSING_RULES], description: 'The #BAR# note (BR-FR-20); default B2B, which requires the buyer\'s SIREN' },
      paymentNotes: {
        type: 'object', description: 'Wording of the mandatory payment mentions (BR-FR-05); the statutory French wording when absent',
        properties: {
          recoveryFee: { type: 'string', description: '#PMT#: the fixed recovery fee (40 €)' },
          latePenalties: { type: 'string', description: '#PMD#: late-payment penalties' },
          earlyPaymentDiscount: { type: 'string', description: '#AAB#: early-payment discount, or its absence' },
        },
      },
    },
  },
} as const;

/** The JSON input: the send envelope's document fields plus `french`. */
const jsonParams = {
  type: { type: 'enum', values: ['invoice', 'credit-note'], optional: true },
  documentSubtype: { type: 'multi', optional: true, rules: [{ type: 'string', max: 64 }, { type: 'number', integer: true }] },
  selfBilled: { type: 'boolean', optional: true },
  document: { type: 'object', openapi: { ...DOCUMENT_BODY_SCHEMA, description: 'The invoice, exactly as `POST /v1/documents/send` takes it with `format: json`. French parties: `siren`, `siret`, `vatNumber`; `peppolId: 0225:<SIREN>_<suffix>` to address a directory suffix' } },
  french: frenchParam,
} as const;

export interface GenerateParams {
  type?: 'invoice' | 'credit-note';
  documentSubtype?: string | number;
  selfBilled?: boolean;
  document: Record<string, unknown>;
  french?: FrenchOptions;
}

const generatedSchema: JsonSchema = {
  type: 'object',
  required: ['xml', 'syntax', 'customizationId', 'billingFramework', 'processingRule', 'valid', 'packs', 'findings'],
  properties: {
    xml: { type: 'string', description: 'The document written (UBL 2.1; CII D16B for a conversion to CII)' },
    syntax: { type: 'string', enum: ['ubl', 'cii'] },
    customizationId: { type: 'string', description: 'BT-24 written', examples: ['urn:cen.eu:en16931:2017'] },
    billingFramework: { type: 'string', description: 'BT-23 written: the French billing framework', examples: ['S1'] },
    processingRule: { type: 'string', description: 'The #BAR# processing rule written', examples: ['B2B'] },
    valid: { type: 'boolean', description: 'false when a rule pack reports a fatal finding' },
    packs: { type: 'array', items: { type: 'string' }, description: 'Rule packs run (XSD, en16931 or extended-ctc-fr, br-fr)' },
    findings: { type: 'array', items: FINDING_SCHEMA, description: 'JSON input: each also names the body field (`path`, `jsonHint`)' },
  },
};

const MAPPING_ERRORS = 'INVALID_REQUEST, MISSING_FIELD, INVALID_ENUM, INVALID_VAT_FORMAT, INVALID_IBAN, INVALID_CURRENCY, INVALID_DATE: the body cannot make a French invoice (a seller without SIREN, a B2B buyer without one, a SIREN failing its check digit …); `details[].field` names each field';
const WORKER_ERRORS = {
  413: 'PAYLOAD_TOO_LARGE: body over EINV_MAX_BODY_BYTES, or a document over an input cap (details[].rule names it)',
  503: 'UPSTREAM_UNAVAILABLE: every document worker busy and the queue full; honour Retry-After',
};

export const generate = defineAction<GenerateParams, GeneratedDocument>(SERVICE, 'generate', {
  params: { ...STRICT_REMOVE, ...jsonParams },
  http: {
    method: 'POST', path: '/v1/fr/ubl/generate', access: 'send', tag: TAG, largeBody: true,
    summary: 'Generate a French reform UBL 2.1 invoice from the JSON invoice: SIREN (0002) and SIRET (0009) identifiers, 0225 directory addresses, billing framework (BT-23), #PMT#/#PMD#/#AAB#/#BAR# notes; refused unless it passes EN 16931 (or EXTENDED-CTC-FR) and BR-FR. Nothing is stored',
    errors: { 400: MAPPING_ERRORS, 422: 'UBL_VALIDATION_FAILED: a rule pack refuses the result (`details[].field` is the JSON path, `findings` in full); DOCUMENT_TOO_COMPLEX', ...WORKER_ERRORS },
    response: generatedSchema,
  },
});

export const preview = defineAction<GenerateParams, GeneratedDocument>(SERVICE, 'preview', {
  params: { ...STRICT_REMOVE, ...jsonParams },
  http: {
    method: 'POST', path: '/v1/fr/ubl/preview', access: 'send', tag: TAG, largeBody: true,
    summary: 'Render the JSON invoice as French UBL as `generate` would, and answer with it even when rule packs refuse it (`valid: false`, findings with JSON paths): for editing a draft. Nothing is stored',
    errors: { 400: MAPPING_ERRORS, 422: 'DOCUMENT_TOO_COMPLEX', ...WORKER_ERRORS },
    response: generatedSchema,
  },
});

export interface FrenchValidateParams extends Partial<GenerateParams> {
  format: 'json' | 'ubl-xml';
  xml?: string;
}

export interface FrenchValidation {
  valid: boolean;
  profile: string;
  packs: string[];
  findings: Finding[];
}

export const validateFrench = defineAction<FrenchValidateParams, FrenchValidation>(SERVICE, 'validate', {
  params: { ...STRICT_REMOVE, format: { type: 'enum', values: ['json', 'ubl-xml'] }, ...jsonParams, document: { ...jsonParams.document, optional: true }, xml: { type: 'string', optional: true, min: 1 } },
  http: {
    method: 'POST', path: '/v1/fr/ubl/validate', access: 'send', tag: TAG, largeBody: true,
    summary: 'Judge a French invoice by the French rule packs we ship (XSD, EN 16931 or EXTENDED-CTC-FR, BR-FR): `format: ubl-xml` a UBL you wrote (`xml`; findings locate by XPath), `format: json` the JSON invoice as the generator writes it (`document`, `french`; findings also name the JSON path)',
    errors: { 400: `MISSING_FIELD (\`xml\` or \`document\` for its format); ${MAPPING_ERRORS}`, 422: 'DOCUMENT_TOO_COMPLEX', ...WORKER_ERRORS },
    response: {
      type: 'object', required: ['valid', 'profile', 'packs', 'findings'],
      properties: {
        valid: { type: 'boolean', description: 'false when any finding is fatal' },
        profile: { type: 'string', examples: ['en16931', 'extended-ctc-fr'] },
        packs: { type: 'array', items: { type: 'string' } },
        findings: { type: 'array', items: FINDING_SCHEMA },
      },
    },
  },
});

export interface ConvertParams {
  /** The syntax wanted: `ubl` takes a CII invoice, `cii` a UBL one. */
  to: 'ubl' | 'cii';
  xml: string;
  french?: FrenchOptions;
}

export const convert = defineAction<ConvertParams, GeneratedDocument>(SERVICE, 'convert', {
  params: { ...STRICT_REMOVE, to: { type: 'enum', values: ['ubl', 'cii'] }, xml: { type: 'string', min: 1 }, french: frenchParam },
  http: {
    method: 'POST', path: '/v1/fr/ubl/convert', access: 'send', tag: TAG, largeBody: true,
    summary: 'Convert a French invoice between syntaxes through the EN 16931 model: `to: ubl` writes a CII D16B invoice as French UBL, `to: cii` a UBL invoice as CII; the French facts (SIREN, 0225 addresses, BT-23, notes) are completed as `generate` does, and the result is judged by the French packs (`valid`, `findings`)',
    errors: { 400: 'INVALID_REQUEST: `xml` is not well-formed, or not the syntax `to` converts from; MISSING_FIELD: the invoice cannot be French (no seller SIREN …)', 422: 'DOCUMENT_TOO_COMPLEX', ...WORKER_ERRORS },
    response: generatedSchema,
  },
});

export interface TemplateSummary { id: string; name: string; description: string }
export interface TemplateView extends TemplateSummary { body: GenerateParams }

const templateSummarySchema: JsonSchema = {
  type: 'object', required: ['id', 'name', 'description'],
  properties: { id: { type: 'string', examples: ['b2b-domestic-services'] }, name: { type: 'string' }, description: { type: 'string' } },
};

export const listTemplates = defineAction<Record<string, never>, { data: TemplateSummary[] }>(SERVICE, 'listTemplates', {
  params: { ...STRICT_REMOVE },
  http: {
    method: 'GET', path: '/v1/fr/ubl/templates', access: 'authenticated', tag: TAG,
    summary: 'Example bodies of `generate` for the common French cases (domestic B2B services, goods at several VAT rates, credit note, self-billing, already paid); each one generates a valid invoice',
    response: { type: 'object', required: ['data'], properties: { data: { type: 'array', items: templateSummarySchema } } },
  },
});

export const getTemplate = defineAction<{ id: string }, TemplateView>(SERVICE, 'getTemplate', {
  params: { ...STRICT_REMOVE, id: { type: 'string', min: 1, max: 64 } },
  http: {
    method: 'GET', path: '/v1/fr/ubl/templates/:id', access: 'authenticated', tag: TAG,
    summary: 'One example, with the body to post to `generate` as is',
    errors: { 404: 'RESOURCE_NOT_FOUND: no template with that id' },
    response: {
      type: 'object', required: ['id', 'name', 'description', 'body'],
      properties: {
        ...(templateSummarySchema.properties as Record<string, JsonSchema>),
        body: {
          type: 'object', required: ['document'], description: 'A body of POST /v1/fr/ubl/generate',
          properties: { type: { type: 'string', enum: ['invoice', 'credit-note'] }, selfBilled: { type: 'boolean' }, document: DOCUMENT_BODY_SCHEMA, french: frenchParam.openapi },
        },
      },
    },
  },
});

export const fromDocument = defineAction<{ id: string; french?: FrenchOptions }, GeneratedDocument>(SERVICE, 'fromDocument', {
  params: { ...STRICT_REMOVE, id: { type: 'string', min: 1, max: 64 }, french: frenchParam },
  http: {
    method: 'POST', path: '/v1/fr/ubl/documents/:id', access: 'documents.read', tag: TAG,
    summary: 'A stored invoice or credit note (sent or received, UBL or CII) written as French UBL, with the verdict of the French packs (`valid`, `findings`); the stored document is unchanged',
    errors: { 400: 'MISSING_FIELD: the stored invoice cannot be French (no seller SIREN …); INVALID_REQUEST: the stored document is not an invoice or credit note in UBL or CII', 404: 'DOCUMENT_NOT_FOUND', 422: 'DOCUMENT_TOO_COMPLEX', ...WORKER_ERRORS },
    response: generatedSchema,
  },
});

/** Re-exported for the service: what the French pre-step is given. */
export type { FrenchFacts };
