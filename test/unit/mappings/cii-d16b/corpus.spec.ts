import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { canonicalToCii, canonicalToUbl, ciiToCanonical, MappingError } from '../../../../mappings/index.ts';
import { corpusFiles, xsdErrors } from '../support/corpus.ts';

const files = corpusFiles('eInvoicing-EN16931/cii/examples');

describe('CII corpus: parse to canonical and re-render XSD-valid', () => {
  it('finds the 15 full CII examples', () => {
    expect(files).toHaveLength(15);
  });

  it.each(files.map((f) => [basename(f), f]))('%s', (_name, file) => {
    const bytes = readFileSync(file);
    const parsed = ciiToCanonical(bytes);
    expect(parsed.original).toBe(bytes);
    expect(parsed.syntax).toBe('cii-d16b');
    const c = parsed.canonical;
    expect(c.number).not.toBe('');
    expect(c.lines.length).toBeGreaterThan(0);
    expect(c.totals.payable).toBeDefined();

    const cii = canonicalToCii(c);
    expect(xsdErrors(cii)).toEqual([]);
    expect(ciiToCanonical(cii).canonical).toEqual(c);

    const ubl = canonicalToUbl(c);
    expect(xsdErrors(ubl)).toEqual([]);
  });

  it('reads dates, VAT breakdown and the seller from a known example', () => {
    const c = ciiToCanonical(readFileSync(files.find((f) => f.endsWith('CII_example1.xml'))!)).canonical;
    expect(c.issueDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(c.vatBreakdown.length).toBeGreaterThan(0);
    expect(c.seller.name).not.toBe('');
  });

  it('refuses a UBL root', () => {
    expect(() => ciiToCanonical('<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>')).toThrow(MappingError);
  });
});
