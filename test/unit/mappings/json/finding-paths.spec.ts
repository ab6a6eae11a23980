/** Findings on the UBL rendered from a JSON send, located in the JSON body. */
import { jsonLocationOf } from '../../../../mappings/json/finding-paths.ts';

describe('jsonLocationOf', () => {
  it.each([
    [{ location: '/ubl:Invoice[1]', bt: ['BT-9', 'BT-20'] }, 'document.dueDate', 'Set document.dueDate.'],
    [{ location: '/ubl:Invoice[1]/cac:InvoiceLine[3]/cac:Item[1]/cac:ClassifiedTaxCategory[1]', bt: ['BT-151'] }, 'document.lines[2].vatCategory', 'Check document.lines[2].vatCategory.'],
    [{ location: '/ubl:CreditNote[1]/cac:CreditNoteLine[1]', bt: [] }, 'document.lines[0]', 'Check document.lines[0].'],
    [{ location: '/ubl:Invoice[1]/cac:AccountingCustomerParty[1]/cac:Party[1]/cbc:EndpointID[1]', bt: [] }, 'document.buyer', 'Set document.buyer.'],
    [{ location: '/ubl:Invoice[1]', bt: ['BT-48'] }, 'document.buyer.vatNumber', 'Set document.buyer.vatNumber.'],
    [{ location: '/ubl:Invoice[1]/cac:AccountingSupplierParty[1]', bt: ['BT-40'] }, 'document.seller.address.country', 'Set document.seller.address.country.'],
    [{ location: '', bt: [] }, 'document', 'Check the document against the rule named in this finding.'],
  ])('%j → %s', (finding, path, hint) => {
    expect(jsonLocationOf(finding)).toEqual({ path, hint });
  });

  it('totals and the VAT breakdown point at what the caller controls', () => {
    expect(jsonLocationOf({ location: '/ubl:Invoice[1]/cac:LegalMonetaryTotal[1]', bt: ['BT-106'] })).toMatchObject({ path: 'document.totals.net', hint: expect.stringContaining('omit document.totals') });
    expect(jsonLocationOf({ location: '/ubl:Invoice[1]/cac:TaxTotal[1]/cac:TaxSubtotal[1]', bt: ['BG-23', 'BT-118'] })).toMatchObject({ path: 'document.lines', hint: expect.stringContaining('vatExemptionReason') });
  });
});
