/**
 * A Romanian domestic invoice as an API caller sends it (format=json): a seller in Cluj-Napoca and a
 * buyer in Bucharest, both VAT-registered (CUI 18547290 and 14399840), one line at the standard 19 %
 * rate, in RON. The addresses are written the way a Romanian user writes them (county names,
 * "Sector 3"); the CIUS-RO writer turns them into RO-CJ / RO-B and SECTOR3.
 */
export const RO_SELLER_VAT = 'RO18547290';
export const RO_BUYER_VAT = 'RO14399840';

export function romanianJsonInvoice(number: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    number, issueDate: '2026-11-02', dueDate: '2026-12-02', currency: 'RON', buyerReference: 'CMD-4410',
    seller: { name: 'Exemplu Software SRL', vatNumber: RO_SELLER_VAT, address: { street: 'Strada Memorandumului 28', city: 'Cluj-Napoca', postalCode: '400114', region: 'Cluj', country: 'RO' } },
    buyer: { name: 'Client Comercial SA', vatNumber: RO_BUYER_VAT, address: { street: 'Bulevardul Unirii 15', city: 'Sector 3', postalCode: '030167', region: 'București', country: 'RO' } },
    lines: [{ description: 'Licență software', quantity: 2, unit: 'C62', unitPrice: 500, vatRate: 19 }],
    ...overrides,
  };
}
