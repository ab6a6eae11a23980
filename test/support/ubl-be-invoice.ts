/**
 * A small, complete UBL.BE invoice (the corpus has none), built from the UBL.BE conventions: the
 * UBL.BE marker reference, the CommercialInvoice PDF reference, BTCC tax category names and line
 * VAT totals. Clean under the Belgian pack (schematrons/br-be) and the EN 16931 core; the unit tests
 * break one rule at a time, the send tests send it between Belgian sandbox companies.
 */
const NS = 'xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2" ' +
  'xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" ' +
  'xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"';

const party = (name: string, vat: string) => `<cac:Party><cbc:EndpointID schemeID="0208">${vat.slice(2)}</cbc:EndpointID>
    <cac:PartyName><cbc:Name>${name}</cbc:Name></cac:PartyName>
    <cac:PostalAddress><cbc:StreetName>Rue de la Loi 16</cbc:StreetName><cbc:CityName>Bruxelles</cbc:CityName><cbc:PostalZone>1000</cbc:PostalZone>
      <cac:Country><cbc:IdentificationCode>BE</cbc:IdentificationCode></cac:Country></cac:PostalAddress>
    <cac:PartyTaxScheme><cbc:CompanyID>${vat}</cbc:CompanyID><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:PartyTaxScheme>
    <cac:PartyLegalEntity><cbc:RegistrationName>${name}</cbc:RegistrationName></cac:PartyLegalEntity></cac:Party>`;

export const UBL_BE_INVOICE = `<Invoice ${NS}>
  <cbc:UBLVersionID>2.1</cbc:UBLVersionID>
  <cbc:CustomizationID>urn:cen.eu:en16931:2017#conformant#urn:UBL.BE:1.0.0.20180214</cbc:CustomizationID>
  <cbc:ID>F-2026-001</cbc:ID><cbc:IssueDate>2026-01-15</cbc:IssueDate><cbc:DueDate>2026-02-14</cbc:DueDate>
  <cbc:InvoiceTypeCode>380</cbc:InvoiceTypeCode><cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode>
  <cac:AdditionalDocumentReference><cbc:ID>UBL.BE</cbc:ID><cbc:DocumentDescription>1.31</cbc:DocumentDescription></cac:AdditionalDocumentReference>
  <cac:AdditionalDocumentReference><cbc:ID>F-2026-001.pdf</cbc:ID><cbc:DocumentDescription>CommercialInvoice</cbc:DocumentDescription>
    <cac:Attachment><cbc:EmbeddedDocumentBinaryObject mimeCode="application/pdf" filename="F-2026-001.pdf">JVBERi0xLjQK</cbc:EmbeddedDocumentBinaryObject></cac:Attachment></cac:AdditionalDocumentReference>
  <cac:AccountingSupplierParty>${party('Vendeur SA', 'BE0123456749')}</cac:AccountingSupplierParty>
  <cac:AccountingCustomerParty>${party('Acheteur SPRL', 'BE0987654321')}</cac:AccountingCustomerParty>
  <cac:PaymentMeans><cbc:PaymentMeansCode>30</cbc:PaymentMeansCode><cbc:PaymentID>+++010/8068/17183+++</cbc:PaymentID>
    <cac:PayeeFinancialAccount><cbc:ID>BE71096123456769</cbc:ID></cac:PayeeFinancialAccount></cac:PaymentMeans>
  <cac:PaymentTerms><cbc:Note>30 jours</cbc:Note></cac:PaymentTerms>
  <cac:TaxTotal><cbc:TaxAmount currencyID="EUR">21.00</cbc:TaxAmount>
    <cac:TaxSubtotal><cbc:TaxableAmount currencyID="EUR">100.00</cbc:TaxableAmount><cbc:TaxAmount currencyID="EUR">21.00</cbc:TaxAmount>
      <cac:TaxCategory><cbc:ID>S</cbc:ID><cbc:Name>03</cbc:Name><cbc:Percent>21</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:TaxCategory></cac:TaxSubtotal>
  </cac:TaxTotal>
  <cac:LegalMonetaryTotal><cbc:LineExtensionAmount currencyID="EUR">100.00</cbc:LineExtensionAmount><cbc:TaxExclusiveAmount currencyID="EUR">100.00</cbc:TaxExclusiveAmount>
    <cbc:TaxInclusiveAmount currencyID="EUR">121.00</cbc:TaxInclusiveAmount><cbc:PayableAmount currencyID="EUR">121.00</cbc:PayableAmount></cac:LegalMonetaryTotal>
  <cac:InvoiceLine><cbc:ID>1</cbc:ID><cbc:InvoicedQuantity unitCode="C62">2</cbc:InvoicedQuantity><cbc:LineExtensionAmount currencyID="EUR">100.00</cbc:LineExtensionAmount>
    <cac:TaxTotal><cbc:TaxAmount currencyID="EUR">21.00</cbc:TaxAmount></cac:TaxTotal>
    <cac:Item><cbc:Name>Service</cbc:Name><cac:ClassifiedTaxCategory><cbc:ID>S</cbc:ID><cbc:Name>03</cbc:Name><cbc:Percent>21</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:ClassifiedTaxCategory></cac:Item>
    <cac:Price><cbc:PriceAmount currencyID="EUR">50.00</cbc:PriceAmount></cac:Price></cac:InvoiceLine>
</Invoice>`;
