import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalToCii, canonicalToUbl, ciiToCanonical, detectFormat, ublToCanonical, MappingError } from '../../../../mappings/index.ts';
import { CORPUS, xsdErrors } from '../support/corpus.ts';

const MUSTANG = join(CORPUS, 'mustangproject');
const xmlFiles = (JSON.parse(readFileSync(join(MUSTANG, 'expected-results.json'), 'utf8')) as Array<{ file: string }>)
  .map((e) => e.file).filter((f) => f.endsWith('.xml'));

describe('mustangproject XML inputs (ZUGFeRD / Factur-X / XRechnung CII and UBL)', () => {
  it('has the parser inputs', () => {
    expect(xmlFiles.length).toBeGreaterThanOrEqual(45);
  });

  it.each(xmlFiles.map((f) => [f.split('/').pop()!, f]))('%s', (_name, file) => {
    const bytes = readFileSync(join(MUSTANG, file));
    const d = detectFormat(bytes);
    if (d.format === 'zugferd-1') {
      // ZUGFeRD 1.0 (CrossIndustryDocument) is not CII D16B: format=auto reads it with its own
      // translator (test/unit/mappings/zugferd-1), the CII reader refuses it.
      expect(d.apiFormat).toBe('auto');
      expect(() => ciiToCanonical(bytes)).toThrow(MappingError);
      return;
    }
    if (d.format !== 'ubl' && d.format !== 'cii') {
      // Foreign roots are not EN 16931 syntaxes: raw only.
      expect(d.apiFormat).toBe('raw');
      expect(() => ciiToCanonical(bytes)).toThrow(MappingError);
      return;
    }
    const c = (d.format === 'ubl' ? ublToCanonical(bytes) : ciiToCanonical(bytes)).canonical;
    expect(c.number).not.toBe('');
    expect(xsdErrors(canonicalToCii(c))).toEqual([]);
    if (c.lines.length > 0) expect(xsdErrors(canonicalToUbl(c))).toEqual([]);
    else expect(() => canonicalToUbl(c)).toThrow(expect.objectContaining({ code: 'INVALID_REQUEST', details: [expect.objectContaining({ rule: 'BR-16' })] }));
  });
});
