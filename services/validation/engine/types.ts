/** Public types of the validation engine (pure module: no Moleculer, no I/O beyond reading packs/XSDs). */

export type Severity = 'fatal' | 'warning';

export interface ValidationFinding {
  /** official rule id (BR-CO-10, PEPPOL-EN16931-R001 …) or 'XSD' for schema errors */
  rule: string;
  severity: Severity;
  /** XPath of the offending node (prefixes cbc/cac/ubl/cn/rsm/ram …), '' when unknown */
  location: string;
  /** business term / group ids (BT-131, BG-25 …), may be empty */
  bt: string[];
  /** plain-language message with the computed values */
  message: string;
  /** how to fix it, '' when the rule has none */
  hint: string;
  /** pack that produced the finding, e.g. 'en16931@1.3.16' or 'xsd:ubl-2.1' */
  source: string;
}

/** `zugferd-1`: a ZUGFeRD 1.0 CrossIndustryDocument, checked against its own schema (its rules run on the EN 16931 form derived from it). */
export type DocumentSyntax = 'ubl-invoice' | 'ubl-creditnote' | 'ubl-order' | 'cii' | 'cdar' | 'fatturapa' | 'pain.001' | 'zugferd-1';

export interface ValidationResult {
  /** true when no finding has severity 'fatal' */
  valid: boolean;
  /** detected profile, e.g. 'en16931', 'peppol-bis-billing-3.0', 'peppol-bis-selfbilling-3.0', 'xrechnung-3.0', 'extended-ctc-fr', 'factur-x-extended', 'unknown' */
  profile: string;
  syntax: DocumentSyntax;
  /** CustomizationID (UBL BT-24) or guideline id (CII), '' when absent */
  customizationId: string;
  /** packs that ran, as 'id@version' */
  packs: string[];
  findings: ValidationFinding[];
  /** Milliseconds each step took: `xsd` and each pack id (the validation-time metric, by pack). */
  timings?: Record<string, number>;
}

export interface ValidateOptions {
  /** destination country (ISO 3166-1 alpha-2): selects national packs */
  country?: string;
  /** skip XSD validation (default false) */
  skipXsd?: boolean;
  /** run only these packs (ids), instead of the registry's selection; used by the conformance runner */
  packs?: string[];
  /** packs (ids) to run besides the registry's selection: those the destination network applies whatever the CustomizationID */
  networkPacks?: string[];
  /** rule engine (default: EINV_RULE_ENGINE, compiled) */
  engine?: 'compiled' | 'saxon';
}

export interface InputIssue { field: string; rule: string; message: string }

/**
 * The input is not acceptable XML (not well-formed, DOCTYPE/entities, unknown root …).
 * Mapped by the gateway to 400 INVALID_REQUEST; `details` follows the error envelope.
 */
export class InvalidXmlInputError extends Error {
  readonly code = 'INVALID_REQUEST' as const;
  readonly details: InputIssue[];
  readonly data: { details: InputIssue[] };
  constructor(message: string, details: InputIssue[]) {
    super(message);
    this.name = 'InvalidXmlInputError';
    this.details = details;
    this.data = { details };
  }
}
