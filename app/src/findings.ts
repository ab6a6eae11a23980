/**
 * Which field of the document a validation finding concerns, from its location (the XPath of the
 * node the rule fired on, UBL or CII): findings are shown next to that field, the rest under the
 * document as a whole.
 */
export type DocumentField = 'number' | 'issueDate' | 'dueDate' | 'currency' | 'totalAmount' | 'from' | 'to' | 'lines';

const FIELD_PATTERNS: Array<[DocumentField, RegExp]> = [
  ['from', /AccountingSupplierParty|SellerTradeParty/],
  ['to', /AccountingCustomerParty|BuyerTradeParty/],
  ['lines', /InvoiceLine|CreditNoteLine|IncludedSupplyChainTradeLineItem/],
  ['dueDate', /DueDate/],
  ['issueDate', /IssueDate|IssueDateTime/],
  ['currency', /CurrencyCode/],
  ['totalAmount', /LegalMonetaryTotal|MonetarySummation|PayableAmount|TaxTotal|TaxInclusiveAmount/],
  ['number', /(Invoice|CreditNote|ExchangedDocument)(\[\d+\])?\/(\*:|cbc:|ram:)?ID(\[\d+\])?$/],
];

export function fieldOfFinding(location: string): DocumentField | undefined {
  return FIELD_PATTERNS.find(([, pattern]) => pattern.test(location))?.[0];
}
