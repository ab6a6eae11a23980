/**
 * Property tests on generated API payloads: every valid JSON invoice maps to a canonical document
 * that survives UBL rendering and parsing unchanged, and passes the EN 16931 and Peppol BIS packs.
 */
import fc from 'fast-check';
import { canonicalToUbl, jsonToCanonical, ublToCanonical } from '../../../../mappings/index.ts';
import type { CanonicalInvoice } from '../../../../mappings/index.ts';
import { validate } from '../../../../services/validation/engine/index.ts';
import { xsdErrors } from '../support/xsd.ts';

const word = fc.stringMatching(/^[A-Za-z][A-Za-z0-9 &<>'"é-]{0,20}[A-Za-z0-9]$/);
const money = fc.tuple(fc.integer({ min: 0, max: 99_999 }), fc.integer({ min: 0, max: 99 })).map(([u, c]) => `${u}.${String(c).padStart(2, '0')}`);
const qty = fc.oneof(fc.integer({ min: 1, max: 500 }), fc.constantFrom('0.5', '1.25', '2.125'));

const sellers = [
  { name: 'Acme SPRL', vatNumber: 'BE0403170701', address: { street: 'Rue Neuve 1', city: 'Brussels', postalCode: '1000', country: 'BE' } },
  { name: 'Muster BV', vatNumber: 'NL123456789B01', address: { street: 'Dam 1', city: 'Amsterdam', postalCode: '1012', country: 'NL' } },
];
const buyers = [
  { name: 'Client SA', vatNumber: 'FR40303265045', address: { street: '1 rue de Paris', city: 'Paris', postalCode: '75001', country: 'FR' } },
  { name: 'Kunde AB', vatNumber: 'SE556677889901', address: { street: 'Gatan 2', city: 'Stockholm', postalCode: '11122', country: 'SE' } },
];

const oSeller = { name: 'Vereniging VZW', peppolId: '0208:0403170701', legalRegistration: { value: '0403170701', scheme: '0208' }, address: { street: 'Rue 2', city: 'Liège', postalCode: '4000', country: 'BE' } };
const oBuyer = { name: 'Particulier', peppolId: '0009:303265045', address: { street: '3 rue', city: 'Lille', postalCode: '59000', country: 'FR' } };

type Family = 'taxed' | 'E' | 'AE' | 'K' | 'G' | 'O';
const lineOf = (family: Family) => fc.record({
  description: word,
  quantity: qty,
  unitPrice: money,
  rate: fc.constantFrom(21, 6, 12, 0),
  net: fc.option(money, { nil: undefined }),
  itemCode: fc.option(fc.stringMatching(/^SKU-[0-9]{1,5}$/), { nil: undefined }),
  unit: fc.constantFrom('C62', 'HUR', 'KGM', 'MON'),
}).map((l) => ({
  description: l.description,
  quantity: l.quantity,
  unit: l.unit,
  // A stated net amount is used verbatim; the price is then derived from it (a caller stating both
  // must keep them consistent, Peppol R120 checks it).
  ...(l.net !== undefined ? { netAmount: l.net } : { unitPrice: l.unitPrice }),
  ...(l.itemCode !== undefined ? { itemCode: l.itemCode } : {}),
  ...(family === 'taxed'
    ? (l.rate === 0 ? { vatCategory: 'Z', vatRate: 0 } : { vatCategory: 'S', vatRate: l.rate })
    : { vatCategory: family, vatRate: 0, vatExemptionReason: `Exempt (${family})`, vatExemptionCode: family === 'E' ? 'VATEX-EU-132' : family === 'K' ? 'VATEX-EU-IC' : `VATEX-EU-${family}` }),
}));

/** Valid payloads: one VAT family per document (rule (d) keeps exempt lines off S documents). */
const envelopeArb = fc.constantFrom<Family>('taxed', 'taxed', 'E', 'AE', 'K', 'G', 'O').chain((family) => fc.record({
  type: fc.constantFrom('invoice', 'credit-note', 'debit-note'),
  number: fc.stringMatching(/^INV-[0-9]{1,8}$/),
  issueDate: fc.constantFrom('2026-01-15', '2026-02-28', '2026-12-31'),
  currency: fc.constantFrom('EUR', 'EUR', 'USD', 'SEK'),
  note: fc.option(word, { nil: undefined }),
  // 'Not subject to VAT' invoices carry no VAT identifiers (BR-O-02): parties identified otherwise.
  seller: family === 'O' ? fc.constant(oSeller) : fc.constantFrom(...sellers),
  buyer: family === 'O' ? fc.constant(oBuyer) : fc.constantFrom(...buyers),
  iban: fc.option(fc.constant('BE68539007547034'), { nil: undefined }),
  lines: fc.array(lineOf(family), { minLength: 1, maxLength: 8 }),
  family: fc.constant(family),
})).map((g) => ({
  type: g.type,
  document: {
    number: g.number,
    issueDate: g.issueDate,
    ...(g.type === 'credit-note' ? {} : { dueDate: '2027-01-31' }),
    currency: g.currency,
    ...(g.currency !== 'EUR' ? { exchangeRate: '0.9' } : {}),
    buyerReference: 'PO-1',
    ...(g.note !== undefined ? { note: g.note } : {}),
    ...(g.type !== 'invoice' ? { billingReference: 'INV-0', billingReferenceDate: '2026-01-01' } : {}),
    seller: g.seller,
    buyer: g.buyer,
    ...(g.family === 'K' ? { delivery: { actualDeliveryDate: '2026-01-10', deliveryLocation: { country: g.buyer.address.country } } } : {}),
    // Dutch sellers must state payment means (NL-R-007).
    ...(g.iban || g.seller.address.country === 'NL' ? { payment: { means: 'credit_transfer', iban: 'BE68539007547034' } } : {}),
    lines: g.lines,
  },
}));

/** The canonical view without what UBL does not carry (API-only extensions). */
function ublView(c: CanonicalInvoice): CanonicalInvoice {
  const { extensions: _ext, ...rest } = c;
  return rest as CanonicalInvoice;
}

describe('generated JSON invoices', () => {
  it('JSON → canonical → UBL → canonical is the identity (extensions aside)', () => {
    fc.assert(fc.property(envelopeArb, (env) => {
      const c = jsonToCanonical(env, { today: '2026-01-15' });
      const xml = canonicalToUbl(c);
      expect(ublToCanonical(xml).canonical).toEqual(ublView(c));
    }), { numRuns: 200 });
  });

  it('render XSD-valid UBL that the EN 16931 and Peppol BIS packs accept', () => {
    fc.assert(fc.property(envelopeArb, (env) => {
      const xml = canonicalToUbl(jsonToCanonical(env, { today: '2026-01-15' }));
      expect(xsdErrors(xml)).toEqual([]);
      const result = validate(xml, { skipXsd: true });
      expect(result.findings.filter((f) => f.severity === 'fatal').map((f) => `${f.rule}: ${f.message}`)).toEqual([]);
    }), { numRuns: 40 });
  });
});
