/**
 * The documents service's errors: pure-layer failures turned into DomainErrors at this boundary
 * (their fields survive NATS), and the few errors several modules raise.
 */
import { DomainError, rethrowAsDomainError, type FieldIssue } from '../shared/errors.ts';
import { SearchError } from './search.ts';

/** Errors of the pure layers become DomainErrors at this boundary (their fields survive NATS). */
export function asDomainError(err: unknown): never {
  if (err instanceof SearchError) throw new DomainError('INVALID_REQUEST', err.message, { details: [{ field: err.field, rule: err.rule, message: err.message }] });
  return rethrowAsDomainError(err);
}


export function pure<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    return asDomainError(err);
  }
}

export const issue = (field: string, rule: string, message: string): FieldIssue => ({ field, rule, message });
export const missing = (field: string, message: string) => new DomainError('MISSING_FIELD', message, { details: [issue(field, 'required', message)] });

export function validationFailed(findings: Array<{ rule: string; severity: string; location: string; path?: string; message: string }>): DomainError {
  const fatal = findings.filter((f) => f.severity === 'fatal');
  return new DomainError('UBL_VALIDATION_FAILED', `The document fails ${fatal.length} rule(s): ${[...new Set(fatal.map((f) => f.rule))].join(', ')}`, {
    // The caller's own terms first: the JSON path for a JSON send, the XPath for XML.
    details: fatal.map((f) => ({ field: f.path ?? f.location, rule: f.rule, message: f.message })),
    extra: { findings },
  });
}

export function duplicate(number: string, existingId: string | null): DomainError {
  return new DomainError('DUPLICATE_DOCUMENT', `Invoice number ${number} was already sent by this seller; send it with a new number`, {
    details: [issue('document.number', 'unique', `number ${number} already used by this seller`)],
    extra: existingId ? { existingId } : {},
  });
}
