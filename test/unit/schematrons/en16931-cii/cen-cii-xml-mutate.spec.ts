/**
 * The EN 16931 CII pack (schematrons/en16931/1.3.16/en16931-cii.sch) against the KoSIT XML-Mutate cases that
 * state expectations on the official CEN CII rules (`cencii:` prefix), corpus README §3:
 * shared/corpus/validator-configuration-xrechnung/src/test/cen-unit-test/cii-*.xml. Each <?xmute?> instruction is
 * applied on its own to the original document (one mutant per instruction, and per value for the `code`
 * mutator); the rules listed in schematron-valid must not fire, those in schematron-invalid must fire.
 * The VEFA runner does not read this format, so these 43 mutants are checked here.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import libxml from 'libxmljs2';
import { validate } from '../../../../services/validation/engine/index.ts';
import { corpusPath } from '../../../support/corpus.ts';

const DIR = corpusPath('validator-configuration-xrechnung/src/test/cen-unit-test');

interface Mutant { name: string; xml: string; valid: string[]; invalid: string[] }

function mutants(file: string): Mutant[] {
  const src = readFileSync(resolve(DIR, file), 'utf8');
  const count = libxml.parseXml(src).find('//processing-instruction("xmute")').length;
  const out: Mutant[] = [];
  for (let p = 0; p < count; p++) {
    const pi0 = libxml.parseXml(src).find('//processing-instruction("xmute")')[p] as unknown as { text(): string };
    const attrs = Object.fromEntries([...pi0.text().matchAll(/([\w-]+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
    const list = (s?: string) => (s ?? '').split(/[\s,]+/).filter((x) => x.startsWith('cencii:')).map((x) => x.slice(7));
    const valid = list(attrs['schematron-valid']);
    const invalid = list(attrs['schematron-invalid']);
    if (valid.length === 0 && invalid.length === 0) continue;
    const values = attrs.mutator === 'code' ? attrs.values!.split(attrs.separator ?? ',').map((v) => v.trim()) : [null];
    for (const v of values) {
      const doc = libxml.parseXml(src);
      const pi = doc.find('//processing-instruction("xmute")')[p] as unknown as { nextSibling(): libxml.Node | null };
      let target = pi.nextSibling();
      while (target && target.type() !== 'element') target = target.nextSibling();
      const el = target as libxml.Element;
      if (attrs.mutator === 'remove') { if (attrs.attribute) el.attr(attrs.attribute)?.remove(); else el.remove(); }
      else if (attrs.mutator === 'empty') { if (attrs.attribute) el.attr({ [attrs.attribute]: '' }); else el.text(''); }
      else if (attrs.mutator === 'code') { if (attrs.attribute) el.attr({ [attrs.attribute]: v! }); else el.text(v!); }
      else if (attrs.mutator !== 'identity') throw new Error(`unsupported mutator ${attrs.mutator}`);
      out.push({ name: `${file} ${attrs.id ?? `#${p + 1}`}${v === null ? '' : ` = ${v}`}`, xml: doc.toString(), valid, invalid });
    }
  }
  return out;
}

const cases = readdirSync(DIR).filter((f) => f.startsWith('cii-')).sort().flatMap(mutants);

describe('EN 16931 CII pack on the KoSIT cencii XML-Mutate cases', () => {
  it('finds the 43 mutants', () => {
    expect(cases).toHaveLength(43);
  });
  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const fired = new Set(validate(c.xml, { packs: ['en16931'], skipXsd: true }).findings.map((f) => f.rule));
    expect({ firedButValid: c.valid.filter((r) => fired.has(r)), missing: c.invalid.filter((r) => !fired.has(r)) })
      .toEqual({ firedButValid: [], missing: [] });
  });
});
