/**
 * The portability CSV: semicolon-delimited, one header row and one data row, 18 columns in the
 * spec's order. Missing values are empty strings; `request_datetime` is ISO 8601 with an explicit
 * timezone (now, in UTC, when the caller gives none). Quoting and reading are csv-stringify's and
 * csv-parse's: a name holding `;`, a quote or a line break travels quoted and comes back the same.
 */
import { stringify } from 'csv-stringify/sync';
import { parse } from 'csv-parse/sync';
import { MappingError } from '../errors.ts';

/** The 18 columns, in order (spec "Portability", CSV). */
export const PORTABILITY_CSV_COLUMNS = [
  'request_ref', 'message_type', 'status_code', 'direction_role', 'taxpayer_siren', 'taxpayer_siret', 'taxpayer_name',
  'gaining_pa_id', 'gaining_pa_name', 'losing_pa_id', 'losing_pa_name', 'effective_date', 'transferred_addresses',
  'mandate_ref', 'mandate_signatory', 'request_datetime', 'reason_code', 'reason_text',
] as const;
export type PortabilityCsvColumn = (typeof PORTABILITY_CSV_COLUMNS)[number];
export type PortabilityCsvFields = Record<PortabilityCsvColumn, string>;

/** Longest data row `parseCsvRow` reads: 18 columns of a few hundred characters each, with room to spare. */
export const MAX_CSV_ROW_BYTES = 16 * 1024;

/** What a message says, in the API's names; every member but the first five is optional. */
export interface PortabilityCsvRecord {
  requestRef: string;
  messageType: string;
  statusCode: string;
  taxpayerSiren: string;
  directionRole?: string | null;
  taxpayerSiret?: string | null;
  taxpayerName?: string | null;
  gainingPaId?: string | null;
  gainingPaName?: string | null;
  losingPaId?: string | null;
  losingPaName?: string | null;
  effectiveDate?: string | null;
  /** Addressing identifiers moved to the gaining platform; joined by `|` in the CSV. */
  transferredAddresses?: readonly string[] | null;
  mandateRef?: string | null;
  mandateSignatory?: string | null;
  /** ISO 8601 with an explicit timezone; now (UTC) when absent. */
  requestDatetime?: string | null;
  reasonCode?: string | null;
  reasonText?: string | null;
}

export interface PortabilityCsv {
  /** Column names joined by `;`, no line terminator. */
  header: string;
  /** The data row, no line terminator (a quoted value may hold a line break). */
  row: string;
  /** The file: header and row, each ended by CRLF (RFC 4180). */
  text: string;
  fields: PortabilityCsvFields;
}

const invalid = (code: 'INVALID_REQUEST' | 'INVALID_DATE', field: string, rule: string, message: string) => new MappingError(code, message, [{ field, rule, message }]);

/** `YYYY-MM-DDThh:mm[:ss[.fff]]` followed by `Z` or `±hh:mm`: an instant nobody can read in another zone. */
const ZONED_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;
const CALENDAR_DATE = /^\d{4}-\d{2}-\d{2}$/;

function checkZonedDateTime(value: string, field: string): string {
  if (!ZONED_DATE_TIME.test(value) || Number.isNaN(Date.parse(value))) {
    throw invalid('INVALID_DATE', field, 'iso8601', `${field} must be an ISO 8601 date-time with an explicit timezone (Z or ±hh:mm), got "${value}"`);
  }
  return value;
}

/** A calendar date (`YYYY-MM-DD`) or a zoned date-time; 400 INVALID_DATE otherwise. */
export function checkEffectiveDate(value: string, field = 'effectiveDate'): string {
  if (CALENDAR_DATE.test(value)) {
    const d = new Date(`${value}T00:00:00Z`);
    if (!Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === value) return value;
    throw invalid('INVALID_DATE', field, 'iso8601', `${field} is not a calendar date: "${value}"`);
  }
  return checkZonedDateTime(value, field);
}

const SIRET = /^\d{14}$/;

