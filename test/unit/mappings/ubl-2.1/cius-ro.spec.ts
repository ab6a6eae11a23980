/**
 * The CIUS-RO writer (mappings/ubl-2.1/cius-ro.ts): a Romanian JSON invoice becomes a UBL 2.1 invoice
 * declaring CIUS-RO 1.0.1 that is XSD-valid (the vendored UBL 2.1 schema) and clean under EN 16931 and
 * the cius-ro pack; counties and Bucharest sectors written as people write them are coded; what cannot
 * be coded is refused with the field named.
 */
import { jsonToCanonical, canonicalToCiusRoUbl, toCiusRo, romanianCountyCode, bucharestSector, cuiOfVat, CIUS_RO_CUSTOMIZATION_ID, MappingError, type CanonicalInvoice } from '../../../../mappings/index.ts';
import { validate } from '../../../../services/validation/engine/index.ts';
import { romanianJsonInvoice } from '../../../support/romanian-invoice.ts';

const canonical = (overrides: Record<string, unknown> = {}): CanonicalInvoice =>
  jsonToCanonical({ type: 'invoice', document: romanianJsonInvoice('FCT-2026-001', overrides) }, { today: '2026-11-02' });

describe('canonical → CIUS-RO UBL', () => {
  it('is XSD-valid, declares CIUS-RO 1.0.1 and passes EN 16931 and the cius-ro pack', () => {
    const xml = canonicalToCiusRoUbl(canonical());
    const r = validate(xml);
    expect(r.packs).toEqual(expect.arrayContaining(['en16931@1.3.16', 'cius-ro@1.0.1']));
    expect(r.findings.filter((f) => f.severity === 'fatal')).toEqual([]);
    expect(r.valid).toBe(true);
    expect(xml).toContain(`<cbc:CustomizationID>${CIUS_RO_CUSTOMIZATION_ID}</cbc:CustomizationID>`);
    // Seller in Cluj, buyer in Bucharest sector 3; the buyer's CUI is its legal registration id (BR-RO-120).
    expect(xml).toMatch(/<cbc:CityName>Cluj-Napoca<\/cbc:CityName><cbc:PostalZone>400114<\/cbc:PostalZone><cbc:CountrySubentity>RO-CJ<\/cbc:CountrySubentity>/);
    expect(xml).toMatch(/<cbc:CityName>SECTOR3<\/cbc:CityName><cbc:PostalZone>030167<\/cbc:PostalZone><cbc:CountrySubentity>RO-B<\/cbc:CountrySubentity>/);
    expect(xml).toContain('<cbc:RegistrationName>Client Comercial SA</cbc:RegistrationName><cbc:CompanyID>14399840</cbc:CompanyID>');
  });

  it('writes a credit note as a UBL CreditNote that is valid too', () => {
    const c = jsonToCanonical({ type: 'credit-note', document: romanianJsonInvoice('CN-2026-7', { dueDate: undefined, precedingInvoices: [{ number: 'FCT-2026-001', issueDate: '2026-11-01' }] }) }, { today: '2026-11-02' });
    const xml = canonicalToCiusRoUbl(c);
    expect(xml).toContain('<CreditNote ');
    const r = validate(xml);
    expect(r.findings.filter((f) => f.severity === 'fatal')).toEqual([]);
  });

  it('the generic UBL of the same invoice fails the Romanian rules it fixes (so the pre-step is what makes it pass)', async () => {
    const { canonicalToUbl } = await import('../../../../mappings/index.ts');
    const generic = canonicalToUbl({ ...canonical(), customizationId: CIUS_RO_CUSTOMIZATION_ID });
    const ids = validate(generic).findings.filter((f) => f.source.startsWith('cius-ro@')).map((f) => f.rule).sort();
    // The counties are names (Cluj, București), not ISO 3166-2:RO codes.
    expect(ids).toEqual(['BR-RO-110', 'BR-RO-111']);
  });

  it.each([
    ['Cluj', 'RO-CJ'], ['RO-CJ', 'RO-CJ'], ['cj', 'RO-CJ'], ['Județul Argeș', 'RO-AG'], ['Judetul Bistrita-Nasaud', 'RO-BN'],
    ['Caraș-Severin', 'RO-CS'], ['Satu Mare', 'RO-SM'], ['București', 'RO-B'], ['Municipiul Bucuresti', 'RO-B'], ['Vâlcea', 'RO-VL'],
  ])('county %s → %s', (given, code) => expect(romanianCountyCode(given)).toBe(code));

  it.each([['Bavaria'], [''], ['RO-XX']])('no county in %p', (given) => expect(romanianCountyCode(given)).toBeUndefined());

  it.each([['Sector 3', 'SECTOR3'], ['SECTOR6', 'SECTOR6'], ['sectorul 1', 'SECTOR1'], ['București, Sector 2', 'SECTOR2'], ['4', 'SECTOR4'], ['Bucuresti', undefined], ['Sector 7', undefined], ['Strada 3', undefined]])(
    'Bucharest city %p → %p', (city, sector) => expect(bucharestSector(city)).toBe(sector));

  it('CUI of a Romanian VAT number', () => {
    expect(cuiOfVat('RO18547290')).toBe('18547290');
    expect(cuiOfVat('BE0403170701')).toBeUndefined();
  });

  it('refuses what it cannot code, naming every field', () => {
    const c = canonical({
      seller: { name: 'Exemplu Software SRL', vatNumber: 'RO18547290', address: { street: 'Strada X 1', city: 'Cluj-Napoca', country: 'RO' } },
      buyer: { name: 'Client Comercial SA', vatNumber: 'RO14399840', address: { street: 'Bd Unirii 15', city: 'Bucuresti', region: 'Bucuresti', country: 'RO' } },
      currency: 'EUR',
    });
    let err: unknown;
    try { toCiusRo(c); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(MappingError);
    expect((err as MappingError).details.map((d) => [d.field, d.rule])).toEqual([
      ['document.seller.address.subdivision', 'BR-RO-110'],
      ['document.buyer.address.city', 'BR-RO-100'],
      ['document.vatAccountingCurrency', 'BR-RO-030'],
    ]);
  });

  it('leaves a foreign buyer\'s address as it is', () => {
    const c = canonical({ buyer: { name: 'Acme SPRL', vatNumber: 'BE0403170701', address: { street: 'Rue Neuve 1', city: 'Brussels', postalCode: '1000', country: 'BE' } } });
    const out = toCiusRo(c);
    expect(out.buyer.address).toEqual(c.buyer.address);
    expect(out.buyer.legalRegistration).toBeUndefined();
    expect(validate(canonicalToCiusRoUbl(c)).findings.filter((f) => f.severity === 'fatal')).toEqual([]);
  });
});
