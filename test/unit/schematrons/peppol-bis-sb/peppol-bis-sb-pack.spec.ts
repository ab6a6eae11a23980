/**
 * The Peppol BIS Self-Billing packs (schematrons/peppol-bis-sb: 3.0.0 = OpenPeppol 2025.3, 3.0.1 = 2026.3,
 * 3.0.2 = 2026.5): every rule id of each release fires on a minimal violating document of ours and the
 * good documents are clean (test/support/peppol-self-billing.ts; the expected firings were checked against the official
 * artefacts, NOTES.md); the release is chosen by the issue date as for the Billing packs; a self-billing
 * document never gets the Billing rules the self-billing rules replace, not even from the Peppol network.
 */
import libxml from 'libxmljs2';
import type { Element } from 'libxmljs2';
import { validate, getRegistry } from '../../../../services/validation/engine/index.ts';
import { SB_CASES, SB_RELEASES, expectedFor, selfBilledInvoice, selfBilledCreditNote, richSelfBilledInvoice, change, SB_CUSTOMIZATION, type SbRelease } from '../../../support/peppol-self-billing.ts';

/** Findings of one self-billing release as sorted `RULE:severity` (only that pack runs). */
const run = (xml: string, release: SbRelease, engine: 'compiled' | 'saxon' = 'compiled'): string[] =>
  validate(xml, { packs: [`peppol-bis-sb@${release}`], skipXsd: true, engine }).findings.map((f) => `${f.rule}:${f.severity}`).sort();
const packsOf = (xml: string, options: Parameters<typeof validate>[1] = {}): string[] =>
  validate(xml, { skipXsd: true, ...options }).packs.map((p) => p.replace(/^en16931@.*/, 'en16931'));

describe('Peppol BIS Self-Billing rules: every rule id, each release', () => {
  it.each(SB_RELEASES)('the good self-billed invoice and credit note are clean under %s', (r) => {
    expect(run(selfBilledInvoice(), r)).toEqual([]);
    expect(run(selfBilledCreditNote(), r)).toEqual([]);
  });

  for (const c of SB_CASES) {
    it(`${c.rule}: ${c.title}`, () => {
      const got = Object.fromEntries(SB_RELEASES.map((r) => [r, run(c.xml, r)]));
      expect(got).toEqual(Object.fromEntries(SB_RELEASES.map((r) => [r, expectedFor(c, r)])));
    });
  }

  it.each(SB_RELEASES)('every rule id of %s has a case that fires it, and no case fires an id the release does not have', (r) => {
    const pack = getRegistry().available('ubl').find((f) => f.pack === 'peppol-bis-sb' && f.version === r)!;
    const fired = new Set(SB_CASES.flatMap((c) => expectedFor(c, r)).map((x) => x.replace(/:(fatal|warning)$/, '')));
    expect([...fired].sort()).toEqual([...pack.ruleIds].sort());
  });

  it('3.0.2 has the rules of 3.0.1 plus PEPPOL-COMMON-R052 … R057; 3.0.0 and 3.0.1 have the same ids', () => {
    const ids = (v: string): string[] => getRegistry().available('ubl').find((f) => f.pack === 'peppol-bis-sb' && f.version === v)!.ruleIds.slice().sort();
    expect(ids('3.0.0')).toEqual(ids('3.0.1'));
    expect(ids('3.0.2').filter((x) => !ids('3.0.1').includes(x))).toEqual(['PEPPOL-COMMON-R052', 'PEPPOL-COMMON-R053', 'PEPPOL-COMMON-R054',
      'PEPPOL-COMMON-R055', 'PEPPOL-COMMON-R056-1', 'PEPPOL-COMMON-R056-2', 'PEPPOL-COMMON-R057']);
    expect(ids('3.0.1').filter((x) => !ids('3.0.2').includes(x))).toEqual([]);
  });

  it('the compiled engine and saxon-js give the same findings on every case', () => {
    const differing = SB_CASES.flatMap((c) => SB_RELEASES.filter((r) => run(c.xml, r).join() !== run(c.xml, r, 'saxon').join()).map((r) => `${c.rule} ${c.title} @${r}`));
    expect(differing).toEqual([]);
  });

  it('messages say what was found; fatal rules carry a hint', () => {
    const f = validate(change(selfBilledInvoice(), '<cbc:InvoiceTypeCode>389<', '<cbc:InvoiceTypeCode>380<'), { packs: ['peppol-bis-sb@3.0.2'], skipXsd: true }).findings;
    expect(f).toEqual([expect.objectContaining({ rule: 'PEPPOL-EN16931-P0100', severity: 'fatal', bt: ['BT-3'], source: 'peppol-bis-sb@3.0.2', location: expect.stringContaining('InvoiceTypeCode') })]);
    expect(f[0]!.message).toContain("'380'");
    expect(f[0]!.hint).toContain('389');
  });
});

