/**
 * A Peppol BIS rule must never stop the whole rule set: a repeated element, a malformed number or
 * date, or a missing element has to give findings (or none), never a dynamic XPath error (which the
 * engine turns into RULE-EVALUATION-ERROR). The official artefacts do stop on several of these
 * (a 30-digit IBAN as xs:integer, normalize-space() of a repeated element, xs:decimal('x')).
 * Every element of a few real documents is repeated, filled with junk, or removed, one at a time.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import libxml from 'libxmljs2';
import type { Element } from 'libxmljs2';
import { validate } from '../../../../services/validation/engine/index.ts';
import { corpusDir } from '../../../support/corpus.ts';

const CORPUS = corpusDir();
const FILES = [
  'peppol-bis-invoice-3/rules/examples/base-example.xml',
  'peppol-bis-invoice-3/rules/national-examples/GR/GR-base-example-correct.xml',
  'eInvoicing-EN16931/cii/examples/CII_example1.xml',
];

function mutants(text: string): { what: string; xml: string }[] {
  const out: { what: string; xml: string }[] = [];
  const count = libxml.parseXml(text).find('//*').length;
  for (let i = 1; i < count; i++) {
    for (const mode of ['repeat', 'junk', 'remove'] as const) {
      const doc = libxml.parseXml(text);
      const el = doc.find('//*')[i] as Element;
      // lines after the first repeat the first line's structure: mutating them adds time, not coverage
      if (/(InvoiceLine|CreditNoteLine|IncludedSupplyChainTradeLineItem)\[([2-9]|\d\d+)\]/.test(el.path())) continue;
      if (mode === 'junk' && el.childNodes().some((c) => c.type() === 'element')) continue;
      if (mode === 'repeat') el.addNextSibling(el.clone());
      else if (mode === 'junk') el.text('x y');
      else el.remove();
      out.push({ what: `${mode} ${el.path()}`, xml: doc.toString(false) });
    }
  }
  return out;
}

describe('Peppol BIS pack robustness', () => {
  for (const f of FILES) {
    it(`evaluates every single-element mutant of ${f.split('/').pop()} without a rule error`, () => {
      const errors: string[] = [];
      const ms = mutants(readFileSync(resolve(CORPUS, f), 'utf8'));
      for (const m of ms) {
        const bad = validate(m.xml, { packs: ['peppol-bis'], skipXsd: true }).findings.find((x) => x.rule === 'RULE-EVALUATION-ERROR');
        if (bad) errors.push(`${m.what}: ${bad.message}`);
      }
      expect(ms.length).toBeGreaterThan(60);
      expect(errors).toEqual([]);
    }, 300_000);
  }
});
