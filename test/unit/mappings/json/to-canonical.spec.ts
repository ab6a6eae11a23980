import { jsonToCanonical, canonicalToUbl, MappingError, FR_CTC_TEMPLATE, PEPPOL_BIS3_TEMPLATE } from '../../../../mappings/index.ts';
import type { CanonicalInvoice, Template } from '../../../../mappings/index.ts';
import { xsdErrors } from '../support/xsd.ts';

type Json = Record<string, unknown>;

const seller = { name: 'Acme SPRL', vatNumber: 'BE0123456789', address: { street: 'Rue Neuve 1', city: 'Brussels', postalCode: '1000', country: 'BE' } };
const buyer = { name: 'Client SA', vatNumber: 'FR40303265045', address: { street: '1 rue de Paris', city: 'Paris', postalCode: '75001', country: 'FR' } };

function doc(overrides: Json = {}, lines: Json[] = [{ description: 'Consulting', quantity: 2, unit: 'HUR', unitPrice: 100, vatRate: 21 }]): Json {
  return { number: 'INV-1', issueDate: '2026-03-01', currency: 'EUR', buyerReference: 'REF', seller, buyer, lines, ...overrides };
}

function map(envelope: Json, options = {}): CanonicalInvoice {
  const c = jsonToCanonical(envelope, options);
  // Every successful mapping must also render to XSD-valid UBL.
  if (c.extensions?.documentType && ['invoice', 'credit-note', 'debit-note'].includes(c.extensions.documentType)) {
    expect(xsdErrors(canonicalToUbl(c))).toEqual([]);
  }
  return c;
}

function failure(envelope: Json, options = {}): MappingError {
  try {
    jsonToCanonical(envelope, options);
  } catch (e) {
    expect(e).toBeInstanceOf(MappingError);
    expect((e as MappingError).name).toBe('MappingError');
    return e as MappingError;
  }
  throw new Error('expected a MappingError');
}

describe('jsonToCanonical: header fields', () => {
  it('maps number, dates, references and notes to their BT slots', () => {
    const c = map({ type: 'invoice', document: doc({ dueDate: '2026-04-01', note: 'Thanks', orderReference: 'PO-9', despatchAdviceReference: 'DES-1', billingReference: 'INV-0', billingReferenceDate: '2026-01-01' }) });
    expect(c).toMatchObject({
      number: 'INV-1', issueDate: '2026-03-01', dueDate: '2026-04-01', typeCode: '380', currency: 'EUR', buyerReference: 'REF',
      orderReference: 'PO-9', despatchAdviceReference: 'DES-1', notes: [{ text: 'Thanks' }],
      precedingInvoices: [{ number: 'INV-0', issueDate: '2026-01-01' }],
      customizationId: 'urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0',
      profileId: 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0',
    });
  });

  it.each([
    ['number missing', { number: undefined }, 'MISSING_FIELD', 'document.number'],
    ['invoiceNumber is not number', { number: undefined, invoiceNumber: 'X' }, 'MISSING_FIELD', 'document.number'],
    ['bad issue date', { issueDate: '01/03/2026' }, 'INVALID_DATE', 'document.issueDate'],
    ['impossible date', { dueDate: '2026-02-30' }, 'INVALID_DATE', 'document.dueDate'],
    ['bad currency', { currency: 'EURO' }, 'INVALID_CURRENCY', 'document.currency'],
    ['lower-case seller VAT', { seller: { ...seller, vatNumber: 'be0123456789' } }, 'INVALID_VAT_FORMAT', 'document.seller.vatNumber'],
    ['IBAN checksum', { payment: { means: 'credit_transfer', iban: 'BE68539007547035' } }, 'INVALID_IBAN', 'document.payment.iban'],
    ['payment means', { payment: { means: 'bitcoin' } }, 'INVALID_ENUM', 'document.payment.means'],
    ['seller missing', { seller: undefined }, 'MISSING_FIELD', 'document.seller'],
    ['no lines', { lines: [] }, 'MISSING_FIELD', 'document.lines'],
  ])('%s → %s on %s', (_name, overrides, code, field) => {
    const e = failure({ type: 'invoice', document: doc(overrides as Json) });
    expect(e.code).toBe(code);
    expect(e.details.map((d) => d.field)).toContain(field);
  });

  it('reports every problem at once with dotted paths', () => {
    const e = failure({ type: 'invoice', document: doc({ currency: 'XXXX' }, [{ description: 'a', unitPrice: 1, vatRate: 20, vatCategory: 'X' }, { unitPrice: 1, vatRate: 20 }]) });
    expect(e.details.map((d) => d.field)).toEqual(['document.currency', 'document.lines[0].vatCategory', 'document.lines[1].description']);
  });

  it('non-EUR invoices also report the VAT total in EUR through exchangeRate (BT-6, BT-111)', () => {
    const c = map({ type: 'invoice', document: doc({ currency: 'USD', exchangeRate: '0.9' }) });
    expect(c.currency).toBe('USD');
    expect(c.vatAccountingCurrency).toBe('EUR');
    expect(c.totals.vatTotal).toBe('42.00');
    expect(c.totals.vatTotalAccountingCurrency).toBe('37.80');
    expect(canonicalToUbl(c)).toContain('<cac:TaxTotal><cbc:TaxAmount currencyID="EUR">37.80</cbc:TaxAmount></cac:TaxTotal>');
  });

  it('the French reform flow requires the exchange rate of a non-EUR invoice (BR-FR-CO-12)', () => {
    const e = failure({ type: 'invoice', document: doc({ currency: 'USD' }) }, { template: FR_CTC_TEMPLATE });
    expect(e.details[0]).toMatchObject({ field: 'document.exchangeRate', rule: 'BR-FR-CO-12', message: expect.stringContaining('EUR') });
    expect(map({ type: 'invoice', document: doc({ currency: 'USD' }) }).vatAccountingCurrency).toBeUndefined();
  });

  it('defaults the currency to EUR and the issue date to the clock date', () => {
    const c = map({ type: 'invoice', document: doc({ currency: undefined, issueDate: undefined }) }, { today: '2026-05-05' });
    expect(c.currency).toBe('EUR');
    expect(c.issueDate).toBe('2026-05-05');
  });
});

