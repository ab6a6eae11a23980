/**
 * The Peppol MLS pack (schematrons/peppol-mls/1.0.1, SCH-MLS-01 … 31) on peppol-commons' MLS corpus:
 * every published example is clean, every bad file `mls-NNx.xml` raises SCH-MLS-NN (and only the
 * rules that the same fault also breaks), and the generated JavaScript gives exactly saxon-js's
 * findings on every file. Also: the pack's selection and rule ids, and input validateMls refuses.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { getRegistry, InvalidXmlInputError } from '../../../../services/validation/engine/index.ts';
import { validateMls, type MlsFinding } from '../../../../services/validation/engine/mls.ts';
import { corpusPath } from '../../../support/corpus.ts';

const MLS = corpusPath('peppol-transport', 'peppol-commons', 'mls');
const read = (sub: string, f: string): Buffer => readFileSync(join(MLS, sub, f));
const goodFiles = readdirSync(join(MLS, 'good')).filter((f) => f.endsWith('.xml')).sort();
const badFiles = readdirSync(join(MLS, 'bad')).filter((f) => /^mls-\d\d[a-z]\.xml$/.test(f)).sort();
const rules = (fs: MlsFinding[]): string[] => fs.map((f) => f.rule);

/**
 * Other rules a bad file's one fault also breaks, as the published rules judge it: an absent
 * element is also empty and unmatched, an RE without description has no lines either, a line
 * without a valid status is no failure (so the RE has none, SCH-MLS-24).
 */
const ALSO: Record<string, string[]> = {
  'mls-05a.xml': ['SCH-MLS-06'],
  'mls-07a.xml': ['SCH-MLS-08', 'SCH-MLS-09', 'SCH-MLS-10', 'SCH-MLS-11'],
  'mls-08a.xml': ['SCH-MLS-09'], 'mls-08b.xml': ['SCH-MLS-09'],
  'mls-10a.xml': ['SCH-MLS-11'],
  'mls-12a.xml': ['SCH-MLS-13', 'SCH-MLS-14', 'SCH-MLS-15', 'SCH-MLS-16'],
  'mls-13a.xml': ['SCH-MLS-14'], 'mls-13b.xml': ['SCH-MLS-14'],
  'mls-15a.xml': ['SCH-MLS-16'],
  'mls-18a.xml': ['SCH-MLS-19'],
  'mls-20a.xml': ['SCH-MLS-21', 'SCH-MLS-23', 'SCH-MLS-24'],
  'mls-21a.xml': ['SCH-MLS-23', 'SCH-MLS-24'], 'mls-21b.xml': ['SCH-MLS-23', 'SCH-MLS-24'],
  'mls-23a.xml': ['SCH-MLS-24'],
  'mls-28a.xml': ['SCH-MLS-29'], 'mls-28b.xml': ['SCH-MLS-29'],
  'mls-30a.xml': ['SCH-MLS-24'],
  'mls-31a.xml': ['SCH-MLS-24'], 'mls-31b.xml': ['SCH-MLS-24'], 'mls-31c.xml': ['SCH-MLS-24'], 'mls-31d.xml': ['SCH-MLS-24'],
};

