/**
 * The KoSIT XRechnung base instances (valid UBL Invoice, UBL CreditNote and CII documents, read
 * without their XML-Mutate instructions): each parses, re-renders XSD-valid in its own syntax and is
 * a fixpoint of parse → render → parse. (Cross-syntax rendering is covered by the CEN/Peppol corpus.)
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { canonicalToCii, canonicalToUbl, ciiToCanonical, detectFormat, ublToCanonical } from '../../../../mappings/index.ts';
import { corpusFiles, xsdErrors } from '../support/corpus.ts';

const files = ['ubl-inv', 'ubl-cn', 'cii'].flatMap((d) => corpusFiles(`xrechnung-schematron/test/instances/${d}`));

describe('XRechnung instances (KoSIT xrechnung-schematron)', () => {
  it('has the 349 instances', () => {
    expect(files).toHaveLength(349);
  });

  it.each(files.map((f) => [`${f.split('/').slice(-2, -1)[0]}/${basename(f)}`, f]))('%s', (_n, file) => {
    const bytes = readFileSync(file);
    const isUbl = detectFormat(bytes).format === 'ubl';
    const c = (isUbl ? ublToCanonical(bytes) : ciiToCanonical(bytes)).canonical;
    const xml = isUbl ? canonicalToUbl(c) : canonicalToCii(c);
    expect(xsdErrors(xml)).toEqual([]);
    expect((isUbl ? ublToCanonical(xml) : ciiToCanonical(xml)).canonical).toEqual(c);
  });
});