describe('jsonToCanonical: document types and subtypes', () => {
  it.each([
    ['invoice', undefined, undefined, '380', 'invoice'],
    ['credit-note', undefined, undefined, '381', 'credit-note'],
    ['debit-note', undefined, undefined, '383', 'invoice'],
    ['invoice', 'PREPAYMENT_INVOICE', undefined, '386', 'invoice'],
    ['invoice', '386', undefined, '386', 'invoice'],
    ['invoice', 'SELF_BILLED_INVOICE', undefined, '389', 'invoice'],
    ['invoice', 'CORRECTED_INVOICE', undefined, '384', 'invoice'],
    ['invoice', '384', undefined, '384', 'invoice'],
    ['invoice', '393', undefined, '393', 'invoice'],
    ['invoice', 396, undefined, '396', 'credit-note'],
    ['invoice', undefined, true, '389', 'invoice'],
  ])('type %s subtype %s selfBilled %s → BT-3 %s (%s)', (type, subtype, selfBilled, code, kind) => {
    const c = map({ type, documentSubtype: subtype, selfBilled, document: doc({ billingReference: 'INV-0', billingReferenceDate: '2026-01-01' }) });
    expect(c.typeCode).toBe(code);
    expect(c.kind).toBe(kind);
  });

  it('selfBilled reports a bad VAT number once, on the field the caller sent', () => {
    const e = failure({ type: 'invoice', selfBilled: true, document: doc({ buyer: { ...buyer, vatNumber: 'fr40303265045' } }) });
    expect(e.details).toEqual([expect.objectContaining({ field: 'document.buyer.vatNumber', rule: 'pattern' })]);
  });

  it('selfBilled swaps seller and buyer; SELF_BILLED_INVOICE only tags', () => {
    const swapped = map({ type: 'invoice', selfBilled: true, document: doc() });
    expect(swapped.seller.name).toBe('Client SA');
    expect(swapped.buyer.name).toBe('Acme SPRL');
    expect(swapped.extensions?.selfBilled).toBe(true);
    const tagged = map({ type: 'invoice', documentSubtype: 'SELF_BILLED_INVOICE', document: doc() });
    expect(tagged.seller.name).toBe('Acme SPRL');
    expect(tagged.buyer.name).toBe('Client SA');
  });

  it.each([
    ['credit-note', { documentSubtype: 'PREPAYMENT_INVOICE' }, 'INVALID_REQUEST', 'documentSubtype'],
    ['purchase-order', { documentSubtype: '386' }, 'INVALID_REQUEST', 'documentSubtype'],
    ['invoice', { documentSubtype: 'FINAL_INVOICE' }, 'INVALID_ENUM', 'documentSubtype'],
    ['invoice', { documentSubtype: '999' }, 'INVALID_ENUM', 'documentSubtype'],
    ['receipt', {}, 'INVALID_ENUM', 'type'],
    [undefined, {}, 'MISSING_FIELD', 'type'],
  ])('type %s with %j → %s', (type, extra, code, field) => {
    const e = failure({ type, ...extra, document: doc() });
    expect(e.code).toBe(code);
    expect(e.details[0]?.field).toBe(field);
  });

  it('CORRECTED_INVOICE must reference the original invoice', () => {
    const e = failure({ type: 'invoice', documentSubtype: 'CORRECTED_INVOICE', document: doc() });
    expect(e.code).toBe('MISSING_FIELD');
    expect(e.details[0]?.field).toBe('document.billingReference');
  });

  it('credit notes render as UBL CreditNote and need BT-25/26 under the French reform', () => {
    const c = map({ type: 'credit-note', document: doc({ billingReference: 'INV-0', billingReferenceDate: '2026-01-01' }) });
    const xml = canonicalToUbl(c);
    expect(xml).toContain('<CreditNote xmlns="urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"');
    expect(xml).toContain('<cbc:CreditNoteTypeCode>381</cbc:CreditNoteTypeCode>');
    expect(xml).toContain('<cbc:CreditedQuantity unitCode="HUR">2</cbc:CreditedQuantity>');
    const e = failure({ type: 'credit-note', document: doc() }, { template: FR_CTC_TEMPLATE });
    expect(e.details.map((d) => d.rule)).toEqual(['BR-FR-CO-04', 'BR-FR-CO-05']);
  });

  it('non-billing types map without lines and are refused by the UBL invoice renderer', () => {
    const c = jsonToCanonical({ type: 'event', document: { number: 'EV-1' } }, { today: '2026-01-01' });
    expect(c.number).toBe('EV-1');
    expect(c.typeCode).toBeUndefined();
    expect(() => canonicalToUbl(c)).toThrow(MappingError);
  });
});

