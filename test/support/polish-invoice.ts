/**
 * A Polish domestic invoice in the canonical model, for the FA(3) mapping and the KSeF connector's
 * tests: a seller and a buyer with NIPs (check digits valid), three VAT rates (23 %, 8 %, 5 %), a
 * transfer to a Polish IBAN, a due date.
 */
import type { CanonicalInvoice } from '../../mappings/index.ts';

/** NIPs with valid check digits (the Ministry of Finance's own, and others made up to pass the check). */
export const SELLER_NIP = '5260250274';
export const BUYER_NIP = '7740001454';
export const OTHER_NIP = '1132191233';
/** A buyer no other fixture uses (the inbox tests' own company). */
export const INBOX_NIP = '9512345675';

export function polishInvoice(overrides: Partial<CanonicalInvoice> = {}): CanonicalInvoice {
  return {
    kind: 'invoice',
    customizationId: 'urn:cen.eu:en16931:2017',
    number: 'FV/2026/11/001',
    issueDate: '2026-11-20',
    typeCode: '380',
    currency: 'PLN',
    dueDate: '2026-12-04',
    seller: {
      name: 'Sprzedawca Sp. z o.o.',
      vatId: `PL${SELLER_NIP}`,
      address: { line1: 'ul. Świętokrzyska 12', city: 'Warszawa', postalCode: '00-916', country: 'PL' },
      contact: { email: 'faktury@sprzedawca.example' },
    },
    buyer: {
      name: 'Nabywca S.A.',
      vatId: `PL${BUYER_NIP}`,
      address: { line1: 'ul. Długa 5', city: 'Gdańsk', postalCode: '80-827', country: 'PL' },
    },
    paymentInstructions: { meansCode: '30', creditTransfers: [{ accountId: 'PL61109010140000071219812874', serviceProviderId: 'WBKPPLPP' }] },
    totals: { lineNetTotal: '1300.00', taxExclusive: '1300.00', vatTotal: '251.00', taxInclusive: '1551.00', payable: '1551.00' },
    vatBreakdown: [
      { taxableAmount: '1000.00', taxAmount: '230.00', category: 'S', rate: '23.00' },
      { taxableAmount: '200.00', taxAmount: '16.00', category: 'S', rate: '8.00' },
      { taxableAmount: '100.00', taxAmount: '5.00', category: 'S', rate: '5.00' },
    ],
    lines: [
      { id: '1', quantity: '10', unit: 'HUR', netAmount: '1000.00', price: { netPrice: '100.00' }, vat: { category: 'S', rate: '23.00' }, item: { name: 'Usługi doradcze', sellerId: 'DOR-1' } },
      { id: '2', quantity: '4', unit: 'C62', netAmount: '200.00', price: { netPrice: '50.00' }, vat: { category: 'S', rate: '8.00' }, item: { name: 'Catering', standardId: { value: '05901234123457', scheme: '0160' } } },
      { id: '3', quantity: '2', unit: 'C62', netAmount: '100.00', price: { netPrice: '50.00' }, vat: { category: 'S', rate: '5.00' }, item: { name: 'Książki' } },
    ],
    ...overrides,
  };
}
