/**
 * A French domestic invoice in the canonical model, for the lifecycle-message tests (CDAR) and the
 * PPF connector's: a seller and a buyer with SIRENs and electronic addresses, two VAT rates.
 */
import type { CanonicalInvoice } from '../../mappings/index.ts';

export function frenchInvoice(overrides: Partial<CanonicalInvoice> = {}): CanonicalInvoice {
  return {
    kind: 'invoice',
    customizationId: 'urn:cen.eu:en16931:2017',
    number: 'F202600042',
    issueDate: '2026-11-02',
    typeCode: '380',
    currency: 'EUR',
    seller: {
      name: 'Vendeur SAS',
      legalRegistration: { value: '303265045', scheme: '0002' },
      vatId: 'FR40303265045',
      electronicAddress: { value: '303265045', scheme: '0225' },
      address: { city: 'Paris', postalCode: '75001', country: 'FR' },
    },
    buyer: {
      name: 'Acheteur SA',
      legalRegistration: { value: '732829320', scheme: '0002' },
      vatId: 'FR44732829320',
      electronicAddress: { value: '732829320_STATUTS', scheme: '0225' },
      address: { city: 'Lyon', postalCode: '69001', country: 'FR' },
    },
    totals: { lineNetTotal: '1100.00', taxExclusive: '1100.00', vatTotal: '210.00', taxInclusive: '1310.00', payable: '1310.00' },
    vatBreakdown: [
      { taxableAmount: '1000.00', taxAmount: '200.00', category: 'S', rate: '20.00' },
      { taxableAmount: '100.00', taxAmount: '10.00', category: 'S', rate: '10.00' },
    ],
    lines: [],
    ...overrides,
  };
}