/** The CSV of one message. Dates and the SIRET are checked; `request_datetime` defaults to `now` in UTC. */
export function buildPortabilityCsv(r: PortabilityCsvRecord, now: Date): PortabilityCsv {
  if (r.taxpayerSiret && !SIRET.test(r.taxpayerSiret)) throw invalid('INVALID_REQUEST', 'taxpayerSiret', 'siret', `taxpayerSiret must be exactly 14 digits, got "${r.taxpayerSiret}"`);
  if (r.effectiveDate) checkEffectiveDate(r.effectiveDate);
  const addresses = r.transferredAddresses ?? [];
  const joined = addresses.find((a) => a.includes('|'));
  if (joined !== undefined) throw invalid('INVALID_REQUEST', 'transferredAddresses', 'noPipe', `an address must not contain "|" (the CSV joins addresses with it): "${joined}"`);
  const fields: PortabilityCsvFields = {
    request_ref: r.requestRef, message_type: r.messageType, status_code: r.statusCode, direction_role: r.directionRole ?? '',
    taxpayer_siren: r.taxpayerSiren, taxpayer_siret: r.taxpayerSiret ?? '', taxpayer_name: r.taxpayerName ?? '',
    gaining_pa_id: r.gainingPaId ?? '', gaining_pa_name: r.gainingPaName ?? '', losing_pa_id: r.losingPaId ?? '', losing_pa_name: r.losingPaName ?? '',
    effective_date: r.effectiveDate ?? '', transferred_addresses: addresses.join('|'), mandate_ref: r.mandateRef ?? '', mandate_signatory: r.mandateSignatory ?? '',
    request_datetime: r.requestDatetime ? checkZonedDateTime(r.requestDatetime, 'requestDatetime') : now.toISOString(),
    reason_code: r.reasonCode ?? '', reason_text: r.reasonText ?? '',
  };
  return csvOf(fields);
}

function line(values: readonly string[]): string {
  // Line breaks inside a value are quoted too (csv-stringify quotes only the record delimiter by default).
  return stringify([values], { delimiter: ';', record_delimiter: '\r\n', quoted_match: /[\r\n]/, eof: false });
}

/** Header, row and file of fields already in CSV form (what `parseCsvRow` returns, for instance). */
export function csvOf(fields: PortabilityCsvFields): PortabilityCsv {
  const header = line(PORTABILITY_CSV_COLUMNS);
  const row = line(PORTABILITY_CSV_COLUMNS.map((c) => fields[c]));
  return { header, row, text: `${header}\r\n${row}\r\n`, fields };
}

/**
 * Reads one data row (no header). 400 when it is not exactly one record of 18 columns, or not CSV
 * at all (an unclosed quote); over MAX_CSV_ROW_BYTES is 400 too, before any parsing.
 */
export function parseCsvRow(row: string, field = 'csvRow'): PortabilityCsvFields {
  if (Buffer.byteLength(row, 'utf8') > MAX_CSV_ROW_BYTES) throw invalid('INVALID_REQUEST', field, 'maxLength', `${field} is larger than ${MAX_CSV_ROW_BYTES} bytes`);
  let records: string[][];
  try {
    records = parse(row.replace(/(?:\r\n|\n|\r)$/, ''), { delimiter: ';', relax_column_count: true, skip_empty_lines: false }) as string[][];
  } catch (err) {
    throw invalid('INVALID_REQUEST', field, 'csv', `${field} is not a semicolon-separated CSV row: ${(err as Error).message}`);
  }
  if (records.length !== 1) throw invalid('INVALID_REQUEST', field, 'oneRow', `${field} must be exactly one data row without its header, got ${records.length} rows`);
  const values = records[0]!;
  if (values.length !== PORTABILITY_CSV_COLUMNS.length) {
    throw invalid('INVALID_REQUEST', field, 'columns', `${field} must have ${PORTABILITY_CSV_COLUMNS.length} columns (${PORTABILITY_CSV_COLUMNS.join(';')}), got ${values.length}`);
  }
  return Object.fromEntries(PORTABILITY_CSV_COLUMNS.map((c, i) => [c, values[i]!])) as PortabilityCsvFields;
}
