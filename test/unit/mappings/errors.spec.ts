import { MappingError, jsonToCanonical } from '../../../mappings/index.ts';

describe('MappingError', () => {
  it('is an Error named MappingError with the spec code and field-level details', () => {
    const e = new MappingError('MISSING_FIELD', 'document.number is required', [{ field: 'document.number', rule: 'required', message: 'document.number is required' }]);
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe('MappingError');
    expect(e.code).toBe('MISSING_FIELD');
    expect(e.details).toEqual([{ field: 'document.number', rule: 'required', message: 'document.number is required' }]);
    expect(String(e)).toBe('MappingError: document.number is required');
  });

  it('gathers every finding of a payload; the code is the first finding’s and the message counts the rest', () => {
    let err: unknown;
    try {
      jsonToCanonical({ type: 'invoice', document: { currency: 'EURO', issueDate: 'tomorrow', lines: [] } });
    } catch (e) { err = e; }
    expect(err).toBeInstanceOf(MappingError);
    const e = err as MappingError;
    expect(e.code).toBe('MISSING_FIELD');
    expect(e.details.map((d) => [d.field, d.rule])).toEqual([
      ['document.number', 'required'],
      ['document.issueDate', 'iso8601'],
      ['document.currency', 'iso4217'],
      ['document.seller', 'required'],
      ['document.buyer', 'required'],
      ['document.lines', 'BR-16'],
    ]);
    expect(e.message).toMatch(/\(and 5 more\)$/);
  });
});
