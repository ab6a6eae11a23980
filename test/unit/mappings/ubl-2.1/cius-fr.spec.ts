/**
 * The French pre-step over the UBL writer (mappings/ubl-2.1/cius-fr.ts): every shipped example body
 * renders to UBL that is XSD-valid and clean under EN 16931 + BR-FR (and EXTENDED-CTC-FR + BR-FR
 * with that profile); the French facts are derived as documented; what cannot be made French is
 * refused with every field named.
 */
import { FRENCH_UBL_EXAMPLES, jsonToFrenchUbl, toCiusFr, MappingError, type CanonicalInvoice } from '../../../../mappings/index.ts';
import { validate } from '../../../../services/validation/engine/index.ts';
import { frenchInvoice } from '../../../support/french-invoice.ts';

const TODAY = '2026-09-15';
const fatal = (xml: string) => validate(xml, { country: 'FR' }).findings.filter((f) => f.severity === 'fatal').map((f) => f.rule);

describe.each(['cius-fr', 'extended-ctc-fr'] as const)('every example under %s', (profile) => {
  it.each(FRENCH_UBL_EXAMPLES.map((e) => [e.id, e] as const))('%s: XSD, the core rules and BR-FR pass', (_id, example) => {
    const { xml } = jsonToFrenchUbl(example.body, { ...example.body.french, profile }, TODAY);
    const result = validate(xml, { country: 'FR' });
    expect(result.packs).toEqual(profile === 'cius-fr' ? ['en16931@1.3.16', 'br-fr@1.4.0'] : ['extended-ctc-fr@1.4.0', 'br-fr@1.4.0']);
    expect(fatal(xml)).toEqual([]);
  });
});

const line: CanonicalInvoice['lines'][number] = { id: '1', quantity: '1', unit: 'C62', netAmount: '100.00', item: { name: 'Conseil' }, price: { netPrice: '100.00' }, vat: { category: 'S', rate: '20.00' } };

describe('toCiusFr', () => {
  it('derives BT-23 from the category, keeps a stated French framework, and writes the four notes once', () => {
    const c = frenchInvoice({ lines: [line], notes: [{ text: '#PMT#Frais de recouvrement : 40 €' }] });
    const goods = toCiusFr(c, { operationCategory: 'goods' });
    expect(goods.profileId).toBe('B1');
    expect(goods.notes).toEqual([
      { subjectCode: 'PMT', text: 'Frais de recouvrement : 40 €' },
      { subjectCode: 'PMD', text: expect.stringContaining('Pénalités') },
      { subjectCode: 'AAB', text: expect.stringContaining('escompte') },
      { subjectCode: 'BAR', text: 'B2B' },
    ]);
    expect(toCiusFr({ ...c, profileId: 'S4' }).profileId).toBe('S4');
    expect(toCiusFr({ ...c, profileId: 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0' }).profileId).toBe('S1');
    expect(toCiusFr(c, { processingRule: 'B2BINT' }).notes?.filter((n) => n.subjectCode === 'BAR')).toEqual([{ subjectCode: 'BAR', text: 'B2BINT' }]);
  });

  it('addresses French parties in the directory (0225:SIREN) and keeps a stated 0225 address; a legacy 0009 SIRET id becomes an identifier', () => {
    const c = frenchInvoice({
      lines: [line],
      seller: { ...frenchInvoice().seller, electronicAddress: { value: '30326504500011', scheme: '0009' } },
    });
    const out = toCiusFr(c);
    expect(out.seller.electronicAddress).toEqual({ value: '303265045', scheme: '0225' });
    expect(out.seller.identifiers).toEqual([{ value: '30326504500011', scheme: '0009' }]);
    expect(out.seller.legalRegistration).toEqual({ value: '303265045', scheme: '0002' });
    expect(out.buyer.electronicAddress).toEqual({ value: '732829320_STATUTS', scheme: '0225' });
  });

  it('takes the SIREN from a French VAT number when no legal registration is given', () => {
    const { legalRegistration: _l, ...seller } = frenchInvoice().seller;
    const out = toCiusFr(frenchInvoice({ lines: [line], seller }));
    expect(out.seller.legalRegistration).toEqual({ value: '303265045', scheme: '0002' });
  });

  it('refuses, with every field, a seller without SIREN, a B2B buyer without one and a 0225 address of another SIREN', () => {
    const c = frenchInvoice({
      lines: [line],
      seller: { name: 'Sans SIREN', address: { country: 'FR' } },
      buyer: { ...frenchInvoice().buyer, electronicAddress: { value: '303265045', scheme: '0225' } },
    });
    let error: MappingError | undefined;
    try { toCiusFr(c); } catch (err) { error = err as MappingError; }
    expect(error).toBeInstanceOf(MappingError);
    expect(error!.details.map((d) => [d.field, d.rule])).toEqual([['document.seller.siren', 'BR-FR-10'], ['document.buyer.peppolId', 'BR-FR-21']]);

    const { legalRegistration: _l, vatId: _v, electronicAddress: _e, ...anonymousBuyer } = frenchInvoice().buyer;
    expect(() => toCiusFr(frenchInvoice({ lines: [line], buyer: anonymousBuyer }))).toThrow(expect.objectContaining({ details: [expect.objectContaining({ field: 'document.buyer.siren', rule: 'BR-FR-11' })] }));
    // B2C: the buyer needs no SIREN, but an address still.
    expect(() => toCiusFr(frenchInvoice({ lines: [line], buyer: anonymousBuyer }), { processingRule: 'B2C' })).toThrow(expect.objectContaining({ details: [expect.objectContaining({ field: 'document.buyer.peppolId', rule: 'BR-FR-12' })] }));
  });

  it('names the caller\'s fields when self-billing swapped the roles, and refuses a SIREN failing its check digit', () => {
    const c = frenchInvoice({ lines: [line], seller: { name: 'Fournisseur', legalRegistration: { value: '303265046', scheme: '0002' }, address: { country: 'FR' } } });
    expect(() => toCiusFr(c, { selfBilled: true })).toThrow(expect.objectContaining({ code: 'INVALID_REQUEST', details: [expect.objectContaining({ field: 'document.buyer.siren', rule: 'siren' })] }));
  });
});
