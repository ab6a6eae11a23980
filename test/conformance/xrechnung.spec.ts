/**
 * The XRechnung pack (schematrons/xrechnung/3.0.2) on the KoSIT material, read in place from the corpus:
 *
 * - every `<?xmute?>` case of xrechnung-schematron/test/instances (UBL Invoice, UBL CreditNote, CII) and of
 *   validator-configuration-xrechnung/src/test/{cen-unit-test,instances} that names a BR-DE, BR-DEX or BR-TMP
 *   rule gives the stated outcome (semantics: shared/corpus/README.md §3): each mutant, one per PI and per
 *   `code` value, fires every `schematron-invalid` rule and none of the `schematron-valid` ones. Nothing is
 *   skipped: the count of checks is pinned, and a case whose mutant cannot be built counts as a failure.
 *   (The PEPPOL-EN16931-* references of the same PIs are Peppol rules KoSIT merges into its XRechnung build;
 *   they belong to the peppol-bis pack and its own suite, test/unit/schematrons/peppol-bis/xrechnung-mutants.)
 * - the KoSIT report-test instances (validator-configuration-xrechnung/src/test/instances, outcome per
 *   assertions.xml, listed in that folder's NOTICE.md): the XRechnung schematron step (`val-sch.2`) is valid
 *   for ubl001-003, invalid for ubl004, ubl008 and cii001; ubl005 fails the XSD; ubl006 matches no
 *   XRechnung scenario (so the pack is not selected); ubl007 and bin001 are not XML.
 * - the integration inputs (src/test/integration): their stated outcomes concern the CEN severity overrides
 *   of KoSIT's scenarios; the XRechnung step itself passes on each of them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runXmute, XMUTE_SOURCES, type MutantCheck } from './xmute-runner.ts';
import { validate, warmUp, InvalidXmlInputError, type ValidationResult } from '../../services/validation/engine/index.ts';
import { corpusPath } from '../support/corpus.ts';

const isXRechnungRule = (rule: string): boolean => /^BR-(DE|DEX|TMP)-/.test(rule);
/** The specification id KoSIT's build writes in place of the `@xrechnung.spec.id@` token of its instances. */
const XR_CIUS = 'urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0';
const INSTANCES = corpusPath('validator-configuration-xrechnung/src/test/instances');
const INTEGRATION = corpusPath('validator-configuration-xrechnung/src/test/integration');

const instance = (name: string): string =>
  readFileSync(join(INSTANCES, `${name}.xml`), 'latin1').replaceAll('@xrechnung.spec.id@', XR_CIUS);
const xrFatal = (r: ValidationResult): string[] =>
  r.findings.filter((f) => f.source.startsWith('xrechnung@') && f.severity === 'fatal').map((f) => f.rule);

beforeAll(() => { warmUp(); });