describe('jsonToCanonical: lines and totals (rules 1 and 2)', () => {
  it.each([
    ['quantity × unitPrice', { quantity: 3, unitPrice: '33.333' }, '100.00'],
    ['netAmount verbatim', { quantity: 3, unitPrice: '33.333', netAmount: '99.99' }, '99.99'],
    ['netAmount verbatim even with more decimals', { quantity: 1, unitPrice: 5, netAmount: '5.005' }, '5.005'],
    ['binary-float-safe', { quantity: 3, unitPrice: 0.1 }, '0.30'],
    ['price base quantity', { quantity: 250, unitPrice: 12, priceBaseQuantity: 100, priceBaseUnit: 'C62' }, '30.00'],
    ['negative advance', { quantity: -1, unitPrice: 500 }, '-500.00'],
  ])('%s', (_n, line, net) => {
    const c = map({ type: 'invoice', document: doc({}, [{ description: 'x', vatRate: 20, ...line }]) });
    expect(c.lines[0]!.netAmount).toBe(net);
  });

  it('keeps price base quantity in BT-149/150 and derives BT-146 from a stated netAmount', () => {
    const c = map({ type: 'invoice', document: doc({}, [
      { description: 'a', quantity: 250, unitPrice: 12, priceBaseQuantity: 100, priceBaseUnit: 'C62', vatRate: 20 },
      { description: 'b', quantity: 4, netAmount: 10, vatRate: 20 },
    ]) });
    expect(c.lines[0]!.price).toEqual({ netPrice: '12', baseQuantity: '100', baseUnit: 'C62' });
    expect(c.lines[1]!.price.netPrice).toBe('2.5');
    expect(canonicalToUbl(c)).toContain('<cbc:BaseQuantity unitCode="C62">100</cbc:BaseQuantity>');
  });

  it('sums VAT per (category, rate) bucket and totals from the lines', () => {
    const c = map({ type: 'invoice', document: doc({}, [
      { description: 'a', quantity: 1, unitPrice: '10.01', vatRate: 21 },
      { description: 'b', quantity: 1, unitPrice: '10.01', vatRate: 21 },
      { description: 'c', quantity: 1, unitPrice: '100', vatRate: 6 },
      { description: 'd', quantity: 1, unitPrice: '50', vatRate: 0, vatCategory: 'Z' },
    ]) });
    expect(c.vatBreakdown).toEqual([
      { category: 'S', rate: '21', taxableAmount: '20.02', taxAmount: '4.20' },
      { category: 'S', rate: '6', taxableAmount: '100.00', taxAmount: '6.00' },
      { category: 'Z', rate: '0', taxableAmount: '50.00', taxAmount: '0.00' },
    ]);
    expect(c.totals).toEqual({ lineNetTotal: '170.02', taxExclusive: '170.02', vatTotal: '10.20', taxInclusive: '180.22', payable: '180.22' });
    expect(c.lines.map((l) => l.id)).toEqual(['1', '2', '3', '4']);
  });

  it('given totals override the sums', () => {
    const c = map({ type: 'invoice', document: doc({ totals: { net: 200, vat: 42.01, gross: 242.01 } }) });
    expect(c.totals).toMatchObject({ lineNetTotal: '200.00', taxExclusive: '200.00', vatTotal: '42.01', taxInclusive: '242.01', payable: '242.01' });
    expect(c.vatBreakdown[0]!.taxAmount).toBe('42.01');
  });

  it('maps line detail fields to BT-127..BT-156', () => {
    const c = map({ type: 'invoice', document: doc({}, [{
      description: 'Widget', itemDescription: 'Blue widget', itemCode: 'W-1', buyerItemCode: 'B-1', orderLineReference: '7', quantity: 1, unit: 'KGM',
      unitPrice: 5, vatRate: 20, period: { start: '2026-01-01', end: '2026-01-31' }, objectIdentifier: 'OBJ-1', objectIdentifierScheme: 'ABZ',
    }]) });
    expect(c.lines[0]).toMatchObject({
      unit: 'KGM', orderLineReference: '7', period: { start: '2026-01-01', end: '2026-01-31' }, objectIdentifier: { value: 'OBJ-1', scheme: 'ABZ' },
      item: { name: 'Widget', description: 'Blue widget', sellerId: 'W-1', buyerId: 'B-1' },
    });
  });

  it('BR-CO-24: an object identifier needs its scheme', () => {
    const e = failure({ type: 'invoice', document: doc({}, [{ description: 'x', unitPrice: 1, vatRate: 20, objectIdentifier: 'OBJ' }]) });
    expect(e.details[0]).toMatchObject({ field: 'document.lines[0].objectIdentifierScheme', rule: 'BR-CO-24' });
  });

  it.each([
    [{ vatRate: 120 }, 'INVALID_REQUEST', 'document.lines[0].vatRate'],
    [{ vatRate: -1 }, 'INVALID_REQUEST', 'document.lines[0].vatRate'],
    [{ vatRate: 20, quantity: 'two' }, 'INVALID_REQUEST', 'document.lines[0].quantity'],
    [{ vatCategory: 'S' }, 'MISSING_FIELD', 'document.lines[0].vatRate'],
    [{ vatRate: 20, vatExemptionCode: 'EXEMPT' }, 'INVALID_ENUM', 'document.lines[0].vatExemptionCode'],
  ])('line %j → %s', (line, code, field) => {
    const e = failure({ type: 'invoice', document: doc({}, [{ description: 'x', unitPrice: 1, ...line }]) });
    expect(e.code).toBe(code);
    expect(e.details[0]?.field).toBe(field);
  });

  it('despatch references default to the document-level reference (EXT-FR-FE-140/141)', () => {
    const c = map({ type: 'invoice', document: doc({ despatchAdviceReference: 'DES-1', billingReference: 'X' }, [
      { description: 'a', unitPrice: 1, vatRate: 20 },
      { description: 'b', unitPrice: 1, vatRate: 20, despatchAdviceReference: 'DES-2', despatchAdviceLineReference: '4' },
    ]) }, { template: FR_CTC_TEMPLATE });
    expect(c.lines.map((l) => [l.despatchAdviceReference, l.despatchAdviceLineReference])).toEqual([['DES-1', undefined], ['DES-2', '4']]);
    // Peppol BIS declares no slot for the extension terms: nothing renders there.
    const peppol = map({ type: 'invoice', document: doc({ despatchAdviceReference: 'DES-1' }) });
    expect(peppol.lines[0]!.despatchAdviceReference).toBeUndefined();
  });
});

