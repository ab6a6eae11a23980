/**
 * The official Peppol BIS Self-Billing examples of each release validate as the release says: the
 * OpenPeppol artefacts (kept in phax/phive-rules, read in place: test/support/phive-rules.ts) publish
 * them as valid, so XSD, EN 16931 and the release's self-billing rules give no finding at all, on the
 * compiled engine and on saxon-js. Chosen by their CustomizationID and issue date they get the
 * self-billing release of that date, never the Billing rules.
 */
import { validate } from '../../services/validation/engine/index.ts';
import { phiveRulesFile, phiveRulesFiles } from '../support/phive-rules.ts';

/** Our release → the OpenPeppol release folder holding its self-billing examples. */
const RELEASES = [
  { release: '3.0.0', folder: 'phive-rules-peppol-legacy/src/test/resources/external/test-files/openpeppol/2025.3', issued: '2026-02-22' },
  { release: '3.0.1', folder: 'phive-rules-peppol/src/test/resources/external/test-files/openpeppol/2026.3', issued: '2026-03-01' },
  { release: '3.0.2', folder: 'phive-rules-peppol/src/test/resources/external/test-files/openpeppol/2026.5', issued: '2026-09-01' },
] as const;

const summary = (r: ReturnType<typeof validate>): string[] => r.findings.map((f) => `${f.rule}:${f.severity}:${f.source}`);

describe.each(RELEASES)('Peppol BIS Self-Billing $release: the official examples ($folder)', ({ release, folder, issued }) => {
  const files = phiveRulesFiles(folder, /^SB-.*\.xml$/);

  it('has the nine self-billing examples (invoices and the credit note)', () => {
    expect(files.map((f) => f.slice(folder.length + 1))).toEqual(['SB-Allowance-example.xml', 'SB-Vat-category-S.xml', 'SB-base-creditnote-correction.xml',
      'SB-base-example.xml', 'SB-base-negative-inv-correction.xml', 'SB-sales-order-example.xml', 'SB-vat-category-E.xml', 'SB-vat-category-O.xml', 'SB-vat-category-Z.xml']);
  });

  it.each(['compiled', 'saxon'] as const)('each is valid with no finding under XSD, EN 16931 and peppol-bis-sb@' + release + ' (%s engine)', (engine) => {
    const got = Object.fromEntries(files.map((f) => {
      const r = validate(phiveRulesFile(f), { packs: ['en16931', `peppol-bis-sb@${release}`], engine });
      return [f, { valid: r.valid, findings: summary(r), packs: r.packs.map((p) => p.replace(/@.*/, '')) }];
    }));
    expect(got).toEqual(Object.fromEntries(files.map((f) => [f, { valid: true, findings: [], packs: ['en16931', 'peppol-bis-sb'] }])));
  });

  it(`issued on ${issued} (the examples re-dated), each selects peppol-bis-sb@${release} by itself and on the Peppol network, and stays clean`, () => {
    for (const f of files) {
      const xml = phiveRulesFile(f).replace(/<cbc:IssueDate>[^<]*<\/cbc:IssueDate>/, `<cbc:IssueDate>${issued}</cbc:IssueDate>`);
      for (const options of [{}, { networkPacks: ['peppol-bis'] }]) {
        const r = validate(xml, options);
        expect({ f, packs: r.packs.map((p) => p.replace(/^en16931@.*/, 'en16931')), findings: summary(r), profile: r.profile })
          .toEqual({ f, packs: ['en16931', `peppol-bis-sb@${release}`], findings: [], profile: 'peppol-bis-selfbilling-3.0' });
      }
    }
  });
});
