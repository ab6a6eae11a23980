/**
 * The shared body of the extended-ctc-fr pack tests (one spec file per syntax): the base invoice is clean and
 * selects the pack instead of the EN 16931 core, every mutation fires exactly its listed rules on both rule
 * engines, and every rule the profile adds or changes is fired by at least one mutation.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validate } from '../../../../services/validation/engine/index.ts';
import { SCHEMATRONS_DIR } from '../../../../schematrons/packs.ts';
import { CII_EXTENDED, EXTENDED_MUTATIONS, UBL_EXTENDED, mutated } from '../../../support/extended-ctc-fr-invoices.ts';

type Syntax = 'ubl' | 'cii';

const ruleIds = (file: string): Set<string> =>
  new Set([...readFileSync(join(SCHEMATRONS_DIR, file), 'utf8').matchAll(/<sch:(?:assert|report)\b[^>]*?\bid="([^"]+)"/g)].map((m) => m[1]!));

/** `RULE` for a fatal finding, `RULE:warning` for a warning, sorted (the form of the expectation tables). */
const fired = (xml: string, options: Parameters<typeof validate>[1] = {}): string[] =>
  validate(xml, options).findings.map((f) => f.rule + (f.severity === 'warning' ? ':warning' : '')).sort();

/** The rules of the profile that are not the EN 16931 core's as our en16931 pack has them. */
export function profileRuleIds(syntax: Syntax): string[] {
  const core = ruleIds(`en16931/1.3.16/en16931-${syntax}.sch`);
  const changed = syntax === 'ubl' ? ['BR-55', 'UBL-SR-06', 'UBL-SR-07', 'BR-CO-25'] : ['CII-SR-454', 'BR-CO-25'];
  return [...ruleIds(`extended-ctc-fr/1.4.0/extended-ctc-fr-${syntax}.sch`)].filter((id) => !core.has(id) || changed.includes(id)).sort();
}

/** The EN 16931 rules the profile relaxes: in our en16931 pack, not in the extended-ctc-fr pack. */
export function relaxedRuleIds(syntax: Syntax): string[] {
  const extended = ruleIds(`extended-ctc-fr/1.4.0/extended-ctc-fr-${syntax}.sch`);
  return [...ruleIds(`en16931/1.3.16/en16931-${syntax}.sch`)].filter((id) => !extended.has(id)).sort();
}

export function describeExtendedCtcFrPack(syntax: Syntax, expected: [string, string[]][], relaxed: string[]): void {
  const base = syntax === 'ubl' ? UBL_EXTENDED : CII_EXTENDED;
  const mutations = EXTENDED_MUTATIONS.filter((m) => m.syntax === syntax);
  const expectedByName = new Map(expected);

  describe(`extended-ctc-fr pack, ${syntax.toUpperCase()}`, () => {
    it('the base invoice is schema-valid and clean, and its profile selects extended-ctc-fr instead of en16931', () => {
      const r = validate(base);
      expect({ valid: r.valid, profile: r.profile, packs: r.packs, findings: r.findings.map((f) => f.rule) })
        .toEqual({ valid: true, profile: 'extended-ctc-fr', packs: ['extended-ctc-fr@1.4.0'], findings: [] });
      // with the French destination the BR-FR rules join, the EN 16931 core still does not
      expect(validate(base, { country: 'FR' }).packs).toEqual(['extended-ctc-fr@1.4.0', 'br-fr@1.4.0']);
    });

    it('the same invoice labelled EN 16931 gets the core pack, which rejects what the extended profile allows (sub-lines, per-reason VAT breakdown)', () => {
      const plain = base.replace('urn:cen.eu:en16931:2017#conformant#urn.cpro.gouv.fr:1p0:extended-ctc-fr', 'urn:cen.eu:en16931:2017');
      const r = validate(plain, { skipXsd: true });
      expect(r.packs).toEqual(['en16931@1.3.16']);
      // the GROUP line counts in the EN 16931 sums: 200.00 of lines against BT-106 = 150.00
      expect(r.findings.map((f) => f.rule)).toEqual(expect.arrayContaining(['BR-CO-10']));
    });

    it('the table covers every mutation of the syntax, and every mutation applies', () => {
      expect(mutations.map((m) => m.name).sort()).toEqual([...expectedByName.keys()].sort());
      for (const m of mutations) expect(mutated(m)).not.toBe(base);
    });

    it.each(mutations.map((m) => [m.name, m] as const))('%s', (_name, m) => {
      const xml = mutated(m);
      const want = expectedByName.get(m.name)!;
      // a mutation that stays schema-valid gives no XSD finding either; the others run the rules alone
      expect(fired(xml, { skipXsd: !!m.xsdInvalid })).toEqual(want);
      expect(fired(xml, { skipXsd: true, engine: 'saxon' })).toEqual(want);
      // the pack never runs beside the EN 16931 core on these documents
      expect(validate(xml, { skipXsd: true }).packs).toEqual(['extended-ctc-fr@1.4.0']);
    });

    it('leaves out exactly the EN 16931 rules the profile relaxes', () => {
      expect(relaxedRuleIds(syntax)).toEqual([...relaxed].sort());
    });

    it('every rule the profile adds or changes is fired by some mutation, with its official severity', () => {
      const firedIds = new Set(expected.flatMap(([, ids]) => ids.map((id) => id.replace(/:warning$/, ''))));
      expect(profileRuleIds(syntax).filter((id) => !firedIds.has(id))).toEqual([]);
    });
  });
}
