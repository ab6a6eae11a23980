/**
 * The French BR-FR (flux 2) pack for CII, schematrons/br-fr/1.4.0/br-fr-cii.sch.
 *
 * 1. Oracle: the official FNFE-MPE BR-FR v1.4.0 rules were run over the five French CII samples of the
 *    corpus (shared/corpus/mustangproject/oracle-br-fr-flux2-cii-1.4.0.json); our pack must report the same
 *    rule ids with the same severity and the same number of firings.
 * 2. Mutations of the UC10 use case (a multi-vendor S8 invoice that the official rules accept): each change
 *    breaks one French rule and must fire exactly that rule.
 * 3. Selection: the pack runs for destination country FR only.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { validate, type ValidationFinding } from '../../../../services/validation/engine/index.ts';
import { corpusPath } from '../../../support/corpus.ts';

const MUSTANG = corpusPath('mustangproject');
const oracle = JSON.parse(readFileSync(resolve(MUSTANG, 'oracle-br-fr-flux2-cii-1.4.0.json'), 'utf8')) as {
  results: { file: string; failedAsserts: Record<string, number> }[];
};

const frFindings = (xml: string | Buffer): ValidationFinding[] =>
  validate(xml, { packs: ['br-fr'], skipXsd: true }).findings.filter((f) => f.source.startsWith('br-fr@'));
const counts = (fs: ValidationFinding[]): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const f of fs) {
    const k = `${f.rule}|${f.severity === 'warning' ? 'warning' : 'fatal'}`;
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
};

describe('BR-FR CII pack against the official BR-FR v1.4.0 oracle', () => {
  it.each(oracle.results.map((r) => [r.file, r.failedAsserts] as const))('%s', (file, expected) => {
    expect(counts(frFindings(readFileSync(resolve(MUSTANG, file))))).toEqual(expected);
  });
});

describe('BR-FR CII rules on mutations of a valid French multi-vendor invoice (UC10)', () => {
  const base = readFileSync(resolve(MUSTANG, 'validator/src/test/resources/UC10_F202600004_EXTENDED_FX_CII_Commentee.xml'), 'utf8');
  const ids = (xml: string): string[] => frFindings(xml).map((f) => f.rule).sort();
  const mutate = (from: string | RegExp, to: string): string => {
    const out = base.replace(from, to);
    if (out === base) throw new Error(`mutation did not apply: ${String(from)}`);
    return out;
  };

  it('the base document is clean', () => {
    expect(ids(base)).toEqual([]);
  });

  it.each([
    ['BR-FR-05_BT-22_PMT: the recovery fee note is missing', /<ram:SubjectCode>PMT<\/ram:SubjectCode>/, '<ram:SubjectCode>ZZZ</ram:SubjectCode>', ['BR-FR-05_BT-22_PMT']],
    ['BR-FR-06_BT-21_AAB: the discount note is given twice', /<ram:SubjectCode>PMD<\/ram:SubjectCode>/, '<ram:SubjectCode>AAB</ram:SubjectCode>', ['BR-FR-05_BT-22_PMD', 'BR-FR-06_BT-21_AAB']],
    ['BR-FR-02_BT-1 (and BR-FR-MV-11: the main seller sub-invoice no longer carries BT-1): the invoice number contains a space', '<ram:ID>F202600004</ram:ID>', '<ram:ID>F2026 00004</ram:ID>', ['BR-FR-02_BT-1', 'BR-FR-MV-11_BT-128']],
    ['BR-FR-03_BT-2: the invoice date is outside 2000-2099', '<udt:DateTimeString format="102">20260103</udt:DateTimeString>', '<udt:DateTimeString format="102">19991231</udt:DateTimeString>', ['BR-FR-03_BT-2']],
    ['BR-FR-08_BT-23: unknown billing framework', '<ram:ID>S8</ram:ID>', '<ram:ID>S0</ram:ID>', ['BR-FR-08_BT-23']],
    ['BR-FR-16_BT-152: a German VAT rate on a line', '<ram:RateApplicablePercent>20.00</ram:RateApplicablePercent>', '<ram:RateApplicablePercent>19.00</ram:RateApplicablePercent>', ['BR-FR-16_BT-152']],
    ['BR-FR-MV-13_BT-3: a multi-vendor invoice cannot be self-billed', '<ram:TypeCode>380</ram:TypeCode>', '<ram:TypeCode>389</ram:TypeCode>', ['BR-FR-MV-13_BT-3']],
  ])('%s', (_name, from, to, expected) => {
    expect(ids(mutate(from, to))).toEqual(expected);
  });

  it('BR-FR-32-LEGALID and BR-FR-MV-06: a line seller SIREN with 8 digits breaks the SIREN format and the parent line consistency', () => {
    const xml = base.replace('<ram:ID schemeID="0002">111111118</ram:ID>', '<ram:ID schemeID="0002">11111111</ram:ID>');
    expect(xml).not.toBe(base);
    const found = ids(xml);
    expect(found).toContain('BR-FR-32-LEGALID');
    expect(found.filter((r) => r === 'BR-FR-32-LEGALID')).toHaveLength(1);
  });

  it('BR-FR-CO-12_BT-5: an invoice in USD needs the VAT total in EUR', () => {
    const xml = base.replace(/<ram:InvoiceCurrencyCode>EUR<\/ram:InvoiceCurrencyCode>/, '<ram:InvoiceCurrencyCode>USD</ram:InvoiceCurrencyCode>');
    expect(xml).not.toBe(base);
    expect(ids(xml)).toContain('BR-FR-CO-12_BT-5');
  });

  it('messages and hints are plain language with the found values', () => {
    const f = frFindings(mutate('<ram:ID>S8</ram:ID>', '<ram:ID>S0</ram:ID>'));
    expect(f).toHaveLength(1);
    expect(f[0]!.message).toContain('"S0"');
    expect(f[0]!.hint).toMatch(/B1, S1, M1/);
    expect(f[0]!.bt).toEqual(['BT-23']);
  });
});

describe('BR-FR pack selection', () => {
  const xml = readFileSync(resolve(MUSTANG, 'validator/src/test/resources/validV2FR.xml'));
  it('runs when the destination country is FR', () => {
    const r = validate(xml, { country: 'FR', skipXsd: true });
    expect(r.findings.some((f) => f.source.startsWith('br-fr@'))).toBe(true);
  });
  it('does not run without a destination country', () => {
    const r = validate(xml, { skipXsd: true });
    expect(r.findings.some((f) => f.source.startsWith('br-fr@'))).toBe(false);
  });
});
