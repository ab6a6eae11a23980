import { parseRecipient, MappingError } from '../../../../mappings/index.ts';

describe('parseRecipient: French reception-point addressing', () => {
  it.each([
    ['732829320_73282932000074', '732829320', '73282932000074', undefined],
    ['732829320_73282932000074_SERVICE-A', '732829320', '73282932000074', 'SERVICE-A'],
    ['732829320_FACTURES', '732829320', undefined, 'FACTURES'],
    ['73282932000074_COMPTA.2', '732829320', '73282932000074', 'COMPTA.2'],
    ['routage:732829320', '732829320', undefined, undefined],
    ['addressing:732829320_73282932000074', '732829320', '73282932000074', undefined],
    ['adressage:73282932000074', '732829320', '73282932000074', undefined],
    ['routing:732829320_73282932000074_X_Y', '732829320', '73282932000074', 'X_Y'],
    ['ADR:732829320_73282932000074_RC1', '732829320', '73282932000074', 'RC1'],
  ])('%s', (to, siren, siret, suffix) => {
    const r = parseRecipient(to);
    expect(r.kind).toBe('reception-point');
    if (r.kind !== 'reception-point') return;
    expect(r.siren).toBe(siren);
    expect(r.siret).toBe(siret);
    expect(r.suffix).toBe(suffix);
    // SIRET preferred over SIREN to resolve the recipient.
    expect(r.addressingIdentifier).toBe(siret ?? siren);
    // The suffix never enters the Peppol id.
    expect(r.peppolId).toBe(`0009:${siren}`);
    expect(r.recipientRouting).toEqual(suffix ? { addressingIdentifier: siret ?? siren, addressingSuffix: suffix } : { addressingIdentifier: siret ?? siren });
    expect(r.to).toEqual({ peppolId: `0009:${siren}`, ...r.recipientRouting });
  });

  it('an explicit metadata.recipientRouting wins over the derived values', () => {
    const r = parseRecipient('732829320_73282932000074_SERVICE-A', { recipientRouting: { addressingSuffix: 'OVERRIDE' } });
    expect(r.kind === 'reception-point' && r.recipientRouting).toEqual({ addressingIdentifier: '73282932000074', addressingSuffix: 'OVERRIDE' });
    expect(r.to).toEqual({ peppolId: '0009:732829320', addressingIdentifier: '73282932000074', addressingSuffix: 'OVERRIDE' });
  });

  it.each([
    ['comp_01HZX', 'company'],
    ['org_12345_67890', 'company'],
    ['comp_732829320_73282932000074', 'company'],
    ['0208:0123456789', 'peppol'],
    ['iso6523-actorid-upis::0088:5798000000001', 'peppol'],
    ['0225:732829320_73282932000074', 'peppol'],
  ])('%s is a %s, never a reception-point address', (to, kind) => {
    expect(parseRecipient(to).kind).toBe(kind);
  });

  it('Peppol ids echo as is with any explicit routing', () => {
    expect(parseRecipient('0208:0123456789').to).toEqual({ peppolId: '0208:0123456789' });
    expect(parseRecipient('0009:732829320', { recipientRouting: { addressingIdentifier: '73282932000074' } }).to)
      .toEqual({ peppolId: '0009:732829320', addressingIdentifier: '73282932000074' });
  });

  it.each([
    [undefined, 'MISSING_FIELD'],
    ['', 'MISSING_FIELD'],
    ['hello', 'INVALID_REQUEST'],
    ['12345_67', 'INVALID_REQUEST'],
    ['routage:12345', 'INVALID_REQUEST'],
    ['732829320_99999999900011', 'INVALID_REQUEST'],
    ['732829320_bad suffix', 'INVALID_REQUEST'],
  ])('%p → %s', (to, code) => {
    expect(() => parseRecipient(to)).toThrow(MappingError);
    try { parseRecipient(to); } catch (e) { expect((e as MappingError).code).toBe(code); expect((e as MappingError).details[0]?.field).toBe('to'); }
  });
});
