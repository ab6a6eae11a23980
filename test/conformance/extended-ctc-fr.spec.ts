/**
 * The EXTENDED-CTC-FR pack on the corpus. The shared corpus has no extended-profile example or unit test file
 * (France_RFE holds the XSDs and API descriptions only; the Annex B example zips are missing upstream), so the
 * in-corpus check is this: the 34 CEN EN 16931 examples (UBL and CII), relabelled with the extended-ctc-fr
 * profile identifier, stay schema-valid, select our pack alone (not the EN 16931 core) and give exactly the
 * findings below — the very findings the official FNFE-MPE 1.4.0 rules give on the profile's rules
 * (test/conformance/extended-ctc-fr-oracle.external.ts): a -08rev warning where a breakdown carries an
 * exemption reason its lines do not, and BR-FXEXT-S-09 on the HUF example, whose VAT amounts are rounded to whole
 * forints. Run on both rule engines.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { validate } from '../../services/validation/engine/index.ts';
import { CORPUS_DIR, corpusAvailable, CORPUS_MISSING } from '../support/corpus.ts';
import { EXTENDED_CTC_FR_ID } from '../support/extended-ctc-fr-invoices.ts';

if (!corpusAvailable()) throw new Error(CORPUS_MISSING);

const EXPECTED: Record<string, string[]> = {
  'ubl/examples/guide-example2.xml': ['BR-FREXT-E-08rev:warning'],
  'ubl/examples/ubl-tc434-creditnote1.xml': ['BR-FREXT-E-08rev:warning'],
  'ubl/examples/ubl-tc434-example2.xml': ['BR-FREXT-E-08rev:warning'],
  'ubl/examples/ubl-tc434-example7.xml': ['BR-FREXT-O-08rev:warning'],
  'cii/examples/CII_business_example_01.xml': ['BR-FXEXT-E-08rev:warning'],
  'cii/examples/CII_example2.xml': ['BR-FXEXT-E-08rev:warning'],
  'cii/examples/CII_example7.xml': ['BR-FXEXT-O-08rev:warning'],
  'cii/examples/XRechnung-O.xml': ['BR-FXEXT-O-08rev:warning'],
  'cii/examples/huf_example_cii.xml': ['BR-FXEXT-S-09'],
};

const examples = ['ubl/examples', 'cii/examples'].flatMap((dir) =>
  readdirSync(join(CORPUS_DIR, 'eInvoicing-EN16931', dir)).filter((n) => /\.xml$/i.test(n)).sort().map((f) => `${dir}/${f}`));

const relabelled = (path: string): string => readFileSync(join(CORPUS_DIR, 'eInvoicing-EN16931', path), 'utf8')
  .replace(/(<cbc:CustomizationID>)[^<]*/, `$1${EXTENDED_CTC_FR_ID}`)
  .replace(/(<ram:GuidelineSpecifiedDocumentContextParameter>\s*<ram:ID>)[^<]*/, `$1${EXTENDED_CTC_FR_ID}`);

describe('extended-ctc-fr on the CEN examples relabelled with the French extended profile', () => {
  it('has the 34 examples (19 UBL, 15 CII), each relabelled', () => {
    expect(examples.length).toBe(34);
    for (const e of examples) expect(relabelled(e)).toContain(EXTENDED_CTC_FR_ID);
  });

  it.each(examples)('%s', (path) => {
    const xml = relabelled(path);
    for (const engine of ['compiled', 'saxon'] as const) {
      const r = validate(xml, { engine });
      expect({ path, engine, profile: r.profile, packs: r.packs, findings: r.findings.map((f) => f.rule + (f.severity === 'warning' ? ':warning' : '')).sort() })
        .toEqual({ path, engine, profile: 'extended-ctc-fr', packs: ['extended-ctc-fr@1.4.0'], findings: EXPECTED[path] ?? [] });
    }
  });
});
