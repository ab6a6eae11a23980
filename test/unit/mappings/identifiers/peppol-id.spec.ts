import { ICD_BY_VAT_PREFIX, isValidVatNumber, peppolIdFromVat, isValidIban, MappingError } from '../../../../mappings/index.ts';

/** One valid-shaped VAT number per prefix with the Peppol id it yields. */
const TABLE: Array<[string, string]> = [
  ['ATU12345678', '9914:ATU12345678'],
  ['BE0123456789', '0208:0123456789'],
  ['BG123456789', '9926:BG123456789'],
  ['CY12345678X', '9928:CY12345678X'],
  ['CZ12345678', '9929:CZ12345678'],
  ['DE123456789', '9930:DE123456789'],
  ['DK12345678', '0184:12345678'],
  ['EE123456789', '9931:EE123456789'],
  ['EL094259216', '9933:EL094259216'],
  ['ESB12345678', '9920:ESB12345678'],
  ['FI12345678', '0213:FI12345678'],
  ['FR40303265045', '0009:303265045'],
  ['FRK7732829320', '0009:732829320'],
  ['HR12345678901', '9934:HR12345678901'],
  ['HU12345678', '9910:HU12345678'],
  ['IE1234567T', '9935:IE1234567T'],
  ['IT12345678901', '0211:IT12345678901'],
  ['LT123456789', '9937:LT123456789'],
  ['LU12345678', '9938:LU12345678'],
  ['LV12345678901', '9939:LV12345678901'],
  ['MT12345678', '9943:MT12345678'],
  ['NL123456789B01', '9944:NL123456789B01'],
  ['PL1234567890', '9945:PL1234567890'],
  ['PT123456789', '9946:PT123456789'],
  ['RO1234567', '9947:RO1234567'],
  ['SE556677889901', '0007:5566778899'],
  ['SI12345678', '9949:SI12345678'],
  ['SK1234567890', '9950:SK1234567890'],
  ['XI123456789', '9932:XI123456789'],
  ['GB123456789', '9932:GB123456789'],
  ['NO923456789MVA', '0192:923456789'],
  ['IS123456', '0196:123456'],
  ['LI12345', '9936:LI12345'],
  ['CHE123456789MWST'.replace('MWST', 'MVA'), '9927:CHE123456789MVA'],
  ['AD1234567A'.replace('1234567A', 'U123456X'), '9922:ADU123456X'],
  ['ALJ12345678N', '9923:ALJ12345678N'],
  ['BA123456789012', '9924:BA123456789012'],
  ['MC12345678901', '9940:MC12345678901'],
  ['ME12345678', '9941:ME12345678'],
  ['MK1234567890123', '9942:MK1234567890123'],
  ['RS123456789', '9948:RS123456789'],
  ['SM12345', '9951:SM12345'],
  ['TR1234567890', '9952:TR1234567890'],
  ['VA12345678901', '9953:VA12345678901'],
  ['AU51824753556', '0151:51824753556'],
  ['NZ123456789', '0088:123456789'],
  ['SG201912345K', '0195:201912345K'],
  ['JPT1234567890123', '0221:T1234567890123'],
  ['MYC12345678090', '0230:C12345678090'],
  ['AE100000000000003', '0235:100000000000003'],
];

describe('peppolIdFromVat: ICD scheme of the VAT country prefix', () => {
  it.each(TABLE)('%s → %s', (vat, id) => {
    expect(isValidVatNumber(vat)).toBe(true);
    expect(peppolIdFromVat(vat)).toBe(id);
  });

  it('the table covers every EU member state and the EEA', () => {
    const eu = ['AT', 'BE', 'BG', 'CY', 'CZ', 'DE', 'DK', 'EE', 'EL', 'ES', 'FI', 'FR', 'HR', 'HU', 'IE', 'IT', 'LT', 'LU', 'LV', 'MT', 'NL', 'PL', 'PT', 'RO', 'SE', 'SI', 'SK'];
    for (const p of [...eu, 'NO', 'IS', 'LI']) expect(ICD_BY_VAT_PREFIX[p]).toBeDefined();
    for (const prefix of Object.keys(ICD_BY_VAT_PREFIX)) expect(TABLE.some(([vat]) => vat.startsWith(prefix))).toBe(true);
    expect(ICD_BY_VAT_PREFIX.NL!.registrySchemes).toEqual(['0106', '0190']);
  });

  it.each([
    ['be0123456789', 'INVALID_VAT_FORMAT'],
    ['BE 0123456789', 'INVALID_VAT_FORMAT'],
    ['BE012345678', 'INVALID_VAT_FORMAT'],
    ['FR123', 'INVALID_VAT_FORMAT'],
    ['DE12345678', 'INVALID_VAT_FORMAT'],
    ['ZZ123456', 'INVALID_REQUEST'],
  ])('%s → %s', (vat, code) => {
    expect(() => peppolIdFromVat(vat)).toThrow(MappingError);
    try { peppolIdFromVat(vat); } catch (e) { expect((e as MappingError).code).toBe(code); }
  });
});

describe('isValidVatNumber: shapes per country', () => {
  it.each([
    ['ATU1234567', false], ['BE2123456789', false], ['NL123456789B1', false], ['SE556677889902', false], ['IE1234567TW', true],
    ['IE1A23456T', true], ['FRIO123456789', false], ['FRAB123456789', true], ['GBGD123', true], ['CHE123456789', true], ['NO923456789', true],
    ['EL12345678', false], ['', false], ['XX123', false],
  ])('%s → %s', (vat, ok) => {
    expect(isValidVatNumber(vat)).toBe(ok);
  });
});

describe('isValidIban (mod-97)', () => {
  it.each([['BE68539007547034', true], ['BE68 5390 0754 7034', true], ['FR1420041010050500013M02606', true], ['BE68539007547035', false], ['XX', false]])('%s → %s', (iban, ok) => {
    expect(isValidIban(iban)).toBe(ok);
  });
});
