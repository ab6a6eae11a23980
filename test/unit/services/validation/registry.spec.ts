/** Pack selection (pack.json `select`): EN 16931 always, CIUS by CustomizationID, national packs by country. */
import { PackRegistry } from '../../../../services/validation/engine/index.ts';
import { withoutReplaced, type CompiledPackFile, type PackSelector } from '../../../../schematrons/packs.ts';

const file = (pack: string, syntax: 'ubl' | 'cii', select: PackSelector, order = 100): CompiledPackFile => ({
  pack, version: '1', syntax, title: pack, select, order, sef: `${pack}.sef.json`, hash: 'h', ruleIds: [], checks: 0,
});

const reg = new PackRegistry({
  compilerVersion: 'x',
  files: [
    file('peppol-bis', 'ubl', { customizationIdContains: ['urn:fdc:peppol.eu:2017:poacc:billing:3.0'] }, 20),
    file('en16931', 'ubl', { always: true }, 10),
    file('en16931', 'cii', { always: true }, 10),
    file('br-fr', 'cii', { countries: ['FR'] }, 30),
    file('xrechnung', 'ubl', { countries: ['DE'], customizationIdContains: ['xeinkauf.de:kosit:xrechnung_3'] }, 30),
  ],
});
const ids = (xs: CompiledPackFile[]): string[] => xs.map((f) => f.pack);
const PEPPOL = 'urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0';
const XR = 'urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0';

describe('pack registry selection', () => {
  it('runs the EN 16931 core for every document of its syntax, first', () => {
    expect(ids(reg.select({ syntax: 'ubl', customizationId: 'urn:cen.eu:en16931:2017' }))).toEqual(['en16931']);
    expect(ids(reg.select({ syntax: 'ubl', customizationId: PEPPOL }))).toEqual(['en16931', 'peppol-bis']);
  });
  it('adds a national pack only for its destination country (country matched case-insensitively)', () => {
    expect(ids(reg.select({ syntax: 'cii', customizationId: 'urn:cen.eu:en16931:2017', country: 'fr' }))).toEqual(['en16931', 'br-fr']);
    expect(ids(reg.select({ syntax: 'cii', customizationId: 'urn:cen.eu:en16931:2017', country: 'BE' }))).toEqual(['en16931']);
    expect(ids(reg.select({ syntax: 'cii', customizationId: 'urn:cen.eu:en16931:2017' }))).toEqual(['en16931']);
  });
  it('requires every given condition (country AND CustomizationID)', () => {
    expect(ids(reg.select({ syntax: 'ubl', customizationId: XR, country: 'DE' }))).toEqual(['en16931', 'xrechnung']);
    expect(ids(reg.select({ syntax: 'ubl', customizationId: XR }))).toEqual(['en16931']);
    expect(ids(reg.select({ syntax: 'ubl', customizationId: PEPPOL, country: 'DE' }))).toEqual(['en16931', 'peppol-bis']);
  });
  it('forces a pack list by id for the conformance runners', () => {
    expect(ids(reg.byIds(['peppol-bis'], 'ubl'))).toEqual(['peppol-bis']);
    expect(reg.has('br-fr', 'ubl')).toBe(false);
  });

  it('chooses a pack release by the issue date (issuedFrom inclusive, issuedBefore exclusive; no date: the newest)', () => {
    const dated = new PackRegistry({
      compilerVersion: 'x',
      files: [
        { ...file('peppol-bis', 'ubl', { customizationIdContains: ['billing:3.0'], issuedBefore: '2026-02-23' }, 20), version: 'a' },
        { ...file('peppol-bis', 'ubl', { customizationIdContains: ['billing:3.0'], issuedFrom: '2026-02-23', issuedBefore: '2026-08-24' }, 20), version: 'b' },
        { ...file('peppol-bis', 'ubl', { customizationIdContains: ['billing:3.0'], issuedFrom: '2026-08-24' }, 20), version: 'c' },
        file('en16931', 'ubl', { always: true }, 10),
      ],
    });
    const v = (issueDate?: string): string[] => dated.select({ syntax: 'ubl', customizationId: PEPPOL, ...(issueDate ? { issueDate } : {}) }).map((f) => `${f.pack}@${f.version}`);
    expect(v('2026-02-22')).toEqual(['en16931@1', 'peppol-bis@a']);
    expect(v('2026-02-23')).toEqual(['en16931@1', 'peppol-bis@b']);
    expect(v('2026-08-23')).toEqual(['en16931@1', 'peppol-bis@b']);
    expect(v('2026-08-24')).toEqual(['en16931@1', 'peppol-bis@c']);
    expect(v()).toEqual(['en16931@1', 'peppol-bis@c']);
    expect(dated.byIds(['peppol-bis'], 'ubl', '2026-03-01').map((f) => f.version)).toEqual(['b']);
    expect(dated.byIds(['peppol-bis@a'], 'ubl', '2026-03-01').map((f) => f.version)).toEqual(['a']);
    expect(dated.has('peppol-bis@b', 'ubl')).toBe(true);
    expect(dated.has('peppol-bis@z', 'ubl')).toBe(false);
  });

  it('leaves out a pack that a selected pack replaces (select.replaces), whoever selected it', () => {
    const withSb = new PackRegistry({
      compilerVersion: 'x',
      files: [
        file('en16931', 'ubl', { always: true }, 10),
        // a Billing pack broad enough to match the self-billing identifier too, to show the replacement
        file('peppol-bis', 'ubl', { customizationIdContains: ['urn:fdc:peppol.eu:2017:poacc:'] }, 20),
        file('peppol-bis-sb', 'ubl', { customizationIdContains: ['poacc:selfbilling:3.0'], replaces: ['peppol-bis'] }, 20),
      ],
    });
    const SB = 'urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:selfbilling:3.0';
    expect(ids(withSb.select({ syntax: 'ubl', customizationId: SB }))).toEqual(['en16931', 'peppol-bis-sb']);
    expect(ids(withSb.select({ syntax: 'ubl', customizationId: PEPPOL }))).toEqual(['en16931', 'peppol-bis']);
    expect(ids(withoutReplaced([...withSb.select({ syntax: 'ubl', customizationId: SB }), ...withSb.byIds(['peppol-bis'], 'ubl')]))).toEqual(['en16931', 'peppol-bis-sb']);
    // packs forced by id are taken as given
    expect(ids(withSb.byIds(['peppol-bis', 'peppol-bis-sb'], 'ubl'))).toEqual(['peppol-bis', 'peppol-bis-sb']);
  });
});
