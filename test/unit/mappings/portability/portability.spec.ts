import fc from 'fast-check';
import {
  PORTABILITY_CSV_COLUMNS, PORTABILITY_MESSAGE_TYPES, PORTABILITY_STATES, PORTABILITY_STATUS_CODES, STATUS_CODE_BY_STATE,
  buildPortabilityCsv, buildSubject, parseCsvRow, parseSubject, stateOfStatusCode, statusCodeOf, type PortabilityCsvRecord,
} from '../../../../mappings/portability/index.ts';
import { MappingError } from '../../../../mappings/errors.ts';

const NOW = new Date('2026-11-27T08:30:00.000Z');

function mappingError(fn: () => unknown): MappingError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(MappingError);
    return err as MappingError;
  }
  throw new Error('expected a MappingError');
}

describe('states and wire codes', () => {
  it('is the spec table, both ways', () => {
    expect(STATUS_CODE_BY_STATE).toEqual({ received: 'REQ', acknowledged: 'ACK', accepted: 'ACC', rejected: 'REJ', auto_accepted: 'TAC', executing: 'MIG', completed: 'CMP', failed: 'ERR' });
    for (const state of PORTABILITY_STATES) expect(stateOfStatusCode(statusCodeOf(state))).toBe(state);
    expect(new Set(PORTABILITY_STATUS_CODES).size).toBe(PORTABILITY_STATES.length);
  });

  it('refuses an unknown state or code with INVALID_ENUM', () => {
    expect(mappingError(() => statusCodeOf('pending')).code).toBe('INVALID_ENUM');
    expect(mappingError(() => stateOfStatusCode('req')).code).toBe('INVALID_ENUM');
  });
});

describe('subject grammar', () => {
  it('builds the exact subject and reads it back with the state', () => {
    const subject = buildSubject({ messageType: 'DECISION', statusCode: 'REJ', siren: '120027016', requestRef: 'PORT-2026-0001' });
    expect(subject).toBe('[PORTABILITE][DECISION][REJ][SIREN:120027016][REF:PORT-2026-0001]');
    expect(parseSubject(`  ${subject} `)).toEqual({ messageType: 'DECISION', statusCode: 'REJ', state: 'rejected', siren: '120027016', requestRef: 'PORT-2026-0001' });
  });

  it.each([
    ['off grammar', '[PORTABILITY][REQUEST][REQ][SIREN:120027016][REF:R1]', 'INVALID_REQUEST', 'grammar'],
    ['missing bracket', '[PORTABILITE][REQUEST][REQ][SIREN:120027016]', 'INVALID_REQUEST', 'grammar'],
    ['SIREN of 8 digits', '[PORTABILITE][REQUEST][REQ][SIREN:12002701][REF:R1]', 'INVALID_REQUEST', 'siren'],
    ['SIREN with a letter', '[PORTABILITE][REQUEST][REQ][SIREN:12002701A][REF:R1]', 'INVALID_REQUEST', 'siren'],
    ['unknown type', '[PORTABILITE][NOTICE][REQ][SIREN:120027016][REF:R1]', 'INVALID_ENUM', 'enum'],
    ['unknown status code', '[PORTABILITE][REQUEST][XYZ][SIREN:120027016][REF:R1]', 'INVALID_ENUM', 'enum'],
    ['a ] in the reference', '[PORTABILITE][REQUEST][REQ][SIREN:120027016][REF:R]1]', 'INVALID_REQUEST', 'grammar'],
    ['an empty reference', '[PORTABILITE][REQUEST][REQ][SIREN:120027016][REF:]', 'INVALID_REQUEST', 'required'],
  ])('refuses %s', (_name, subject, code, rule) => {
    const err = mappingError(() => parseSubject(subject));
    expect(err.code).toBe(code);
    expect(err.details[0]!.rule).toBe(rule);
  });

  it('refuses to build a subject whose reference holds ] or a line break', () => {
    expect(mappingError(() => buildSubject({ messageType: 'ACK', statusCode: 'ACK', siren: '120027016', requestRef: 'a]b' })).details[0]!.rule).toBe('noClosingBracket');
    expect(mappingError(() => buildSubject({ messageType: 'ACK', statusCode: 'ACK', siren: '120027016', requestRef: 'a\r\nBcc: x@y' })).details[0]!.rule).toBe('printable');
  });
});