describe('jsonToCanonical: VAT categories and rules (a)–(d)', () => {
  const exempt = (category: string, extra: Json = {}): Json => ({ description: category, quantity: 1, unitPrice: 100, vatCategory: category, vatRate: 0, vatExemptionReason: `Reason ${category}`, ...extra });
  const withDelivery = { delivery: { actualDeliveryDate: '2026-03-01', deliveryLocation: { country: 'DE' } } };

  it.each(['E', 'AE', 'K', 'G', 'O'])('category %s: rate 0, reason lifted to BG-23 and repeated on the line', (cat) => {
    const c = map({ type: 'invoice', document: doc(withDelivery, [exempt(cat, { vatExemptionCode: `VATEX-EU-${cat === 'E' ? '132' : cat}` })]) });
    // O (not subject to VAT) has no rate at all in EN 16931 (BR-O-05/09): the API's 0 renders as none.
    const rate = cat === 'O' ? {} : { rate: '0' };
    expect(c.vatBreakdown).toEqual([{ category: cat, ...rate, taxableAmount: '100.00', taxAmount: '0.00', exemptionReason: `Reason ${cat}`, exemptionCode: `VATEX-EU-${cat === 'E' ? '132' : cat}` }]);
    expect(c.lines[0]!.vat).toEqual({ category: cat, ...rate, exemptionReason: `Reason ${cat}`, exemptionCode: `VATEX-EU-${cat === 'E' ? '132' : cat}` });
    if (cat === 'O') expect(canonicalToUbl(c)).not.toMatch(/<cbc:ID>O<\/cbc:ID><cbc:Percent>/);
    const xml = canonicalToUbl(c);
    expect(xml).toContain(`<cbc:TaxExemptionReason>Reason ${cat}</cbc:TaxExemptionReason>`);
  });

  it.each(['E', 'AE', 'K', 'G', 'O'])('category %s without reason or code → MISSING_FIELD', (cat) => {
    const e = failure({ type: 'invoice', document: doc(withDelivery, [{ description: 'x', unitPrice: 1, vatCategory: cat, vatRate: 0 }]) });
    expect(e.code).toBe('MISSING_FIELD');
    expect(e.details[0]).toMatchObject({ field: 'document.lines[0].vatExemptionReason', rule: `BR-${cat}-10` });
  });

  it.each(['E', 'AE', 'K', 'G', 'O'])('category %s with a non-zero rate → INVALID_REQUEST', (cat) => {
    const e = failure({ type: 'invoice', document: doc(withDelivery, [exempt(cat, { vatRate: 5 })]) });
    expect(e.details[0]).toMatchObject({ field: 'document.lines[0].vatRate', rule: `BR-${cat}-05` });
  });

  it.each([
    ['S', 20, 'S', '20'],
    ['Z', 0, 'Z', '0'],
    [undefined, 20, 'S', '20'],
    [undefined, 0, 'Z', '0'],
  ])('category %s rate %s → %s %s', (cat, rate, outCat, outRate) => {
    const c = map({ type: 'invoice', document: doc({}, [{ description: 'x', unitPrice: 1, vatCategory: cat, vatRate: rate }]) });
    expect(c.vatBreakdown[0]).toMatchObject({ category: outCat, rate: outRate });
    expect(c.vatBreakdown[0]!.exemptionReason).toBeUndefined();
  });

  it('K needs deliveryLocation.country (BR-IC-12)', () => {
    const e = failure({ type: 'invoice', document: doc({}, [exempt('K')]) });
    expect(e.details[0]).toMatchObject({ field: 'document.delivery.deliveryLocation.country', rule: 'BR-IC-12' });
    const c = map({ type: 'invoice', document: doc(withDelivery, [exempt('K')]) });
    expect(c.delivery).toEqual({ actualDeliveryDate: '2026-03-01', address: { country: 'DE' } });
  });

  it('(a) French franchise: BT-118 E, BT-121 VATEX-FR-FRANCHISE, SIREN in BT-32 without a VAT number', () => {
    const frSeller = { name: 'Micro', siren: '732829320', address: { city: 'Lyon', country: 'FR' } };
    const c = map({ type: 'invoice', document: doc({ seller: frSeller }, [{ description: 'x', unitPrice: 10, vatCategory: 'O', vatExemptionCode: 'VATEX-FR-FRANCHISE', vatExemptionReason: 'TVA non applicable, art. 293 B du CGI' }]) });
    expect(c.vatBreakdown[0]).toMatchObject({ category: 'E', exemptionCode: 'VATEX-FR-FRANCHISE' });
    expect(c.seller.taxRegistrationId).toBe('732829320');
    expect(c.seller.vatId).toBeUndefined();
    expect(canonicalToUbl(c)).toContain('<cac:PartyTaxScheme><cbc:CompanyID>732829320</cbc:CompanyID><cac:TaxScheme><cbc:ID>TAX</cbc:ID></cac:TaxScheme></cac:PartyTaxScheme>');
    const e = failure({ type: 'invoice', document: doc({ seller: { name: 'Micro', address: { country: 'FR' } } }, [{ description: 'x', unitPrice: 10, vatExemptionCode: 'VATEX-FR-FRANCHISE' }]) });
    expect(e.details[0]).toMatchObject({ field: 'document.seller.siren', rule: 'BR-FR-CO-16' });
  });

  it('(b) reform flows drop BT-120/121 and carry the wording in a note', () => {
    const c = map({ type: 'invoice', document: doc({ note: 'Merci' }, [exempt('E', { vatExemptionCode: 'VATEX-EU-132' })]) }, { template: FR_CTC_TEMPLATE });
    expect(c.vatBreakdown[0]).toEqual({ category: 'E', rate: '0', taxableAmount: '100.00', taxAmount: '0.00' });
    expect(c.lines[0]!.vat).toEqual({ category: 'E', rate: '0' });
    expect(c.notes).toEqual([{ text: 'Merci' }, { text: 'Reason E' }]);
  });

  it('(c) two exempt lines with different reason texts emit no BT-120', () => {
    const c = map({ type: 'invoice', document: doc({}, [exempt('E', { vatExemptionReason: 'one', vatExemptionCode: 'VATEX-EU-132' }), exempt('E', { vatExemptionReason: 'two', vatExemptionCode: 'VATEX-EU-132' })]) });
    expect(c.vatBreakdown).toEqual([{ category: 'E', rate: '0', taxableAmount: '200.00', taxAmount: '0.00', exemptionCode: 'VATEX-EU-132' }]);
    expect(canonicalToUbl(c)).not.toContain('TaxExemptionReason>');
    const same = map({ type: 'invoice', document: doc({}, [exempt('E', { vatExemptionReason: 'one' }), exempt('E', { vatExemptionReason: 'one' })]) });
    expect(same.vatBreakdown[0]!.exemptionReason).toBe('one');
  });

  it('(d) any S line collapses the breakdown to S and suppresses BT-120/121', () => {
    const c = map({ type: 'invoice', document: doc({}, [
      { description: 's', quantity: 1, unitPrice: 100, vatCategory: 'S', vatRate: 20 },
      exempt('E', { vatExemptionCode: 'VATEX-EU-132' }),
    ]) });
    expect(c.vatBreakdown).toEqual([
      { category: 'S', rate: '20', taxableAmount: '100.00', taxAmount: '20.00' },
      { category: 'S', rate: '0', taxableAmount: '100.00', taxAmount: '0.00' },
    ]);
    expect(c.lines[1]!.vat).toEqual({ category: 'E', rate: '0' });
    expect(canonicalToUbl(c)).not.toMatch(/TaxExemptionReason/);
  });
});

