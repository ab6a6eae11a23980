/**
 * The BR-FR-CDV pack (our Schematron of the FNFE-MPE v1.4.0 lifecycle-message rules) against the
 * official oracle over the gobl.cii CDAR samples (corpus README §8): every sample parses (readCdar),
 * and each one gives exactly the oracle's failed assertions — none for those the oracle passes, its
 * rule ids and counts for the others — on both engines (the generated JavaScript and saxon-js).
 */
import { readFileSync } from 'node:fs';
import { corpusPath } from '../support/corpus.ts';
import { readCdar } from '../../mappings/index.ts';
import { validate } from '../../services/validation/engine/index.ts';

interface OracleResult { file: string; failedAsserts: Record<string, number> }
const oracle = JSON.parse(readFileSync(corpusPath('gobl.cii', 'oracle-br-fr-cdv-1.4.0.json'), 'utf8')) as { results: OracleResult[] };

/** Failed assertions as the oracle keys them: `RULE-ID|flag` → count. */
function firings(xml: Buffer, engine: 'compiled' | 'saxon'): Record<string, number> {
  const r = validate(xml, { packs: ['br-fr-cdv'], skipXsd: true, engine });
  expect(r.packs).toEqual(['br-fr-cdv@1.4.0']);
  const out: Record<string, number> = {};
  for (const f of r.findings) out[`${f.rule}|${f.severity}`] = (out[`${f.rule}|${f.severity}`] ?? 0) + 1;
  return out;
}

describe('BR-FR-CDV 1.4.0 on the gobl.cii CDAR samples (oracle-br-fr-cdv-1.4.0.json)', () => {
  it('covers the 21 samples: of the 11 official ones 7 pass and 4 fail (211/212 BR-FR-CDV-16, the PPF copies BR-FR-CDV-02 and CL-01)', () => {
    expect(oracle.results).toHaveLength(21);
    const official = oracle.results.filter((r) => r.file.includes('/parse/'));
    expect(official).toHaveLength(11);
    expect(official.filter((r) => Object.keys(r.failedAsserts).length === 0)).toHaveLength(7);
    expect(oracle.results.filter((r) => Object.keys(r.failedAsserts).length > 0)).toHaveLength(6);
  });

  it.each(oracle.results.map((r) => [r.file, r] as const))('%s parses and gives the oracle\'s findings', (file, r) => {
    const xml = readFileSync(corpusPath('gobl.cii', file));
    const facts = readCdar(xml);
    expect(facts.code).toMatch(/^2\d\d$/);
    expect(facts.invoice.number).toMatch(/^F2025/);
    expect(facts.seller?.ids[0]).toEqual({ value: '100000009', scheme: '0002' });
    expect(firings(xml, 'compiled')).toEqual(r.failedAsserts);
    expect(firings(xml, 'saxon')).toEqual(r.failedAsserts);
    // Through the ordinary selection too: a CDAR gets the XSD and this pack, and is valid exactly when the oracle passes it.
    const full = validate(xml);
    expect(full.packs).toEqual(['br-fr-cdv@1.4.0']);
    expect(full.findings.filter((f) => f.rule === 'XSD')).toEqual([]);
    expect(full.valid).toBe(Object.keys(r.failedAsserts).length === 0);
  });

  it('reads the status facts of the official samples: status, phase, parties, amounts and motifs', () => {
    const paid = readCdar(readFileSync(corpusPath('gobl.cii', 'test/data/parse/UC1_F202500003_07-CDV-212_Encaissee.xml')));
    expect(paid).toMatchObject({
      code: '212', label: 'Encaissée', phase: '23', guideline: 'urn.cpro.gouv.fr:1p0:CDV:invoice', businessProcess: 'REGULATED',
      issuedAt: '2025-08-02T10:05:00Z', statusAt: '2025-08-02T10:00:00Z',
      invoice: { number: 'F202500003', issueDate: '2025-07-01', typeCode: '380', documentStatus: '47' },
      issuer: { role: 'SE', ids: [{ value: '100000009', scheme: '0002' }], name: 'VENDEUR' },
      amounts: { MEN: '12000.00' },
    });
    expect(paid.recipients.map((p) => p.role)).toEqual(['BY', 'DFH']);
    expect(paid.recipients[0]!.address).toEqual({ value: '200000008', scheme: '0225' });
    expect(paid.details[0]!.amounts[0]).toMatchObject({ type: 'MEN', amount: '12000', currency: 'EUR', percent: '20.00' });

    const disputed = readCdar(readFileSync(corpusPath('gobl.cii', 'test/data/parse/UC4_F202500006_04-CDV-207_En_litige.xml')));
    expect(disputed).toMatchObject({ code: '207', reasonCodes: ['TX_TVA_ERR'], details: [{ reasonCode: 'TX_TVA_ERR', actionCode: 'NIN', sequence: '1' }] });
    expect(disputed.details[0]!.amounts.map((a) => [a.type, a.id, a.percent])).toEqual([['DIV', 'BT-152', '10.00'], ['DVA', 'BT-152', '20.00']]);

    const refused = readCdar(readFileSync(corpusPath('gobl.cii', 'test/data/convert/cdar/out/status-210-refusee.xml')));
    expect(refused).toMatchObject({ code: '210', reasonCodes: ['TX_TVA_ERR'], issuer: { role: 'BY' } });
  });
});
