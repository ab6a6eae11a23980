/**
 * Small French invoices under the EXTENDED-CTC-FR profile (XP Z12-012 V1.4), UBL and CII, for the
 * extended-ctc-fr pack's tests: the same invoice in both syntaxes, with what the profile adds to EN 16931 —
 * sub-lines (a GROUP line 2 whose DETAIL sub-line 2.1 is counted in the totals instead of it, EXT-FR-FE-162/163),
 * a document level allowance and charge, an item attribute, incoterms and an XML attachment.
 * Figures: line 1 = 100.00, line 2 (GROUP) = 50.00 = its sub-line 2.1; BT-106 = 150.00, allowance 10.00,
 * charge 5.00, BT-109 = 145.00, VAT S 20 % = 29.00, BT-112 = BT-115 = 174.00.
 * Each mutation table entry breaks one rule of the profile (tests assert exactly which rule ids fire).
 */

export const EXTENDED_CTC_FR_ID = 'urn:cen.eu:en16931:2017#conformant#urn.cpro.gouv.fr:1p0:extended-ctc-fr';

const UBL_NS = 'xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2" '
  + 'xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" '
  + 'xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"';

const ublParty = (name: string, siren: string, vat: string): string => `<cac:Party><cbc:EndpointID schemeID="0225">${siren}</cbc:EndpointID>
      <cac:PartyIdentification><cbc:ID schemeID="0009">${siren}00012</cbc:ID></cac:PartyIdentification>
      <cac:PostalAddress><cbc:StreetName>1 rue de Rivoli</cbc:StreetName><cbc:CityName>Paris</cbc:CityName><cbc:PostalZone>75001</cbc:PostalZone>
        <cac:Country><cbc:IdentificationCode>FR</cbc:IdentificationCode></cac:Country></cac:PostalAddress>
      <cac:PartyTaxScheme><cbc:CompanyID>${vat}</cbc:CompanyID><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:PartyTaxScheme>
      <cac:PartyLegalEntity><cbc:RegistrationName>${name}</cbc:RegistrationName><cbc:CompanyID schemeID="0002">${siren}</cbc:CompanyID></cac:PartyLegalEntity></cac:Party>`;

const ublVat = '<cac:ClassifiedTaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>20</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:ClassifiedTaxCategory>';