describe('the 18-column CSV', () => {
  it('has the spec columns in order, missing values empty, request_datetime now in UTC', () => {
    const csv = buildPortabilityCsv({ requestRef: 'R1', messageType: 'REQUEST', statusCode: 'REQ', taxpayerSiren: '120027016', transferredAddresses: ['0225:120027016', '0225:120027016_12002701600357'] }, NOW);
    expect(csv.header).toBe('request_ref;message_type;status_code;direction_role;taxpayer_siren;taxpayer_siret;taxpayer_name;gaining_pa_id;gaining_pa_name;losing_pa_id;losing_pa_name;effective_date;transferred_addresses;mandate_ref;mandate_signatory;request_datetime;reason_code;reason_text');
    expect(csv.row).toBe('R1;REQUEST;REQ;;120027016;;;;;;;;0225:120027016|0225:120027016_12002701600357;;;2026-11-27T08:30:00.000Z;;');
    expect(csv.text).toBe(`${csv.header}\r\n${csv.row}\r\n`);
    expect(PORTABILITY_CSV_COLUMNS).toHaveLength(18);
  });

  it('keeps a caller request_datetime with its zone and refuses one without', () => {
    expect(buildPortabilityCsv({ requestRef: 'R1', messageType: 'ACK', statusCode: 'ACK', taxpayerSiren: '120027016', requestDatetime: '2026-11-27T09:30:00+01:00' }, NOW).fields.request_datetime).toBe('2026-11-27T09:30:00+01:00');
    expect(mappingError(() => buildPortabilityCsv({ requestRef: 'R1', messageType: 'ACK', statusCode: 'ACK', taxpayerSiren: '120027016', requestDatetime: '2026-11-27T09:30:00' }, NOW)).code).toBe('INVALID_DATE');
    expect(mappingError(() => buildPortabilityCsv({ requestRef: 'R1', messageType: 'ACK', statusCode: 'ACK', taxpayerSiren: '120027016', effectiveDate: '2026-02-30' }, NOW)).code).toBe('INVALID_DATE');
    expect(mappingError(() => buildPortabilityCsv({ requestRef: 'R1', messageType: 'ACK', statusCode: 'ACK', taxpayerSiren: '120027016', taxpayerSiret: '1234' }, NOW)).details[0]!.field).toBe('taxpayerSiret');
  });

  it.each([
    ['17 columns', 'R1;REQUEST;REQ;;120027016;;;;;;;;;;;2026-11-27T08:30:00Z;'],
    ['19 columns', 'R1;REQUEST;REQ;;120027016;;;;;;;;;;;2026-11-27T08:30:00Z;;;'],
    ['two rows', 'R1;REQUEST;REQ;;120027016;;;;;;;;;;;2026-11-27T08:30:00Z;;\r\nR2;REQUEST;REQ;;120027016;;;;;;;;;;;2026-11-27T08:30:00Z;;'],
    ['an unclosed quote', 'R1;"REQUEST;REQ;;120027016;;;;;;;;;;;2026-11-27T08:30:00Z;;'],
    ['nothing', ''],
  ])('refuses a row of %s', (_name, row) => {
    expect(mappingError(() => parseCsvRow(row)).code).toBe('INVALID_REQUEST');
  });
});

// ---------- property: what is built is read back the same ----------

const text = fc.string({ maxLength: 40 }).filter((s) => !s.includes('\u0000'));
const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const digits = (n: number) => fc.array(fc.integer({ min: 0, max: 9 }), { minLength: n, maxLength: n }).map((d) => d.join(''));
const requestRef = fc.string({ minLength: 1, maxLength: 60 }).filter((s) => !s.includes(']') && !/[\u0000-\u001f\u007f]/.test(s));
const zoned = fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString());

const record: fc.Arbitrary<PortabilityCsvRecord> = fc.record({
  requestRef, messageType: fc.constantFrom(...PORTABILITY_MESSAGE_TYPES), statusCode: fc.constantFrom(...PORTABILITY_STATUS_CODES), taxpayerSiren: digits(9),
  directionRole: optional(fc.constantFrom('GAINING_PA', 'LOSING_PA')), taxpayerSiret: optional(digits(14)), taxpayerName: optional(text),
  gainingPaId: optional(text), gainingPaName: optional(text), losingPaId: optional(text), losingPaName: optional(text),
  effectiveDate: optional(zoned.map((d) => d.slice(0, 10))), transferredAddresses: optional(fc.array(text.filter((s) => !s.includes('|') && s !== ''), { maxLength: 4 })),
  mandateRef: optional(text), mandateSignatory: optional(text), requestDatetime: optional(zoned), reasonCode: optional(text), reasonText: optional(text),
}, { requiredKeys: ['requestRef', 'messageType', 'statusCode', 'taxpayerSiren'] });

describe('build → parse round trip (property)', () => {
  it('the subject reads back as built, for any reference the grammar allows', () => {
    fc.assert(fc.property(record, (r) => {
      const parsed = parseSubject(buildSubject({ messageType: r.messageType as never, statusCode: r.statusCode as never, siren: r.taxpayerSiren, requestRef: r.requestRef }));
      expect(parsed).toEqual({ messageType: r.messageType, statusCode: r.statusCode, state: stateOfStatusCode(r.statusCode), siren: r.taxpayerSiren, requestRef: r.requestRef });
    }), { numRuns: 300 });
  });

  it('the CSV row reads back as the same 18 fields, whatever the names hold (; quotes line breaks)', () => {
    fc.assert(fc.property(record, (r) => {
      const csv = buildPortabilityCsv(r, NOW);
      expect(parseCsvRow(csv.row)).toEqual(csv.fields);
      expect(csv.fields.request_datetime).toBe(r.requestDatetime ?? NOW.toISOString());
      expect(csv.fields.transferred_addresses.split('|').filter(Boolean)).toEqual(r.transferredAddresses ?? []);
    }), { numRuns: 300 });
  });
});
