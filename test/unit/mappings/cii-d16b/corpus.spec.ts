import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import fc from 'fast-check';
import { canonicalToCii, canonicalToUbl, ciiToCanonical, MappingError } from '../../../../mappings/index.ts';
import type { CanonicalInvoice, Party } from '../../../../mappings/index.ts';
import { canonicalInvoiceArb } from '../support/arbitrary.ts';
import { corpusFiles, xsdErrors } from '../support/corpus.ts';

/**
 * What D16B can carry of a canonical invoice: one preceding invoice (InvoiceReferencedDocument is
 * 0..1), no card network, and party identifiers in schema order (ram:ID before ram:GlobalID).
 */
function ciiRepresentable(c: CanonicalInvoice): CanonicalInvoice {
  const party = (p: Party): Party => (p.identifiers
    ? { ...p, identifiers: [...p.identifiers.filter((i) => i.scheme === undefined), ...p.identifiers.filter((i) => i.scheme !== undefined)] }
    : p);
  const out: CanonicalInvoice = { ...c, seller: party(c.seller), buyer: party(c.buyer) };
  if (c.precedingInvoices) out.precedingInvoices = c.precedingInvoices.slice(0, 1);
  if (c.paymentInstructions?.card) {
    const { network: _n, ...card } = c.paymentInstructions.card;
    out.paymentInstructions = { ...c.paymentInstructions, card };
  }
  return out;
}

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

  it('canonical → CII → canonical is the identity on generated invoices (within what D16B carries)', () => {
    fc.assert(fc.property(canonicalInvoiceArb, (c) => {
      expect(ciiToCanonical(canonicalToCii(c)).canonical).toEqual(ciiRepresentable(c));
    }), { numRuns: 300 });
  });

  it('refuses a UBL root', () => {
    expect(() => ciiToCanonical('<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>')).toThrow(MappingError);
  });
});
