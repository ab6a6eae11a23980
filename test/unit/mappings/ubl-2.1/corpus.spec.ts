import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import fc from 'fast-check';
import { canonicalToCii, canonicalToUbl, ciiToCanonical, ublToCanonical, MappingError } from '../../../../mappings/index.ts';
import { canonicalInvoiceArb } from '../support/arbitrary.ts';
import { corpusFiles, xsdErrors } from '../support/corpus.ts';

const UBL_DIRS = [
  'peppol-bis-invoice-3/rules/examples',
  'peppol-bis-invoice-3/rules/snippets',
  'peppol-bis-invoice-3/rules/national-examples/GR',
  'peppol-bis-invoice-3/rules/national-examples/NO',
  'eInvoicing-EN16931/ubl/examples',
  'eInvoicing-EN16931/test/testfiles',
];
const files = UBL_DIRS.flatMap((d) => corpusFiles(d));

describe('UBL corpus: parse to canonical and re-render XSD-valid', () => {
  it('finds the full UBL examples of both corpora', () => {
    expect(files.length).toBeGreaterThanOrEqual(70);
  });

  it.each(files.map((f) => [basename(f), f]))('%s', (_name, file) => {
    const bytes = readFileSync(file);
    const parsed = ublToCanonical(bytes);
    // The legal record is the caller's XML: the very same bytes travel beside the canonical view.
    expect(parsed.original).toBe(bytes);
    expect(parsed.syntax).toBe('ubl-2.1');
    const c = parsed.canonical;
    expect(c.number).not.toBe('');
    expect(c.lines.length).toBeGreaterThan(0);

    const ubl = canonicalToUbl(c);
    expect(xsdErrors(ubl)).toEqual([]);
    // Fixpoint: what the parser reads, the renderer writes back.
    expect(ublToCanonical(ubl).canonical).toEqual(c);

    const cii = canonicalToCii(c);
    expect(xsdErrors(cii)).toEqual([]);
    expect(ciiToCanonical(cii).canonical.lines).toHaveLength(c.lines.length);
  });

  it('refuses a non-UBL root and malformed XML with a MappingError', () => {
    expect(() => ublToCanonical('<Order xmlns="urn:oasis:names:specification:ubl:schema:xsd:Order-2"/>')).toThrow(MappingError);
    expect(() => ublToCanonical('<Invoice><unclosed></Invoice>')).toThrow(/not well-formed/);
  });

  it('never expands entities or loads DTDs', () => {
    const xxe = '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"><ID xmlns="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">&e;</ID></Invoice>';
    let number = '';
    try {
      number = ublToCanonical(xxe).canonical.number;
    } catch (e) {
      expect(e).toBeInstanceOf(MappingError);
    }
    expect(number).not.toContain('root:');
  });
});

describe('canonical → UBL → canonical is the identity on valid invoices', () => {
  it('holds for generated invoices and credit notes (fast-check)', () => {
    fc.assert(
      fc.property(canonicalInvoiceArb, (c) => {
        const xml = canonicalToUbl(c);
        expect(ublToCanonical(xml).canonical).toEqual(c);
      }),
      { numRuns: 300 },
    );
  });

  it('generated invoices render XSD-valid UBL and CII', () => {
    fc.assert(
      fc.property(canonicalInvoiceArb, (c) => {
        expect(xsdErrors(canonicalToUbl(c))).toEqual([]);
        expect(xsdErrors(canonicalToCii(c))).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });
});