/** The UBL invoice (F2026-0042). */
export const UBL_EXTENDED = `<?xml version="1.0" encoding="UTF-8"?>
<Invoice ${UBL_NS}>
  <cbc:CustomizationID>${EXTENDED_CTC_FR_ID}</cbc:CustomizationID>
  <cbc:ProfileID>S1</cbc:ProfileID>
  <cbc:ID>F2026-0042</cbc:ID>
  <cbc:IssueDate>2026-09-15</cbc:IssueDate>
  <cbc:DueDate>2026-10-15</cbc:DueDate>
  <cbc:InvoiceTypeCode>380</cbc:InvoiceTypeCode>
  <cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode>
  <cac:AdditionalDocumentReference><cbc:ID>ANNEX-1</cbc:ID>
    <cac:Attachment><cbc:EmbeddedDocumentBinaryObject mimeCode="application/xml" filename="annex.xml">PGEvPg==</cbc:EmbeddedDocumentBinaryObject></cac:Attachment></cac:AdditionalDocumentReference>
  <cac:AccountingSupplierParty>${ublParty('Vendeur SAS', '123456782', 'FR32123456782')}</cac:AccountingSupplierParty>
  <cac:AccountingCustomerParty>${ublParty('Acheteur SA', '987654321', 'FR12987654321')}</cac:AccountingCustomerParty>
  <cac:DeliveryTerms><cbc:ID>EXW</cbc:ID><cac:DeliveryLocation><cbc:Name>Paris</cbc:Name></cac:DeliveryLocation></cac:DeliveryTerms>
  <cac:PaymentMeans><cbc:PaymentMeansCode>30</cbc:PaymentMeansCode><cac:PayeeFinancialAccount><cbc:ID>FR7630006000011234567890189</cbc:ID></cac:PayeeFinancialAccount></cac:PaymentMeans>
  <cac:AllowanceCharge><cbc:ChargeIndicator>false</cbc:ChargeIndicator><cbc:AllowanceChargeReasonCode>95</cbc:AllowanceChargeReasonCode><cbc:AllowanceChargeReason>Remise</cbc:AllowanceChargeReason>
    <cbc:Amount currencyID="EUR">10.00</cbc:Amount><cac:TaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>20</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:TaxCategory></cac:AllowanceCharge>
  <cac:AllowanceCharge><cbc:ChargeIndicator>true</cbc:ChargeIndicator><cbc:AllowanceChargeReasonCode listID="7161">FC</cbc:AllowanceChargeReasonCode><cbc:AllowanceChargeReason>Transport</cbc:AllowanceChargeReason>
    <cbc:Amount currencyID="EUR">5.00</cbc:Amount><cac:TaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>20</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:TaxCategory></cac:AllowanceCharge>
  <cac:TaxTotal><cbc:TaxAmount currencyID="EUR">29.00</cbc:TaxAmount>
    <cac:TaxSubtotal><cbc:TaxableAmount currencyID="EUR">145.00</cbc:TaxableAmount><cbc:TaxAmount currencyID="EUR">29.00</cbc:TaxAmount>
      <cac:TaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>20</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:TaxCategory></cac:TaxSubtotal></cac:TaxTotal>
  <cac:LegalMonetaryTotal><cbc:LineExtensionAmount currencyID="EUR">150.00</cbc:LineExtensionAmount><cbc:TaxExclusiveAmount currencyID="EUR">145.00</cbc:TaxExclusiveAmount>
    <cbc:TaxInclusiveAmount currencyID="EUR">174.00</cbc:TaxInclusiveAmount><cbc:AllowanceTotalAmount currencyID="EUR">10.00</cbc:AllowanceTotalAmount><cbc:ChargeTotalAmount currencyID="EUR">5.00</cbc:ChargeTotalAmount>
    <cbc:PayableAmount currencyID="EUR">174.00</cbc:PayableAmount></cac:LegalMonetaryTotal>
  <cac:InvoiceLine><cbc:ID>1</cbc:ID><cbc:InvoicedQuantity unitCode="C62">1</cbc:InvoicedQuantity><cbc:LineExtensionAmount currencyID="EUR">100.00</cbc:LineExtensionAmount>
    <cac:Item><cbc:Name>Conseil</cbc:Name>${ublVat}<cac:AdditionalItemProperty><cbc:Name>Couleur</cbc:Name><cbc:NameCode listID="6313">COLOR_TEXT</cbc:NameCode><cbc:Value>Bleu</cbc:Value></cac:AdditionalItemProperty></cac:Item>
    <cac:Price><cbc:PriceAmount currencyID="EUR">100.00</cbc:PriceAmount></cac:Price></cac:InvoiceLine>
  <cac:InvoiceLine><cbc:ID>2</cbc:ID><cbc:InvoicedQuantity unitCode="C62">1</cbc:InvoicedQuantity><cbc:LineExtensionAmount currencyID="EUR">50.00</cbc:LineExtensionAmount>
    <cac:BillingReference><cac:InvoiceDocumentReference><cbc:ID>F2026-0042</cbc:ID><cbc:DocumentStatusCode>GROUP</cbc:DocumentStatusCode></cac:InvoiceDocumentReference></cac:BillingReference>
    <cac:Item><cbc:Name>Lot maintenance</cbc:Name>${ublVat}</cac:Item>
    <cac:Price><cbc:PriceAmount currencyID="EUR">50.00</cbc:PriceAmount></cac:Price></cac:InvoiceLine>
  <cac:InvoiceLine><cbc:ID>2.1</cbc:ID><cbc:InvoicedQuantity unitCode="C62">1</cbc:InvoicedQuantity><cbc:LineExtensionAmount currencyID="EUR">50.00</cbc:LineExtensionAmount>
    <cac:BillingReference><cac:InvoiceDocumentReference><cbc:ID>F2026-0042</cbc:ID><cbc:DocumentStatusCode>DETAIL</cbc:DocumentStatusCode></cac:InvoiceDocumentReference>
      <cac:BillingReferenceLine><cbc:ID>2</cbc:ID></cac:BillingReferenceLine></cac:BillingReference>
    <cac:Item><cbc:Name>Maintenance</cbc:Name>${ublVat}</cac:Item>
    <cac:Price><cbc:PriceAmount currencyID="EUR">50.00</cbc:PriceAmount></cac:Price></cac:InvoiceLine>
</Invoice>
`;

