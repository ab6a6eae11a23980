/**
 * countryOfPeppolId: the country a Peppol id names (what routing uses to put a country's own
 * connector, such as its tax platform, first), from a scheme of one country or, for a shared
 * scheme, the identifier's VAT prefix; nothing for a scheme of no country or a malformed id.
 */
import { ICD_BY_VAT_PREFIX, countryOfPeppolId } from '../../../../mappings/index.ts';

describe('countryOfPeppolId', () => {
  it('names the country of single-country schemes, also behind the iso6523 prefix', () => {
    expect(countryOfPeppolId('9945:PL5260250274')).toBe('PL');
    expect(countryOfPeppolId('iso6523-actorid-upis::9945:PL5260250274')).toBe('PL');
    expect(countryOfPeppolId('0208:0403170701')).toBe('BE');
    expect(countryOfPeppolId('0009:303265045')).toBe('FR');
    expect(countryOfPeppolId('0211:IT01234567890')).toBe('IT');
    expect(countryOfPeppolId('9947:RO14399840')).toBe('RO');
    expect(countryOfPeppolId('9933:EL123456789')).toBe('GR');
  });

  it('a scheme two countries share (9932) is decided by the identifier\'s prefix', () => {
    expect(countryOfPeppolId('9932:GB123456789')).toBe('GB');
    expect(countryOfPeppolId('9932:XI123456789')).toBe('XI');
    expect(countryOfPeppolId('9932:123456789')).toBeUndefined();
  });

  it('every scheme of the VAT table but the global GLN gives its country back (GB/XI by prefix)', () => {
    for (const [country, rule] of Object.entries(ICD_BY_VAT_PREFIX)) {
      const id = `${rule.scheme}:${rule.identifier(`${country}0123456789`)}`;
      expect({ country, found: countryOfPeppolId(id) }).toEqual({ country, found: rule.scheme === '0088' ? undefined : country === 'EL' ? 'GR' : country });
    }
  });

  it('nothing for a scheme of no country (0088 GLN) or an id that is not one', () => {
    expect(countryOfPeppolId('0088:5790000435975')).toBeUndefined();
    expect(countryOfPeppolId('comp_123')).toBeUndefined();
    expect(countryOfPeppolId('')).toBeUndefined();
  });
});
