/**
 * Typed mapping failures. Codes are exactly the spec's SCREAMING_SNAKE error codes; the HTTP layer
 * (gateway error formatter) owns the code → status mapping, never this package.
 */
export type MappingErrorCode =
  | 'INVALID_REQUEST'
  | 'MISSING_FIELD'
  | 'INVALID_ENUM'
  | 'INVALID_VAT_FORMAT'
  | 'INVALID_IBAN'
  | 'INVALID_CURRENCY'
  | 'INVALID_DATE'
  /** An input exceeds a size or shape cap (inflated stream, XML elements/attributes/depth/text). */
  | 'PAYLOAD_TOO_LARGE';

export interface MappingErrorDetail {
  /** Dotted path into the caller's payload, e.g. `document.lines[2].vatCategory`. */
  field: string;
  /** The rule that failed: a business rule id (BR-CO-24) or a short schema rule name (required, enum …). */
  rule: string;
  message: string;
}

export class MappingError extends Error {
  override readonly name = 'MappingError';
  readonly code: string;
  readonly details: MappingErrorDetail[];

  constructor(code: MappingErrorCode | string, message: string, details: MappingErrorDetail[] = []) {
    super(message);
    this.code = code;
    this.details = details;
  }
}

/** One problem found while mapping; several are gathered so the caller sees all of them at once. */
export interface MappingIssue extends MappingErrorDetail {
  code: MappingErrorCode;
}

/** Collects issues across a whole payload and throws once, with the first issue's code. */
export class IssueCollector {
  readonly issues: MappingIssue[] = [];

  add(code: MappingErrorCode, field: string, rule: string, message: string): void {
    this.issues.push({ code, field, rule, message });
  }

  throwIfAny(): void {
    const first = this.issues[0];
    if (!first) return;
    const message = this.issues.length === 1 ? first.message : `${first.message} (and ${this.issues.length - 1} more)`;
    throw new MappingError(first.code, message, this.issues.map(({ field, rule, message: m }) => ({ field, rule, message: m })));
  }
}