const CII_NS = 'xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100" '
  + 'xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100" '
  + 'xmlns:udt="urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100" '
  + 'xmlns:qdt="urn:un:unece:uncefact:data:standard:QualifiedDataType:100"';

const ciiParty = (name: string, siren: string, vat: string): string => `<ram:ID>${siren}00012</ram:ID><ram:Name>${name}</ram:Name>
        <ram:SpecifiedLegalOrganization><ram:ID schemeID="0002">${siren}</ram:ID></ram:SpecifiedLegalOrganization>
        <ram:PostalTradeAddress><ram:PostcodeCode>75001</ram:PostcodeCode><ram:LineOne>1 rue de Rivoli</ram:LineOne><ram:CityName>Paris</ram:CityName><ram:CountryID>FR</ram:CountryID></ram:PostalTradeAddress>
        <ram:URIUniversalCommunication><ram:URIID schemeID="0225">${siren}</ram:URIID></ram:URIUniversalCommunication>
        <ram:SpecifiedTaxRegistration><ram:ID schemeID="VA">${vat}</ram:ID></ram:SpecifiedTaxRegistration>`;

const ciiVat = '<ram:ApplicableTradeTax><ram:TypeCode>VAT</ram:TypeCode><ram:CategoryCode>S</ram:CategoryCode><ram:RateApplicablePercent>20</ram:RateApplicablePercent></ram:ApplicableTradeTax>';

const ciiLine = (id: string, amount: string, doc = '', product = ''): string => `<ram:IncludedSupplyChainTradeLineItem>
      <ram:AssociatedDocumentLineDocument><ram:LineID>${id}</ram:LineID>${doc}</ram:AssociatedDocumentLineDocument>
      <ram:SpecifiedTradeProduct><ram:Name>Prestation ${id}</ram:Name>${product}</ram:SpecifiedTradeProduct>
      <ram:SpecifiedLineTradeAgreement><ram:NetPriceProductTradePrice><ram:ChargeAmount>${amount}</ram:ChargeAmount></ram:NetPriceProductTradePrice></ram:SpecifiedLineTradeAgreement>
      <ram:SpecifiedLineTradeDelivery><ram:BilledQuantity unitCode="C62">1</ram:BilledQuantity></ram:SpecifiedLineTradeDelivery>
      <ram:SpecifiedLineTradeSettlement>${ciiVat}
        <ram:SpecifiedTradeSettlementLineMonetarySummation><ram:LineTotalAmount>${amount}</ram:LineTotalAmount></ram:SpecifiedTradeSettlementLineMonetarySummation></ram:SpecifiedLineTradeSettlement>
    </ram:IncludedSupplyChainTradeLineItem>`;

const ciiAllowanceCharge = (charge: boolean, amount: string, reason: string): string => `<ram:SpecifiedTradeAllowanceCharge>
        <ram:ChargeIndicator><udt:Indicator>${charge}</udt:Indicator></ram:ChargeIndicator><ram:ActualAmount>${amount}</ram:ActualAmount>${reason}
        <ram:CategoryTradeTax><ram:TypeCode>VAT</ram:TypeCode><ram:CategoryCode>S</ram:CategoryCode><ram:RateApplicablePercent>20</ram:RateApplicablePercent></ram:CategoryTradeTax></ram:SpecifiedTradeAllowanceCharge>`;

