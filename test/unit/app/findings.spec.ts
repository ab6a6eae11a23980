/** The dashboard puts each validation finding next to the field it concerns, from the finding's XPath (UBL and CII). */
import { fieldOfFinding } from '../../../app/src/findings.ts';

it('maps UBL and CII locations to the document fields the page shows, and the rest to the document', () => {
  expect(fieldOfFinding('/ubl:Invoice[1]/cbc:ID[1]')).toBe('number');
  expect(fieldOfFinding('/rsm:CrossIndustryInvoice[1]/rsm:ExchangedDocument[1]/ram:ID[1]')).toBe('number');
  expect(fieldOfFinding('/ubl:Invoice[1]/cbc:IssueDate[1]')).toBe('issueDate');
  expect(fieldOfFinding('/ubl:Invoice[1]/cbc:DueDate[1]')).toBe('dueDate');
  expect(fieldOfFinding('/ubl:Invoice[1]/cbc:DocumentCurrencyCode[1]')).toBe('currency');
  expect(fieldOfFinding('/ubl:Invoice[1]/cac:LegalMonetaryTotal[1]/cbc:PayableAmount[1]')).toBe('totalAmount');
  expect(fieldOfFinding('/ubl:Invoice[1]/cac:AccountingSupplierParty[1]/cac:Party[1]/cbc:EndpointID[1]')).toBe('from');
  expect(fieldOfFinding('/ubl:Invoice[1]/cac:AccountingCustomerParty[1]/cac:Party[1]/cbc:EndpointID[1]')).toBe('to');
  expect(fieldOfFinding('/rsm:CrossIndustryInvoice[1]/rsm:SupplyChainTradeTransaction[1]/ram:ApplicableHeaderTradeAgreement[1]/ram:BuyerTradeParty[1]')).toBe('to');
  // A line's party-less tax category is the line's, not the buyer's or the total's.
  expect(fieldOfFinding('/ubl:Invoice[1]/cac:InvoiceLine[3]/cac:Item[1]/cac:ClassifiedTaxCategory[1]')).toBe('lines');
  expect(fieldOfFinding('/ubl:CreditNote[1]/cac:CreditNoteLine[1]')).toBe('lines');
  expect(fieldOfFinding('/ubl:Invoice[1]')).toBeUndefined();
  expect(fieldOfFinding('/ubl:Invoice[1]/cbc:BuyerReference[1]')).toBeUndefined();
});