describe('KoSIT XML-Mutate cases of the BR-DE, BR-DEX and BR-TMP rules', () => {
  let checks: MutantCheck[];
  beforeAll(() => {
    const sources = XMUTE_SOURCES.filter((s) => s.dir.startsWith('xrechnung-schematron/')
      || s.dir.endsWith('/cen-unit-test') || s.dir.endsWith('/instances'));
    checks = runXmute(sources, isXRechnungRule);
  }, 300_000);

  it('reads every case: 593 rule checks (the PIs outside comments that name an XRechnung rule)', () => {
    expect(checks).toHaveLength(593);
    expect(checks.filter((c) => c.expect === 'invalid').length).toBeGreaterThan(250);
    expect(new Set(checks.map((c) => c.group))).toEqual(new Set(['kosit-cen-unit-test', 'kosit-instances', 'xrechnung-ubl-inv', 'xrechnung-ubl-cn', 'xrechnung-cii']));
  });

  it('every check gives the stated outcome', () => {
    const wrong = checks.filter((c) => !c.agree).map((c) => `${c.file} ${c.mutant}: ${c.rule} expected ${c.expect}: ${c.reason}`);
    expect(wrong).toEqual([]);
  });

  it('covers every rule id the official rule set has for each syntax', () => {
    const fired = (syntax: 'ubl' | 'cii'): string[] => [...new Set(checks
      .filter((c) => c.expect === 'invalid' && c.file.includes('/cii') === (syntax === 'cii')).map((c) => c.rule))].sort();
    // BR-DE-20 (both syntaxes) and the CII BR-DE-21 are never made to fire by the corpus:
    // test/unit/schematrons/xrechnung/xrechnung-pack.spec.ts covers them.
    expect(fired('ubl')).toEqual(['BR-DE-1', 'BR-DE-10', 'BR-DE-11', 'BR-DE-14', 'BR-DE-15', 'BR-DE-16', 'BR-DE-17', 'BR-DE-18', 'BR-DE-19',
      'BR-DE-2', 'BR-DE-21', 'BR-DE-22', 'BR-DE-23-a', 'BR-DE-23-b', 'BR-DE-24-a', 'BR-DE-24-b', 'BR-DE-25-a', 'BR-DE-25-b', 'BR-DE-26',
      'BR-DE-27', 'BR-DE-28', 'BR-DE-3', 'BR-DE-30', 'BR-DE-31', 'BR-DE-4', 'BR-DE-5', 'BR-DE-6', 'BR-DE-7', 'BR-DE-8', 'BR-DE-9',
      'BR-DE-CVD-01', 'BR-DE-CVD-02', 'BR-DE-CVD-03', 'BR-DE-CVD-04', 'BR-DE-CVD-05', 'BR-DE-CVD-06-a', 'BR-DE-CVD-06-b', 'BR-DE-TMP-32',
      'BR-DEX-01', 'BR-DEX-02', 'BR-DEX-03', 'BR-DEX-04', 'BR-DEX-05', 'BR-DEX-06', 'BR-DEX-07', 'BR-DEX-08', 'BR-DEX-09', 'BR-DEX-10',
      'BR-DEX-11', 'BR-DEX-12', 'BR-DEX-13', 'BR-DEX-14', 'BR-TMP-2', 'BR-TMP-CVD-01']);
    expect(fired('cii')).toEqual(['BR-DE-1', 'BR-DE-10', 'BR-DE-11', 'BR-DE-14', 'BR-DE-15', 'BR-DE-16', 'BR-DE-17', 'BR-DE-18', 'BR-DE-19',
      'BR-DE-2', 'BR-DE-22', 'BR-DE-23-a', 'BR-DE-23-b', 'BR-DE-24-a', 'BR-DE-24-b', 'BR-DE-25-a', 'BR-DE-25-b', 'BR-DE-26',
      'BR-DE-27', 'BR-DE-28', 'BR-DE-3', 'BR-DE-30', 'BR-DE-31', 'BR-DE-4', 'BR-DE-5', 'BR-DE-6', 'BR-DE-7', 'BR-DE-8', 'BR-DE-9',
      'BR-DE-CVD-01', 'BR-DE-CVD-02', 'BR-DE-CVD-03', 'BR-DE-CVD-04', 'BR-DE-CVD-05', 'BR-DE-CVD-06-a', 'BR-DE-CVD-06-b', 'BR-DE-TMP-32',
      'BR-DEX-01', 'BR-DEX-04', 'BR-DEX-05', 'BR-DEX-06', 'BR-DEX-07', 'BR-DEX-08', 'BR-DEX-15', 'BR-TMP-2', 'BR-TMP-3', 'BR-TMP-CVD-01']);
  });
});

describe('KoSIT report-test instances: the XRechnung step as assertions.xml states it', () => {
  it.each(['ubl001', 'ubl002', 'ubl003'])('%s: selected by its CustomizationID, the XRechnung rules pass', (name) => {
    const r = validate(instance(name));
    expect(r.packs).toContain('xrechnung@3.0.2');
    expect(xrFatal(r)).toEqual([]);
  });

  it('ubl001 is accepted as a whole (XSD, EN 16931 and XRechnung)', () => {
    expect(validate(instance('ubl001')).valid).toBe(true);
  });

  it.each([['ubl004', 'BR-DE-3'], ['ubl008', 'BR-DE-15'], ['cii001', 'BR-DE-2']])('%s: the XRechnung rules reject it (%s among them)', (name, rule) => {
    const r = validate(instance(name));
    expect(r.packs).toContain('xrechnung@3.0.2');
    expect(xrFatal(r)).toContain(rule);
    expect(r.valid).toBe(false);
  });

  it('ubl005 fails the XSD', () => {
    const r = validate(instance('ubl005'));
    expect(r.valid).toBe(false);
    expect(r.findings.some((f) => f.rule === 'XSD')).toBe(true);
  });

  it('ubl006 declares no XRechnung specification identifier: the XRechnung pack is not selected', () => {
    expect(validate(instance('ubl006')).packs).not.toContain('xrechnung@3.0.2');
  });

  it.each(['ubl007', 'bin001'])('%s is not well-formed XML: refused as such', (name) => {
    expect(() => validate(instance(name))).toThrow(InvalidXmlInputError);
  });

  it.each(['diga-cii-extension-codes', 'diga-cii-extension-codes-2', 'cvd-br-tmp-cvd-01-code', 'ubl-cr-646-sub-invoice-lines-cius', 'ubl-cr-646-sub-invoice-lines-extension'])(
    'integration input %s: selected, and the XRechnung step passes', (name) => {
      const r = validate(readFileSync(join(INTEGRATION, `${name}.xml`), 'utf8'));
      expect(r.packs).toContain('xrechnung@3.0.2');
      expect(xrFatal(r)).toEqual([]);
    });
});
