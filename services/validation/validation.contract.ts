/**
 * validation: one entry point for XSD + Schematron validation of UBL, CII (also inside a hybrid
 * PDF) or the JSON send body (rendered to UBL first). Used as is by `POST /v1/documents/validate`
 * and, later, by send (422 UBL_VALIDATION_FAILED with the findings in `details`).
 */
import { defineAction, STRICT_REMOVE } from '../shared/contract.ts';
import { DOCUMENT_BODY_SCHEMA } from '../../mappings/json/document-schema.ts';
import type { ValidationFinding } from './engine/index.ts';

export const INPUT_FORMATS = ['json', 'ubl-xml', 'cii-xml', 'auto'] as const;
export type InputFormat = (typeof INPUT_FORMATS)[number];

export interface ValidateParams {
  /** How the document is given; `json` renders the `document` body to UBL 2.1 (Peppol BIS 3.0) first. */
  format: InputFormat;
  /** Send-envelope fields used by the JSON path. */
  type?: string;
  documentSubtype?: string | number;
  selfBilled?: boolean;
  document?: Record<string, unknown>;
  xml?: string;
  file?: { content: string };
  /** Destination country (ISO 3166-1 alpha-2): adds its national rule packs. */
  country?: string;
  /** Destination network: `peppol` applies the Peppol BIS rules whatever the document's CustomizationID says. */
  network?: 'peppol';
}

/** The rule packs each destination network applies to everything it carries. */
export const NETWORK_PACKS: Record<NonNullable<ValidateParams['network']>, string[]> = { peppol: ['peppol-bis'] };

export interface ValidateResult {
  valid: boolean;
  profile: string;
  syntax: string;
  customizationId: string;
  packs: string[];
  findings: Array<Omit<ValidationFinding, 'bt'> & { bt: string | null; bts: string[]; sourceRule?: string; path?: string; jsonHint?: string }>;
  /** For `format=json`: the UBL the body was rendered to (what send would deliver); for a ZUGFeRD 1.0 deposit, the CII derived from it. */
  renderedXml?: string;
}

export const FINDING_SCHEMA = {
  type: 'object',
  required: ['rule', 'severity', 'location', 'message', 'hint'],
  properties: {
    rule: { type: 'string', examples: ['BR-CO-10'], description: 'The rule id: the official one (BR-CO-10, PEPPOL-EN16931-R001, BR-FR-12 …), except the Belgian UBL.BE rules, shown as the spec names Belgian errors: ubl-BE-NN as BR-BE-NN (same number), the UBL.BE id in `sourceRule`' },
    sourceRule: { type: 'string', examples: ['ubl-BE-01'], description: 'The official id when `rule` shows another (Belgian UBL.BE rules: `ubl-BE-NN` behind `BR-BE-NN`)' },
    severity: { type: 'string', enum: ['fatal', 'warning'] },
    location: { type: 'string', description: 'XPath of the offending node' },
    bt: { type: ['string', 'null'], description: 'First business term or group concerned (BT-…/BG-…)' },
    bts: { type: 'array', items: { type: 'string' } },
    message: { type: 'string', description: 'Plain-language explanation with the values found' },
    hint: { type: 'string', description: 'How to fix it' },
    source: { type: 'string', description: 'Pack that produced it, e.g. en16931@1.3.16 or xsd:ubl-2.1' },
    path: { type: 'string', description: 'format=json only: the field of the send body concerned, as a JSON path (document.lines[2].vatRate)', examples: ['document.lines[0].vatCategory'] },
    jsonHint: { type: 'string', description: 'format=json only: how to fix it in the JSON body (`hint` speaks of the UBL rendered from it)' },
  },
};

export const validate = defineAction<ValidateParams, ValidateResult>('validation', 'validate', {
  params: {
    ...STRICT_REMOVE,
    format: { type: 'enum', values: [...INPUT_FORMATS] },
    type: { type: 'string', optional: true, max: 32 },
    documentSubtype: { type: 'multi', optional: true, rules: [{ type: 'string', max: 64 }, { type: 'number', integer: true }] },
    selfBilled: { type: 'boolean', optional: true },
    document: { type: 'object', optional: true, openapi: DOCUMENT_BODY_SCHEMA },
    xml: { type: 'string', optional: true, min: 1 },
    file: { type: 'object', optional: true, props: { content: { type: 'string', min: 1 } } },
    country: { type: 'string', optional: true, pattern: /^[A-Z]{2}$/ },
    network: { type: 'enum', values: ['peppol'], optional: true },
  },
  http: {
    method: 'POST', path: '/v1/documents/validate', access: 'send', tag: 'Documents',
    rawBody: true, rawBodyFormat: 'auto', largeBody: true,
    summary: 'Validate a document without sending it: XSD, EN 16931, Peppol BIS 3.0 and the destination country\'s rules, with plain-language findings. `network: peppol` validates it as a Peppol delivery would: the Peppol BIS rules apply whatever its CustomizationID says. A non-JSON body is the document itself (format from the query, default auto; `country` and `network` in the query too)',
    errors: {
      413: 'PAYLOAD_TOO_LARGE: body over EINV_MAX_JSON_BYTES, or a document over an input cap (details[].rule: max-elements, max-attributes, max-depth, max-text-length, max-inflated-bytes, max-embedded-files, max-objects)',
      422: 'DOCUMENT_TOO_COMPLEX (processing exceeded its CPU-time or memory budget)',
      503: 'UPSTREAM_UNAVAILABLE: every document worker busy and the queue full; honour Retry-After',
    },
    response: {
      type: 'object',
      required: ['valid', 'profile', 'syntax', 'packs', 'findings'],
      properties: {
        valid: { type: 'boolean', description: 'false when any finding is fatal' },
        profile: { type: 'string' },
        syntax: { type: 'string' },
        customizationId: { type: 'string' },
        packs: { type: 'array', items: { type: 'string' } },
        findings: { type: 'array', items: FINDING_SCHEMA },
        renderedXml: { type: 'string', description: 'format=json: the UBL 2.1 the body renders to; format=auto with a ZUGFeRD 1.0 document: the CII D16B derived from it (what the EN 16931 rules ran on)' },
      },
    },
  },
});

/** One finding of the Peppol Reporting rules (SCH-TSR-NN / SCH-EUSR-NN): rule, severity, message, the node's XPath. */
export interface ReportFindingView {
  rule: string;
  flag: string;
  message: string;
  location: string;
}
/** Internal (reporting): the Peppol Reporting rules on a TSR 1.0 or EUSR 1.1 (empty: valid), on a worker. */
export const validatePeppolReport = defineAction<{ xml: string }, ReportFindingView[]>('validation', 'validatePeppolReport', {
  params: { xml: { type: 'string', min: 1, max: 16 * 1024 * 1024 } },
});

/** A kind of document: its syntax, CustomizationID and destination country. */
export interface RulePackQuery { syntax: 'ubl' | 'cii'; customizationId: string; country?: string }
/** A shipped rule pack: its id, release and title. */
export interface RulePackView { id: string; version: string; title: string }
/**
 * Internal (compliance): the rule packs a document of each kind runs, as the engine selects them
 * (the newest release of each); one answer per query, in order.
 */
export const rulePacks = defineAction<{ queries: RulePackQuery[] }, RulePackView[][]>('validation', 'rulePacks', {
  params: {
    queries: {
      type: 'array', max: 1_000,
      items: { type: 'object', props: { syntax: { type: 'enum', values: ['ubl', 'cii'] }, customizationId: { type: 'string', max: 512 }, country: { type: 'string', optional: true, pattern: /^[A-Z]{2}$/ } } },
    },
  },
});
