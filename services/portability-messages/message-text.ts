/**
 * What a portability message looks like on the wire besides its subject: the CSV's file name and
 * digest, who it is addressed to on the other side of the switch, and the plain-text body (the CSV
 * inline between markers, or a pointer to the attached file when a direct relay carries it).
 */
import { createHash } from 'node:crypto';
import type { DirectionRole, PortabilityCsv, PortabilityMessageType, PortabilityState, PortabilityStatusCode } from '../../mappings/portability/index.ts';

export const CSV_BEGIN = '-----BEGIN PORTABILITE CSV-----';
export const CSV_END = '-----END PORTABILITE CSV-----';

/** SHA-256 (hex) of the CSV file as mailed: header and row, CRLF, UTF-8. */
export const csvSha256 = (csv: PortabilityCsv): string => createHash('sha256').update(csv.text, 'utf8').digest('hex');

/** `PORTABILITE_<TYPE>_<CODE>_<SIREN>_<ref>_<yyyymmddThhmmssZ>.csv`, the reference reduced to file-name-safe characters. */
export function csvFilename(m: { messageType: string; statusCode: string; siren: string; requestRef: string }, at: Date): string {
  const ref = m.requestRef.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[-.]+|[-.]+$/g, '').slice(0, 64) || 'ref';
  const stamp = at.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
  return `PORTABILITE_${m.messageType}_${m.statusCode}_${m.siren}_${ref}_${stamp}.csv`;
}

/**
 * The platform a message is for: the other side of the switch from the sender's `directionRole`;
 * without one, by what the message is (the request and its completion go to the losing platform,
 * the acknowledgement and the decision come back to the gaining one).
 */
export function counterpartRole(directionRole: DirectionRole | undefined, messageType: PortabilityMessageType): DirectionRole {
  if (directionRole === 'GAINING_PA') return 'LOSING_PA';
  if (directionRole === 'LOSING_PA') return 'GAINING_PA';
  return messageType === 'REQUEST' || messageType === 'COMPLETION' ? 'LOSING_PA' : 'GAINING_PA';
}

export interface BodyFacts {
  subject: string;
  requestRef: string;
  siren: string;
  messageType: PortabilityMessageType;
  statusCode: PortabilityStatusCode;
  state: PortabilityState;
  reasonCode: string | null;
  reasonText: string | null;
  filename: string;
  sha256: string;
}

export function messageBody(f: BodyFacts, csv: PortabilityCsv, attached: boolean): string {
  return [
    `Portability message ${f.subject}`,
    `Request ${f.requestRef}, SIREN ${f.siren}: ${f.messageType} ${f.statusCode} (${f.state}).`,
    ...(f.reasonCode || f.reasonText ? [`Reason: ${[f.reasonCode, f.reasonText].filter(Boolean).join(' - ')}`] : []),
    '',
    ...(attached
      ? [`The CSV is attached as ${f.filename} (SHA-256 ${f.sha256}).`]
      : [`The CSV (${f.filename}, SHA-256 ${f.sha256}) follows between the markers.`, CSV_BEGIN, csv.header, csv.row, CSV_END]),
    '',
  ].join('\r\n');
}
