/**
 * JSON-built documents pass the EN 16931 and Peppol BIS 3.0 rules (the project's own rule packs in
 * services/validation), in both renderings. Where the spec's own rules force a rejection (rule (d),
 * 384 outside Germany) the test pins exactly which rule fires.
 */
import { jsonToCanonical, canonicalToCii, canonicalToUbl } from '../../../../mappings/index.ts';
import { validate } from '../../../../services/validation/engine/index.ts';

type Json = Record<string, unknown>;
const seller = { name: 'Acme SPRL', vatNumber: 'BE0403170701', address: { street: 'Rue Neuve 1', city: 'Brussels', postalCode: '1000', country: 'BE' } };
const buyer = { name: 'Client SA', vatNumber: 'FR40303265045', address: { street: '1 rue de Paris', city: 'Paris', postalCode: '75001', country: 'FR' } };
const head = { issueDate: '2026-03-01', dueDate: '2026-04-01', buyerReference: 'REF', seller, buyer };
const line = (extra: Json = {}): Json => ({ description: 'Consulting', quantity: 2, unit: 'HUR', unitPrice: 100, vatRate: 21, ...extra });
// German rules (DE-R-*) also want payment instructions and a full seller contact.
const deSeller = { name: 'Muster GmbH', vatNumber: 'DE123456789', address: { street: 'Hauptstr. 1', city: 'Berlin', postalCode: '10115', country: 'DE' }, contact: { name: 'Max Muster', phone: '+49 30 1234', email: 'rechnung@muster.example' } };
const deBuyer = { name: 'Kunde AG', vatNumber: 'DE987654321', address: { street: 'Ring 2', city: 'Köln', postalCode: '50667', country: 'DE' } };

const CASES: Array<[string, Json, string[]]> = [
  ['standard invoice, two rates, IBAN', { type: 'invoice', document: { ...head, number: 'I-1', payment: { means: 'credit_transfer', iban: 'BE68539007547034', bic: 'GEBABEBB' }, lines: [line(), line({ quantity: 3, unitPrice: '33.333', vatRate: 6 })] } }, []],
  ['credit note', { type: 'credit-note', document: { ...head, dueDate: undefined, number: 'C-1', billingReference: 'I-1', billingReferenceDate: '2026-02-01', lines: [line()] } }, []],
  ['debit note', { type: 'debit-note', document: { ...head, number: 'D-1', billingReference: 'I-1', lines: [line()] } }, []],
  ['exempt E with reason and VATEX', { type: 'invoice', document: { ...head, number: 'I-2', lines: [line({ vatCategory: 'E', vatRate: 0, vatExemptionReason: 'Exempt, art. 44', vatExemptionCode: 'VATEX-EU-132' })] } }, []],
  ['reverse charge AE', { type: 'invoice', document: { ...head, number: 'I-3', lines: [line({ vatCategory: 'AE', vatRate: 0, vatExemptionReason: 'Reverse charge', vatExemptionCode: 'VATEX-EU-AE' })] } }, []],
  ['intra-community K with delivery country', { type: 'invoice', document: { ...head, number: 'I-4', delivery: { actualDeliveryDate: '2026-03-01', deliveryLocation: { country: 'FR' } }, lines: [line({ vatCategory: 'K', vatRate: 0, vatExemptionReason: 'Intra-community supply', vatExemptionCode: 'VATEX-EU-IC' })] } }, []],
  ['export G', { type: 'invoice', document: { ...head, number: 'I-5', lines: [line({ vatCategory: 'G', vatRate: 0, vatExemptionReason: 'Export outside the EU', vatExemptionCode: 'VATEX-EU-G' })] } }, []],
  ['zero rated Z', { type: 'invoice', document: { ...head, number: 'I-6', lines: [line({ vatCategory: 'Z', vatRate: 0 })] } }, []],
  ['USD with exchange rate (BT-6, BT-111)', { type: 'invoice', document: { ...head, number: 'I-7', currency: 'USD', exchangeRate: 0.9, lines: [line()] } }, []],
  ['self-billed (389, roles swapped)', { type: 'invoice', selfBilled: true, document: { ...head, number: 'I-8', lines: [line()] } }, []],
  ['prepayment 386', { type: 'invoice', documentSubtype: 'PREPAYMENT_INVOICE', document: { ...head, number: 'I-9', lines: [line()] } }, []],
  ['price base quantity, object id, line period', { type: 'invoice', document: { ...head, number: 'I-10', lines: [line({ quantity: 250, unit: 'C62', unitPrice: 12, priceBaseQuantity: 100, priceBaseUnit: 'C62', objectIdentifier: 'OBJ-1', objectIdentifierScheme: 'AAA', period: { start: '2026-01-01', end: '2026-01-31' } })] } }, []],
  ['given totals consistent with the lines', { type: 'invoice', document: { ...head, number: 'I-11', totals: { net: 200, vat: 42, gross: 242 }, lines: [line()] } }, []],
  ['(a) French franchise, SIREN only', { type: 'invoice', document: { ...head, number: 'F-1', seller: { name: 'Micro', siren: '732829320', address: { street: '1 rue', city: 'Lyon', postalCode: '69001', country: 'FR' } }, lines: [line({ vatRate: undefined, vatExemptionCode: 'VATEX-FR-FRANCHISE', vatExemptionReason: 'TVA non applicable, art. 293 B du CGI' })] } }, []],
  ['corrected invoice 384 between German parties', { type: 'invoice', documentSubtype: 'CORRECTED_INVOICE', document: { ...head, seller: deSeller, buyer: deBuyer, payment: { means: 'sepa_credit_transfer', iban: 'DE75512108001245126199' }, number: 'K-1', billingReference: 'I-1', billingReferenceDate: '2026-02-01', lines: [line({ vatRate: 19 })] } }, []],
  // Peppol allows 384 only between German parties: the code is still what the caller asked for.
  ['corrected invoice 384 BE→FR', { type: 'invoice', documentSubtype: 'CORRECTED_INVOICE', document: { ...head, number: 'K-2', billingReference: 'I-1', billingReferenceDate: '2026-02-01', lines: [line()] } }, ['PEPPOL-EN16931-P0112']],
  // Rule (d): the S breakdown leaves the exempt line without its E bucket, as the spec warns.
  ['(d) S and E lines on one document', { type: 'invoice', document: { ...head, number: 'I-12', lines: [line(), line({ vatCategory: 'E', vatRate: 0, vatExemptionReason: 'Exempt' })] } }, ['BR-E-01', 'BR-S-08']],
];

describe('JSON-built documents against the EN 16931 and Peppol BIS 3.0 rule packs', () => {
  it.each(CASES)('%s', (_name, envelope, expectedFatal) => {
    const c = jsonToCanonical(envelope, { today: '2026-03-01' });
    for (const xml of [canonicalToUbl(c), canonicalToCii(c)]) {
      const result = validate(xml);
      expect(result.packs).toEqual(expect.arrayContaining([expect.stringMatching(/^en16931@/), expect.stringMatching(/^peppol-bis@/)]));
      const fatal = result.findings.filter((f) => f.severity === 'fatal').map((f) => f.rule);
      const ublOnly = expectedFatal.filter((r) => r !== 'PEPPOL-EN16931-P0112' || xml.includes('<Invoice'));
      expect(fatal.sort()).toEqual(ublOnly.sort());
    }
  });
});
