/**
 * The subject line of a portability e-mail:
 * `[PORTABILITE][<MESSAGE_TYPE>][<STATUS_CODE>][SIREN:<9 digits>][REF:<request_ref>]`.
 * The receiving platform files the message by it, so it is built and read by one grammar. The
 * reference may hold any printable character but `]` (it would end the bracket) and none of the
 * control characters a mail header cannot carry (CR and LF would inject headers).
 */
import { MappingError } from '../errors.ts';
import { messageTypeOf, stateOfStatusCode, type PortabilityMessageType, type PortabilityState, type PortabilityStatusCode } from './states.ts';

/** Longest `requestRef` accepted, so a subject stays within one folded header line or two. */
export const MAX_REQUEST_REF_LENGTH = 128;
/** Longest subject `parseSubject` reads (the grammar's fixed parts, a long type and the longest reference). */
export const MAX_SUBJECT_LENGTH = 256;

export interface PortabilitySubject {
  messageType: PortabilityMessageType;
  statusCode: PortabilityStatusCode;
  siren: string;
  requestRef: string;
}

export interface ParsedPortabilitySubject extends PortabilitySubject {
  state: PortabilityState;
}

const SUBJECT = /^\[PORTABILITE\]\[([^\][]*)\]\[([^\][]*)\]\[SIREN:([^\][]*)\]\[REF:([^\]]*)\]$/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

const invalid = (field: string, rule: string, message: string) => new MappingError('INVALID_REQUEST', message, [{ field, rule, message }]);

/** A SIREN is exactly nine digits (its Luhn key is the directory's business, not the grammar's). */
export function checkSiren(siren: string, field = 'taxpayerSiren'): string {
  if (!/^\d{9}$/.test(siren)) throw invalid(field, 'siren', `${field} must be exactly 9 digits, got "${siren}"`);
  return siren;
}

/** A request reference fits in the subject: not empty, no `]`, no control character, at most 128 characters. */
export function checkRequestRef(ref: string, field = 'requestRef'): string {
  if (!ref) throw invalid(field, 'required', `${field} must not be empty`);
  if (ref.includes(']')) throw invalid(field, 'noClosingBracket', `${field} must not contain "]" (it would end the subject's REF bracket)`);
  if (CONTROL.test(ref)) throw invalid(field, 'printable', `${field} must not contain control characters (line breaks would break the mail header)`);
  if (ref.length > MAX_REQUEST_REF_LENGTH) throw invalid(field, 'maxLength', `${field} is longer than ${MAX_REQUEST_REF_LENGTH} characters`);
  return ref;
}

export function buildSubject(s: PortabilitySubject): string {
  messageTypeOf(s.messageType);
  stateOfStatusCode(s.statusCode);
  checkSiren(s.siren);
  checkRequestRef(s.requestRef);
  return `[PORTABILITE][${s.messageType}][${s.statusCode}][SIREN:${s.siren}][REF:${s.requestRef}]`;
}

/** Reads a subject (surrounding blanks ignored); 400 for a subject off the grammar, naming the part that is wrong. */
export function parseSubject(subject: string, field = 'subject'): ParsedPortabilitySubject {
  const text = subject.trim();
  if (text.length > MAX_SUBJECT_LENGTH) throw invalid(field, 'maxLength', `${field} is longer than ${MAX_SUBJECT_LENGTH} characters`);
  const m = SUBJECT.exec(text);
  if (!m) throw invalid(field, 'grammar', `${field} must be [PORTABILITE][<MESSAGE_TYPE>][<STATUS_CODE>][SIREN:<9 digits>][REF:<request_ref>] (no "]" inside the reference)`);
  const [, type, code, siren, ref] = m as unknown as [string, string, string, string, string];
  const messageType = messageTypeOf(type, `${field}.messageType`);
  const state = stateOfStatusCode(code, `${field}.statusCode`);
  return { messageType, statusCode: code as PortabilityStatusCode, state, siren: checkSiren(siren, `${field}.siren`), requestRef: checkRequestRef(ref, `${field}.requestRef`) };
}
