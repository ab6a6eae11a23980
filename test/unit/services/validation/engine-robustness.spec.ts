/**
 * Property test: whatever is done to a valid invoice (values replaced by junk, elements removed or
 * duplicated), the engine answers with findings or refuses the input with INVALID_REQUEST; it never
 * throws anything else, and every finding is well formed.
 */
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import libxml from 'libxmljs2';
import type { Element } from 'libxmljs2';
import { validate, InvalidXmlInputError } from '../../../../services/validation/engine/index.ts';
import { corpusDir } from '../../../support/corpus.ts';

const CORPUS = corpusDir();
const BASE = readFileSync(join(CORPUS, 'peppol-bis-invoice-3/rules/examples/base-example.xml'), 'utf8');
const elementCount = libxml.parseXml(BASE).find('//*').length;

const junk = fc.oneof(fc.constantFrom('', ' ', 'abc', '-1', '1e5', '12.3456', 'NaN', '2026-13-45', 'ZZ', '∞', '0,5'), fc.string({ maxLength: 12 }));

function mutate(op: 'text' | 'remove' | 'duplicate', index: number, value: string): string {
  const doc = libxml.parseXml(BASE);
  const els = doc.find<Element>('//*');
  const el = els[index % els.length]!;
  if (el === doc.root()) return doc.toString(false);
  if (op === 'text') {
    if (el.childNodes().some((c) => c.type() === 'element')) el.attr('currencyID', value); else el.text(value);
  } else if (op === 'remove') el.remove();
  else el.addNextSibling(el.clone());
  return doc.toString(false);
}

describe('validation engine robustness (property)', () => {
  it('never throws anything but InvalidXmlInputError on mutated invoices, and findings are well formed', () => {
    fc.assert(
      fc.property(fc.constantFrom('text', 'remove', 'duplicate'), fc.nat({ max: elementCount * 4 }), junk, (op, index, value) => {
        const xml = mutate(op as 'text' | 'remove' | 'duplicate', index, value);
        try {
          const r = validate(xml, { skipXsd: op !== 'text' });
          for (const f of r.findings) {
            expect(typeof f.rule).toBe('string');
            expect(['fatal', 'warning']).toContain(f.severity);
            expect(f.message.length).toBeGreaterThan(0);
          }
          expect(r.valid).toBe(!r.findings.some((f) => f.severity === 'fatal'));
        } catch (e) {
          expect(e).toBeInstanceOf(InvalidXmlInputError);
        }
      }),
      { numRuns: 60, seed: 20261122 },
    );
  }, 120_000);

  it('reports a changed line amount with the computed figures', () => {
    const xml = BASE.replace('<cbc:LineExtensionAmount currencyID= "EUR">2800</cbc:LineExtensionAmount>', '<cbc:LineExtensionAmount currencyID="EUR">2700</cbc:LineExtensionAmount>');
    const r = validate(xml);
    const co10 = r.findings.find((f) => f.rule === 'BR-CO-10');
    expect(co10).toBeDefined();
    expect(co10!.message).toContain('1300');
    expect(co10!.message).toContain('1200');
    expect(co10!.bt).toContain('BT-106');
    expect(r.valid).toBe(false);
  });
});