describe('jsonToCanonical: parties, payment, delivery, incoterms', () => {
  it('seller country falls back to the VAT prefix (BT-40), EL meaning GR', () => {
    const c = map({ type: 'invoice', document: doc({ seller: { name: 'Hellas', vatNumber: 'EL094259216', address: { city: 'Athens' } } }) });
    expect(c.seller.address?.country).toBe('GR');
    const c2 = map({ type: 'invoice', document: doc({ seller: { name: 'X', vatNumber: 'DE123456789' } }) });
    expect(c2.seller.address).toEqual({ country: 'DE' });
  });

  it('derives the electronic address (BT-34/49) from the VAT number, an explicit peppolId wins', () => {
    const c = map({ type: 'invoice', document: doc({ buyer: { ...buyer, peppolId: '0225:303265045_00013' } }) });
    expect(c.seller.electronicAddress).toEqual({ scheme: '0208', value: '0123456789' });
    expect(c.buyer.electronicAddress).toEqual({ scheme: '0225', value: '303265045_00013' });
  });

  it('the envelope `to`/`from` Peppol ids are the counterpart and caller endpoints (the supplier is `to` when self-billing)', () => {
    const c = map({ type: 'invoice', to: '0088:5798000000001', from: '0208:0403170701', document: doc() });
    expect(c.buyer.electronicAddress).toEqual({ scheme: '0088', value: '5798000000001' });
    expect(c.seller.electronicAddress).toEqual({ scheme: '0208', value: '0403170701' });
    const sb = map({ type: 'invoice', selfBilled: true, to: '0088:5798000000001', document: doc() });
    expect(sb.seller.electronicAddress).toEqual({ scheme: '0088', value: '5798000000001' });
    const explicit = map({ type: 'invoice', to: '0088:5798000000001', document: doc({ buyer: { ...buyer, peppolId: '9957:FR40303265045' } }) });
    expect(explicit.buyer.electronicAddress).toEqual({ scheme: '9957', value: 'FR40303265045' });
    const company = map({ type: 'invoice', to: 'comp_123', document: doc() });
    expect(company.buyer.electronicAddress).toEqual({ scheme: '0009', value: '303265045' });
  });

  it('contacts: contact wins, the first of contacts supplies the e-mail when contact.email is absent', () => {
    const c = map({ type: 'invoice', document: doc({
      seller: { ...seller, contact: { name: 'Ann', phone: '+32 2 000' }, contacts: [{ email: 'billing@acme.be' }, { email: 'other@acme.be' }] },
      buyer: { ...buyer, contact: { email: 'ap@client.fr' }, contacts: ['ignored@client.fr'] },
    }) });
    expect(c.seller.contact).toEqual({ name: 'Ann', phone: '+32 2 000', email: 'billing@acme.be' });
    expect(c.buyer.contact).toEqual({ email: 'ap@client.fr' });
  });

  it('the parties list overrides seller/buyer and keeps payee/payer/initiator', () => {
    const c = map({ type: 'invoice', document: doc({ parties: [
      { role: 'seller', name: 'Acme Holding', vatNumber: 'BE0987654321', initiator: true },
      { role: 'payee', name: 'Factor NV', id: 'FACT-1' },
      { role: 'payer', name: 'Parent Co' },
    ] }) });
    expect(c.seller.name).toBe('Acme Holding');
    expect(c.seller.vatId).toBe('BE0987654321');
    expect(c.seller.address?.city).toBe('Brussels');
    expect(c.payee).toEqual({ name: 'Factor NV', identifier: { value: 'FACT-1' } });
    expect(c.extensions?.parties).toEqual([
      { role: 'seller', name: 'Acme Holding', vatId: 'BE0987654321', initiator: true },
      { role: 'payee', id: 'FACT-1', name: 'Factor NV' },
      { role: 'payer', name: 'Parent Co' },
    ]);
  });

  it('payment: means, reference, IBAN and BIC to BG-16/17; discountTerms accepted but not placed', () => {
    const c = map({ type: 'invoice', document: doc({ payment: { means: 'credit_transfer', reference: 'RF18 5390 0754 7034', iban: 'BE68 5390 0754 7034', bic: 'GEBABEBB', discountTerms: { percent: 2 } } }) });
    expect(c.paymentInstructions).toEqual({ meansCode: '30', remittanceInformation: 'RF18 5390 0754 7034', creditTransfers: [{ accountId: 'BE68539007547034', serviceProviderId: 'GEBABEBB' }] });
    expect(canonicalToUbl(c)).not.toContain('percent');
  });

  it.each([
    [{ incoterms: 'FOB', incotermsLocation: 'Antwerp' }, { code: 'FOB', location: 'Antwerp' }],
    [{ incoterms: '1' }, { code: '1' }],
  ])('incoterms %j are kept where the template declares EXT-FR-FE-185', (extra, expected) => {
    expect(map({ type: 'invoice', document: doc({ ...extra, billingReference: 'X' }) }, { template: FR_CTC_TEMPLATE }).extensions?.incoterms).toEqual(expected);
    expect(map({ type: 'invoice', document: doc(extra) }).extensions?.incoterms).toBeUndefined();
  });

  it.each([
    [{ incoterms: 'XYZ' }, 'INVALID_ENUM'],
    [{ incoterms: 'fob' }, 'INVALID_ENUM'],
    [{ incotermsLocation: 'Antwerp' }, 'MISSING_FIELD'],
  ])('incoterms %j → %s', (extra, code) => {
    const e = failure({ type: 'invoice', document: doc(extra) });
    expect(e.code).toBe(code);
    expect(e.details[0]?.field).toBe('document.incoterms');
  });
});

