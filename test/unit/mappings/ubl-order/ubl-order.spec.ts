/**
 * Purchase orders: JSON → Peppol BIS Order 3.0 (UBL 2.1 Order) valid against the official UBL 2.1
 * Order schema, read back to the same purchase order; every bad input refused with its path.
 */
import { purchaseOrderFromJson, purchaseOrderToUbl, ublToPurchaseOrder, detectUblOrder, MappingError, ORDER_CUSTOMIZATION_ID, ORDER_PROFILE_ID } from '../../../../mappings/index.ts';
import { xsdErrors } from '../support/xsd.ts';

const today = '2026-03-01';

const full = {
  number: 'PO-2026-001', issueDate: '2026-03-02', currency: 'EUR', note: 'Deliver to gate 4', buyerReference: 'DEP-7', accountingCost: 'CC-100',
  validUntil: '2026-04-01', quotationReference: 'Q-9', contractReference: 'FW-2025', paymentTerms: '30 days net',
  buyer: { name: 'Buyer GmbH', peppolId: '9930:DE811907980', vatNumber: 'DE811907980', companyId: 'HRB 1', address: { street: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' }, contact: { name: 'Eva', phone: '+49 30 1', email: 'eva@buyer.example' } },
  seller: { name: 'Seller BV', peppolId: '0106:12345678', vatNumber: 'NL123456789B01', address: { city: 'Utrecht', country: 'NL' } },
  delivery: { locationId: 'GATE-4', address: { street: 'Lagerweg 2', city: 'Berlin', postalCode: '10117', country: 'DE' }, requestedFrom: '2026-03-10', requestedBy: '2026-03-12', partyName: 'Warehouse' },
  lines: [
    { name: 'Copy paper A4', description: '80 g/m², 500 sheets', quantity: 10, unit: 'PK', unitPrice: 4.25, sellerItemId: 'SP-1', buyerItemId: 'BI-1', standardItemId: '4006381333931', standardItemScheme: '0160', vatCategory: 'S', vatRate: 19, note: 'white' },
    { description: 'Toner', quantity: 2, unitPrice: 59.9, vatRate: 19 },
  ],
};

describe('JSON → UBL Order (Peppol BIS Order 3.0)', () => {
  it('renders an order valid against the UBL 2.1 Order XSD, with the BIS identifiers, and reads back to the same purchase order', () => {
    const po = purchaseOrderFromJson(full, { today });
    expect(po.totals).toEqual({ lineExtension: 162.3, tax: 30.84, taxInclusive: 193.14, payable: 193.14 });
    expect(po.lines.map((l) => [l.id, l.netAmount, l.unit])).toEqual([['1', 42.5, 'PK'], ['2', 119.8, 'C62']]);
    const xml = purchaseOrderToUbl(po);
    expect(xsdErrors(xml)).toEqual([]);
    expect(xml).toContain(`<cbc:CustomizationID>${ORDER_CUSTOMIZATION_ID}</cbc:CustomizationID><cbc:ProfileID>${ORDER_PROFILE_ID}</cbc:ProfileID>`);
    expect(xml).toContain('<cbc:EndpointID schemeID="9930">DE811907980</cbc:EndpointID>');
    expect(detectUblOrder(xml)).toBe(true);
    expect(ublToPurchaseOrder(xml)).toEqual(po);
  });

  it('a minimal order: defaults (today, EUR, C62, line ids), no tax when a line has no rate, XSD-valid', () => {
    const po = purchaseOrderFromJson({ number: 'PO-1', buyer: { name: 'B', peppolId: '0088:1' }, seller: { name: 'S', peppolId: '0088:2' }, lines: [{ name: 'Paper', quantity: 3 }, { name: 'Pens', quantity: 1, unitPrice: '2.50', vatRate: 20 }] }, { today });
    expect(po).toMatchObject({ issueDate: today, currency: 'EUR', totals: { lineExtension: 2.5, payable: 2.5 } });
    expect(po.totals.tax).toBeUndefined();
    const xml = purchaseOrderToUbl(po);
    expect(xsdErrors(xml)).toEqual([]);
    expect(ublToPurchaseOrder(xml)).toEqual(po);
  });

  it('escapes text and keeps exact decimals', () => {
    const po = purchaseOrderFromJson({ number: 'PO-<&>', buyer: { name: 'A & B "Ltd"', peppolId: '0088:1' }, seller: { name: 'S', peppolId: '0088:2' }, lines: [{ name: '<b>', quantity: 0.0001, unitPrice: 0.1 }] }, { today });
    const xml = purchaseOrderToUbl(po);
    expect(xsdErrors(xml)).toEqual([]);
    expect(xml).toContain('<cbc:Quantity unitCode="C62" unitCodeListID="UNECERec20">0.0001</cbc:Quantity>');
    expect(ublToPurchaseOrder(xml)).toMatchObject({ number: 'PO-<&>', buyer: { name: 'A & B "Ltd"' }, lines: [{ name: '<b>', quantity: 0.0001 }] });
  });
});

describe('bad input: every problem at once, with its path and the spec code of the first', () => {
  const fields = (fn: () => unknown): Array<[string, string]> => {
    try { fn(); } catch (err) {
      expect(err).toBeInstanceOf(MappingError);
      return (err as MappingError).details.map((d) => [d.field, d.rule]);
    }
    throw new Error('expected a MappingError');
  };
  const codeOf = (fn: () => unknown): string => { try { fn(); } catch (err) { return (err as MappingError).code; } return 'none'; };

  it.each([
    ['no document', undefined, 'MISSING_FIELD', [['document', 'required']]],
    ['nothing in it', {}, 'MISSING_FIELD', [['document.number', 'required'], ['document.buyer', 'required'], ['document.seller', 'required'], ['document.lines', 'required']]],
    ['bad date', { ...full, issueDate: '2026-02-30' }, 'INVALID_DATE', [['document.issueDate', 'date']]],
    ['bad currency', { ...full, currency: 'EURO' }, 'INVALID_CURRENCY', [['document.currency', 'iso4217']]],
    ['lapsing before issue', { ...full, validUntil: '2026-01-01' }, 'INVALID_DATE', [['document.validUntil', 'afterIssueDate']]],
    ['bad party ids', { ...full, buyer: { name: 'B', peppolId: 'nope', vatNumber: 'de 1' }, seller: { name: 'S' } }, 'INVALID_REQUEST', [['document.buyer.peppolId', 'peppolId'], ['document.buyer.vatNumber', 'pattern'], ['document.seller.peppolId', 'required']]],
    ['bad country and e-mail', { ...full, buyer: { ...full.buyer, address: { country: 'Germany' }, contact: { email: 'x' } } }, 'INVALID_REQUEST', [['document.buyer.address.country', 'country'], ['document.buyer.contact.email', 'email']]],
    ['bad lines', { ...full, lines: [{ quantity: 0 }, { name: 'x', quantity: 'two', unit: 'pieces', vatCategory: 'X', vatRate: 120 }, 'line', { name: 'y', quantity: 1, standardItemId: '1' }] }, 'MISSING_FIELD', [
      ['document.lines[0].name', 'required'], ['document.lines[0].quantity', 'positive'],
      ['document.lines[1].quantity', 'number'], ['document.lines[1].unit', 'maxLength'], ['document.lines[1].vatCategory', 'enum'], ['document.lines[1].vatRate', 'maximum'],
      ['document.lines[2]', 'type'], ['document.lines[3].standardItemScheme', 'required'],
    ]],
    ['duplicate line ids', { ...full, lines: [{ id: 'A', name: 'x', quantity: 1 }, { id: 'A', name: 'y', quantity: 1 }] }, 'INVALID_REQUEST', [['document.lines[1].id', 'unique']]],
    ['lines not an array', { ...full, lines: { name: 'x' } }, 'INVALID_REQUEST', [['document.lines', 'type']]],
    ['too many lines', { ...full, lines: Array.from({ length: 5001 }, () => ({ name: 'x', quantity: 1 })) }, 'PAYLOAD_TOO_LARGE', [['document.lines', 'maxItems']]],
  ])('%s', (_name, document, code, expected) => {
    expect(codeOf(() => purchaseOrderFromJson(document, { today }))).toBe(code);
    expect(fields(() => purchaseOrderFromJson(document, { today }))).toEqual(expected);
  });

  it('XML that is not an Order, or not XML, is refused', () => {
    expect(() => ublToPurchaseOrder('<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>')).toThrow(/Expected a UBL 2.1 Order/);
    expect(() => ublToPurchaseOrder('<Order')).toThrow(MappingError);
    expect(detectUblOrder('<Order xmlns="urn:other"/>')).toBe(false);
  });
});