describe('Peppol BIS Self-Billing: selection', () => {
  it('picks the self-billing release by issue date like the Billing releases (3.0.0 before 2026-02-23, 3.0.1, 3.0.2 from 2026-08-24)', () => {
    expect(packsOf(selfBilledInvoice('2026-02-22'))).toEqual(['en16931', 'peppol-bis-sb@3.0.0']);
    expect(packsOf(selfBilledInvoice('2026-02-23'))).toEqual(['en16931', 'peppol-bis-sb@3.0.1']);
    expect(packsOf(selfBilledInvoice('2026-08-23'))).toEqual(['en16931', 'peppol-bis-sb@3.0.1']);
    expect(packsOf(selfBilledInvoice('2026-08-24'))).toEqual(['en16931', 'peppol-bis-sb@3.0.2']);
    expect(packsOf(selfBilledCreditNote('2026-03-01'))).toEqual(['en16931', 'peppol-bis-sb@3.0.1']);
    expect(packsOf(selfBilledInvoice('not-a-date'))).toEqual(['en16931', 'peppol-bis-sb@3.0.2']);
  });

  it('a self-billing document gets the self-billing rules instead of the Billing rules, also on the Peppol network', () => {
    const sb = selfBilledInvoice('2026-09-01');
    expect(packsOf(sb, { networkPacks: ['peppol-bis'] })).toEqual(['en16931', 'peppol-bis-sb@3.0.2']);
    const r = validate(sb, { networkPacks: ['peppol-bis'] });
    expect(r).toMatchObject({ valid: true, profile: 'peppol-bis-selfbilling-3.0', findings: [] });
    // The Billing rules would reject it (self-billing identifiers and type code): they are not run.
    expect(run(sb, '3.0.2')).toEqual([]);
    expect(validate(sb, { packs: ['peppol-bis@3.0.21'], skipXsd: true }).findings.map((f) => f.rule)).toEqual(expect.arrayContaining(['PEPPOL-EN16931-R004', 'PEPPOL-EN16931-R007']));
  });

  it('a Billing document keeps the Billing rules and never gets the self-billing ones', () => {
    const billing = change(change(change(selfBilledInvoice('2026-09-01'), SB_CUSTOMIZATION, 'urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0'),
      'poacc:selfbilling:01:1.0', 'poacc:billing:01:1.0'), '<cbc:InvoiceTypeCode>389<', '<cbc:InvoiceTypeCode>380<');
    expect(packsOf(billing)).toEqual(['en16931', 'peppol-bis@3.0.21']);
    expect(packsOf(billing, { networkPacks: ['peppol-bis'] })).toEqual(['en16931', 'peppol-bis@3.0.21']);
    expect(validate(billing, { skipXsd: true }).profile).toBe('peppol-bis-billing-3.0');
  });

  it('forcing packs by id is never overridden: the bare id takes the release by date, id@version names one', () => {
    expect(packsOf(selfBilledInvoice('2026-03-01'), { packs: ['peppol-bis-sb'] })).toEqual(['peppol-bis-sb@3.0.1']);
    expect(packsOf(selfBilledInvoice('2026-03-01'), { packs: ['peppol-bis-sb@3.0.2'] })).toEqual(['peppol-bis-sb@3.0.2']);
    expect(packsOf(selfBilledInvoice('2026-09-01'), { packs: ['peppol-bis', 'peppol-bis-sb'] })).toEqual(['peppol-bis@3.0.21', 'peppol-bis-sb@3.0.2']);
  });
});

describe('Peppol BIS Self-Billing: no rule ever stops the rule set', () => {
  /** Every element repeated, filled with junk (leaves) or removed, one at a time. */
  function mutants(text: string): { what: string; xml: string }[] {
    const out: { what: string; xml: string }[] = [];
    const count = libxml.parseXml(text).find('//*').length;
    for (let i = 1; i < count; i++) {
      for (const mode of ['repeat', 'junk', 'remove'] as const) {
        const doc = libxml.parseXml(text);
        const el = doc.find('//*')[i] as Element;
        if (mode === 'junk' && el.childNodes().some((c) => c.type() === 'element')) continue;
        if (mode === 'repeat') el.addNextSibling(el.clone());
        else if (mode === 'junk') el.text('x y');
        else el.remove();
        out.push({ what: `${mode} ${el.path()}`, xml: doc.toString(false) });
      }
    }
    return out;
  }

  it('the rich document is clean under every release', () => {
    for (const r of SB_RELEASES) expect({ r, got: run(richSelfBilledInvoice(), r) }).toEqual({ r, got: [] });
  });

  it.each(SB_RELEASES)('every single-element mutant of the rich invoice and of the credit note evaluates under %s without a rule error', (r) => {
    const ms = [...mutants(richSelfBilledInvoice()), ...mutants(selfBilledCreditNote())];
    const errors = ms.flatMap((m) => validate(m.xml, { packs: [`peppol-bis-sb@${r}`], skipXsd: true }).findings
      .filter((x) => x.rule === 'RULE-EVALUATION-ERROR').map((x) => `${m.what}: ${x.message}`));
    expect(ms.length).toBeGreaterThan(400);
    expect(errors).toEqual([]);
  }, 300_000);
});