describe('jsonToCanonical: custom fields', () => {
  const template: Template = {
    ...PEPPOL_BIS3_TEMPLATE,
    customFields: [
      { id: '11111111-1111-4111-8111-111111111111', name: 'costCenter', type: 'text' },
      { id: '22222222-2222-4222-8222-222222222222', name: 'budget', type: 'monetary' },
      { id: '33333333-3333-4333-8333-333333333333', name: 'site', type: 'address' },
      { id: '44444444-4444-4444-8444-444444444444', name: 'closing', type: 'date' },
    ],
  };

  it('maps declared names, forwards UUID keys as is, and attaches to the caller party', () => {
    const c = map({ type: 'invoice', document: doc({ customFields: {
      costCenter: 'CC-1', budget: { currency: 'EUR', amount: 1200.5 }, site: { street: 'Main 1', city: 'Gent', zipCode: '9000', country: 'BE' },
      '99999999-9999-4999-8999-999999999999': 'opaque',
    } }, [{ description: 'x', unitPrice: 1, vatRate: 21, customFields: { closing: '2026-12-31' } }]) }, { template });
    expect(c.extensions?.customFields).toEqual({ party: 'seller', values: [
      { key: 'costCenter', definitionId: '11111111-1111-4111-8111-111111111111', type: 'text', value: 'CC-1' },
      { key: 'budget', definitionId: '22222222-2222-4222-8222-222222222222', type: 'monetary', value: { currency: 'EUR', amount: '1200.5' } },
      { key: 'site', definitionId: '33333333-3333-4333-8333-333333333333', type: 'address', value: { street: 'Main 1', city: 'Gent', zipCode: '9000', country: 'BE' } },
      { key: '99999999-9999-4999-8999-999999999999', definitionId: '99999999-9999-4999-8999-999999999999', value: 'opaque' },
    ] });
    expect(c.lines[0]!.customFields).toEqual({ party: 'seller', values: [{ key: 'closing', definitionId: '44444444-4444-4444-8444-444444444444', type: 'date', value: '2026-12-31' }] });
    const selfBilled = map({ type: 'invoice', selfBilled: true, document: doc({ customFields: { costCenter: 'CC-1' } }, [{ description: 'x', unitPrice: 1, vatRate: 21, customFields: { costCenter: 'L' } }]) }, { template });
    expect(selfBilled.extensions?.customFields?.party).toBe('buyer');
    expect(selfBilled.lines[0]!.customFields?.party).toBe('buyer');
  });

  it.each([
    [{ unknownField: 'x' }, 'INVALID_REQUEST', 'document.customFields.unknownField'],
    [{ costCenter: 12 }, 'INVALID_REQUEST', 'document.customFields.costCenter'],
    [{ budget: '12' }, 'INVALID_REQUEST', 'document.customFields.budget'],
    [{ budget: { currency: 'EURO', amount: 1 } }, 'INVALID_CURRENCY', 'document.customFields.budget.currency'],
    [{ site: { street: 'x', town: 'y' } }, 'INVALID_REQUEST', 'document.customFields.site'],
    [{ closing: 'tomorrow' }, 'INVALID_DATE', 'document.customFields.closing'],
  ])('%j → %s', (customFields, code, field) => {
    const e = failure({ type: 'invoice', document: doc({ customFields }) }, { template });
    expect(e.code).toBe(code);
    expect(e.details[0]?.field).toBe(field);
  });

  it('document.templateId selects the organization template', () => {
    const c = map({ type: 'invoice', document: doc({ templateId: 'tpl-1', customFields: { costCenter: 'A' } }) }, { templates: { 'tpl-1': template } });
    expect(c.extensions?.customFields?.template).toBe('tpl-1');
    expect(failure({ type: 'invoice', document: doc({ customFields: { costCenter: 'A' } }) }).code).toBe('INVALID_REQUEST');
  });
});

describe('jsonToCanonical: template slots (rule 3)', () => {
  const slots = { ...PEPPOL_BIS3_TEMPLATE.slots };
  slots['BT-3'] = 'optional';
  slots['BT-126'] = 'optional';
  delete slots['BT-10'];
  const lean: Template = { ...PEPPOL_BIS3_TEMPLATE, id: 'lean', slots };

  it('inferred values only where the template marks the slot required', () => {
    const c = jsonToCanonical({ type: 'invoice', document: doc() }, { template: lean });
    expect(c.typeCode).toBeUndefined();
    expect(c.lines[0]!.id).toBeUndefined();
    expect(c.totals.payable).toBe('242.00');
  });

  it('stated values go in their slot even when optional; undeclared slots never render', () => {
    const c = jsonToCanonical({ type: 'invoice', documentSubtype: 'PREPAYMENT_INVOICE', document: doc({}, [{ id: 'L-7', description: 'x', unitPrice: 1, vatRate: 20 }]) }, { template: lean });
    expect(c.typeCode).toBe('386');
    expect(c.lines[0]!.id).toBe('L-7');
    expect(c.buyerReference).toBeUndefined();
    expect(canonicalToUbl(c)).not.toContain('BuyerReference');
  });
});