/** The same invoice in CII (the French reform's EXTENDED-CTC-FR CII). */
export const CII_EXTENDED = `<?xml version="1.0" encoding="UTF-8"?>
<rsm:CrossIndustryInvoice ${CII_NS}>
  <rsm:ExchangedDocumentContext>
    <ram:BusinessProcessSpecifiedDocumentContextParameter><ram:ID>S1</ram:ID></ram:BusinessProcessSpecifiedDocumentContextParameter>
    <ram:GuidelineSpecifiedDocumentContextParameter><ram:ID>${EXTENDED_CTC_FR_ID}</ram:ID></ram:GuidelineSpecifiedDocumentContextParameter>
  </rsm:ExchangedDocumentContext>
  <rsm:ExchangedDocument><ram:ID>F2026-0042</ram:ID><ram:TypeCode>380</ram:TypeCode>
    <ram:IssueDateTime><udt:DateTimeString format="102">20260915</udt:DateTimeString></ram:IssueDateTime></rsm:ExchangedDocument>
  <rsm:SupplyChainTradeTransaction>
    ${ciiLine('1', '100.00', '', '<ram:ApplicableProductCharacteristic><ram:TypeCode>COLOR_TEXT</ram:TypeCode><ram:Description>Couleur</ram:Description><ram:Value>Bleu</ram:Value></ram:ApplicableProductCharacteristic>')}
    ${ciiLine('2', '50.00', '<ram:LineStatusReasonCode>GROUP</ram:LineStatusReasonCode>')}
    ${ciiLine('2.1', '50.00', '<ram:ParentLineID>2</ram:ParentLineID><ram:LineStatusReasonCode>DETAIL</ram:LineStatusReasonCode>')}
    <ram:ApplicableHeaderTradeAgreement>
      <ram:SellerTradeParty>${ciiParty('Vendeur SAS', '123456782', 'FR32123456782')}</ram:SellerTradeParty>
      <ram:BuyerTradeParty>${ciiParty('Acheteur SA', '987654321', 'FR12987654321')}</ram:BuyerTradeParty>
      <ram:ApplicableTradeDeliveryTerms><ram:DeliveryTypeCode>EXW</ram:DeliveryTypeCode></ram:ApplicableTradeDeliveryTerms>
      <ram:AdditionalReferencedDocument><ram:IssuerAssignedID>ANNEX-1</ram:IssuerAssignedID><ram:TypeCode>916</ram:TypeCode>
        <ram:AttachmentBinaryObject mimeCode="application/xml" filename="annex.xml">PGEvPg==</ram:AttachmentBinaryObject></ram:AdditionalReferencedDocument>
    </ram:ApplicableHeaderTradeAgreement>
    <ram:ApplicableHeaderTradeDelivery/>
    <ram:ApplicableHeaderTradeSettlement>
      <ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode>
      <ram:SpecifiedTradeSettlementPaymentMeans><ram:TypeCode>30</ram:TypeCode>
        <ram:PayeePartyCreditorFinancialAccount><ram:IBANID>FR7630006000011234567890189</ram:IBANID></ram:PayeePartyCreditorFinancialAccount></ram:SpecifiedTradeSettlementPaymentMeans>
      <ram:ApplicableTradeTax><ram:CalculatedAmount>29.00</ram:CalculatedAmount><ram:TypeCode>VAT</ram:TypeCode><ram:BasisAmount>145.00</ram:BasisAmount>
        <ram:CategoryCode>S</ram:CategoryCode><ram:RateApplicablePercent>20</ram:RateApplicablePercent></ram:ApplicableTradeTax>
      ${ciiAllowanceCharge(false, '10.00', '<ram:ReasonCode>95</ram:ReasonCode><ram:Reason>Remise</ram:Reason>')}
      ${ciiAllowanceCharge(true, '5.00', '<ram:ReasonCode>FC</ram:ReasonCode><ram:Reason>Transport</ram:Reason>')}
      <ram:SpecifiedTradePaymentTerms><ram:DueDateDateTime><udt:DateTimeString format="102">20261015</udt:DateTimeString></ram:DueDateDateTime></ram:SpecifiedTradePaymentTerms>
      <ram:SpecifiedTradeSettlementHeaderMonetarySummation>
        <ram:LineTotalAmount>150.00</ram:LineTotalAmount><ram:ChargeTotalAmount>5.00</ram:ChargeTotalAmount><ram:AllowanceTotalAmount>10.00</ram:AllowanceTotalAmount>
        <ram:TaxBasisTotalAmount>145.00</ram:TaxBasisTotalAmount><ram:TaxTotalAmount currencyID="EUR">29.00</ram:TaxTotalAmount>
        <ram:GrandTotalAmount>174.00</ram:GrandTotalAmount><ram:DuePayableAmount>174.00</ram:DuePayableAmount>
      </ram:SpecifiedTradeSettlementHeaderMonetarySummation>
    </ram:ApplicableHeaderTradeSettlement>
  </rsm:SupplyChainTradeTransaction>
</rsm:CrossIndustryInvoice>
`;