describe('Peppol MLS 1.0.1 pack', () => {
  it('is compiled for UBL with the 31 rule ids, every check in JavaScript, selected by the MLS customization id', () => {
    const reg = getRegistry();
    const file = reg.available('ubl').find((f) => f.pack === 'peppol-mls');
    expect(file).toBeDefined();
    expect(file!.version).toBe('1.0.1');
    const expected = Array.from({ length: 31 }, (_, i) => `SCH-MLS-${String(i + 1).padStart(2, '0')}`);
    expect([...file!.ruleIds].sort()).toEqual(expected);
    expect(file!.fallbackChecks ?? 0).toBe(0);
    expect(reg.select({ syntax: 'ubl', customizationId: 'urn:peppol:edec:mls:1.0' }).map((f) => f.pack)).toContain('peppol-mls');
    expect(reg.select({ syntax: 'ubl', customizationId: 'urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0' })
      .map((f) => f.pack)).not.toContain('peppol-mls');
  });

  it('the corpus is there: 8 examples and 66 bad files, two to four per rule', () => {
    expect(goodFiles).toHaveLength(8);
    expect(badFiles).toHaveLength(66);
    expect(new Set(badFiles.map((f) => f.slice(4, 6))).size).toBe(31);
  });

  it.each(goodFiles)('example %s: no finding', (f) => {
    expect(validateMls(read('good', f))).toEqual([]);
  });

  it('the template the bad files were made from is clean', () => {
    expect(validateMls(read('bad', 'mls-template.xml'))).toEqual([]);
  });

  it.each(badFiles)('%s raises its rule, and only the rules its fault also breaks', (f) => {
    const own = `SCH-MLS-${f.slice(4, 6)}`;
    const found = validateMls(read('bad', f));
    expect(rules(found)).toContain(own);
    expect([...new Set(rules(found))].sort()).toEqual([own, ...(ALSO[f] ?? [])].sort());
    for (const x of found) {
      expect(x.flag).toBe('fatal');
      expect(x.message.length).toBeGreaterThan(10);
      expect(x.location).toMatch(/^\/ubl:ApplicationResponse\[1\]/);
    }
  });

  it('the generated JavaScript gives saxon-js\'s findings (rule, flag, location, message) on every corpus file', () => {
    const all = [...goodFiles.map((f) => ['good', f] as const), ...badFiles.map((f) => ['bad', f] as const)];
    const diffs = all.filter(([sub, f]) => {
      const xml = read(sub, f);
      return JSON.stringify(validateMls(xml)) !== JSON.stringify(validateMls(xml, { engine: 'saxon' }));
    });
    expect(diffs).toEqual([]);
  });

  it('messages name the values found', () => {
    const [f] = validateMls(read('bad', 'mls-19a.xml'));
    expect(f!.message).toContain("'XZ'");
    expect(validateMls(read('bad', 'mls-09b.xml'))[0]!.message).toContain('1234567');
  });

  it('reports, rather than failing on, repeated elements the schema would refuse', () => {
    const twice = read('good', 'MessageLevelStatus_Example_RE.xml').toString('utf8')
      .replace('<cbc:ID>MLS-ID123</cbc:ID>', '<cbc:ID>MLS-ID123</cbc:ID><cbc:ID>again</cbc:ID>')
      .replace('<cbc:Description>Rejected due to validation errors</cbc:Description>',
        '<cbc:Description>Rejected due to validation errors</cbc:Description><cbc:Description>Abgelehnt</cbc:Description>')
      .replace(/<cbc:StatusReasonCode>BV<\/cbc:StatusReasonCode>/, '<cbc:StatusReasonCode>BV</cbc:StatusReasonCode><cbc:StatusReasonCode>BW</cbc:StatusReasonCode>');
    expect(validateMls(twice)).toEqual([]);
    const emptySecond = twice.replace('<cbc:Description>Abgelehnt</cbc:Description>', '<cbc:Description> </cbc:Description>');
    expect(rules(validateMls(emptySecond))).toEqual(['SCH-MLS-21']);
  });

  it('refuses what is not an MLS document: DOCTYPE, entities, not XML, another root', () => {
    const base = read('good', 'MessageLevelStatus_Example_AP.xml').toString('utf8');
    const hostile = [
      base.replace('<ApplicationResponse', '<!DOCTYPE ApplicationResponse [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n<ApplicationResponse'),
      base.replace('<ApplicationResponse', '<!DOCTYPE a [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>\n<ApplicationResponse'),
      base.replace('</ApplicationResponse>', ''),
      '',
      '<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>',
    ];
    for (const x of hostile) expect(() => validateMls(x)).toThrow(InvalidXmlInputError);
  });
});
