/**
 * A Saudi invoice in the canonical model, for the ZATCA mapping, stamp and connector tests: a seller
 * with its VAT number (3…3) and commercial registration, Arabic names, a standard-rated line and a
 * zero-rated export line with its VATEX-SA code. Without a buyer VAT number it is a B2C (simplified) one.
 */
import type { CanonicalInvoice } from '../../mappings/index.ts';

export const SAUDI_SELLER_VAT = 'SA300075588700003';
export const SAUDI_BUYER_VAT = 'SA311111111111113';

export function saudiInvoice(overrides: Partial<CanonicalInvoice> = {}): CanonicalInvoice {
  return {
    kind: 'invoice',
    customizationId: 'urn:cen.eu:en16931:2017',
    number: 'SME00010',
    issueDate: '2026-11-25',
    typeCode: '380',
    currency: 'SAR',
    seller: {
      name: 'شركة توريد التكنولوجيا بأقصى سرعة المحدودة | Maximum Speed Tech Supply LTD',
      legalRegistration: { value: '1010010000' },
      vatId: SAUDI_SELLER_VAT,
      address: { line1: 'الامير سلطان | Prince Sultan', line2: '2322', city: 'الرياض | Riyadh', postalCode: '23333', subdivision: 'المربع | Al-Murabba', country: 'SA' },
    },
    buyer: {
      name: 'شركة نماذج فاتورة المحدودة | Fatoora Samples LTD',
      vatId: SAUDI_BUYER_VAT,
      address: { line1: 'صلاح الدين | Salah Al-Din', line2: '1111', city: 'الرياض | Riyadh', postalCode: '12222', country: 'SA' },
    },
    totals: { lineNetTotal: '1200.00', taxExclusive: '1200.00', vatTotal: '150.00', taxInclusive: '1350.00', payable: '1350.00' },
    vatBreakdown: [
      { taxableAmount: '1000.00', taxAmount: '150.00', category: 'S', rate: '15.00' },
      { taxableAmount: '200.00', taxAmount: '0.00', category: 'Z', rate: '0.00', exemptionCode: 'VATEX-SA-32', exemptionReason: 'Export of goods' },
    ],
    lines: [
      { id: '1', quantity: '2', unit: 'PCE', netAmount: '1000.00', item: { name: 'قلم رصاص | Pencil' }, price: { netPrice: '500.00' }, vat: { category: 'S', rate: '15.00' } },
      { id: '2', quantity: '1', unit: 'PCE', netAmount: '200.00', item: { name: 'دفتر | Notebook (export)' }, price: { netPrice: '200.00' }, vat: { category: 'Z', rate: '0.00' } },
    ],
    ...overrides,
  } as CanonicalInvoice;
}

/** The same invoice to a consumer: no buyer VAT number (a simplified, reported invoice). */
export function saudiB2cInvoice(overrides: Partial<CanonicalInvoice> = {}): CanonicalInvoice {
  return saudiInvoice({ buyer: { name: 'عميل نقدي | Walk-in customer' }, ...overrides });
}
