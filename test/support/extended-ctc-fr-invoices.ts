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

/** One change to a base invoice that breaks (or, with `clean`, exercises) a rule of the profile. */
export interface ExtendedMutation {
  syntax: 'ubl' | 'cii';
  /** what the change does, in words */
  name: string;
  from: string | RegExp;
  to: string;
  /** the change leaves the syntax's schema (the rule can only be broken that way): tests run the rules alone */
  xsdInvalid?: boolean;
  /** further replacements applied after the first */
  more?: [string | RegExp, string][];
}

/** Categories with a one-breakdown mutation each: [VAT category code, rate or undefined, rule id part]. */
const EXTRA_CATEGORIES: [string, string | undefined, string][] = [
  ['Z', '0', 'Z'], ['E', '0', 'E'], ['AE', '0', 'AE'], ['K', '0', 'IC'], ['G', '0', 'G'], ['O', undefined, 'O'], ['L', '7', 'AF'], ['M', '7', 'AG'],
];

const UBL_SUBTOTAL_END = '</cac:TaxSubtotal></cac:TaxTotal>';
const ublExtraSubtotal = (code: string, rate: string | undefined): string => `</cac:TaxSubtotal><cac:TaxSubtotal><cbc:TaxableAmount currencyID="EUR">10.00</cbc:TaxableAmount><cbc:TaxAmount currencyID="EUR">0.00</cbc:TaxAmount>
      <cac:TaxCategory><cbc:ID>${code}</cbc:ID>${rate === undefined ? '' : `<cbc:Percent>${rate}</cbc:Percent>`}<cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:TaxCategory>${UBL_SUBTOTAL_END}`;
const CII_BREAKDOWN_END = '<ram:RateApplicablePercent>20</ram:RateApplicablePercent></ram:ApplicableTradeTax>\n      <ram:SpecifiedTradeAllowanceCharge>';
const ciiExtraBreakdown = (code: string, rate: string | undefined): string => `<ram:RateApplicablePercent>20</ram:RateApplicablePercent></ram:ApplicableTradeTax>
      <ram:ApplicableTradeTax><ram:CalculatedAmount>0.00</ram:CalculatedAmount><ram:TypeCode>VAT</ram:TypeCode><ram:BasisAmount>10.00</ram:BasisAmount><ram:CategoryCode>${code}</ram:CategoryCode>${rate === undefined ? '' : `<ram:RateApplicablePercent>${rate}</ram:RateApplicablePercent>`}</ram:ApplicableTradeTax>
      <ram:SpecifiedTradeAllowanceCharge>`;

export const EXTENDED_MUTATIONS: ExtendedMutation[] = [
  // ---------------- UBL ----------------
  { syntax: 'ubl', name: 'the VAT breakdown says Z where the lines, allowance and charge say S', from: '<cac:TaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>20</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:TaxCategory></cac:TaxSubtotal>', to: '<cac:TaxCategory><cbc:ID>Z</cbc:ID><cbc:Percent>20</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:TaxCategory></cac:TaxSubtotal>' },
  ...EXTRA_CATEGORIES.map(([code, rate, rid]): ExtendedMutation => ({ syntax: 'ubl', name: `a VAT breakdown ${code} (BR-FREXT-${rid}) of 10.00 that nothing uses`, from: UBL_SUBTOTAL_END, to: ublExtraSubtotal(code, rate) })),
  { syntax: 'ubl', name: 'the S taxable amount is 146.00 instead of 145.00', from: '<cbc:TaxableAmount currencyID="EUR">145.00</cbc:TaxableAmount>', to: '<cbc:TaxableAmount currencyID="EUR">146.00</cbc:TaxableAmount>' },
  { syntax: 'ubl', name: 'the S breakdown carries an exemption reason the lines do not', from: '<cbc:Percent>20</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:TaxCategory></cac:TaxSubtotal>', to: '<cbc:Percent>20</cbc:Percent><cbc:TaxExemptionReason>Motif</cbc:TaxExemptionReason><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:TaxCategory></cac:TaxSubtotal>' },
  { syntax: 'ubl', name: 'two S 20 % breakdowns, one per exemption reason, each matching its own lines (allowed; the total per rate differs)', from: /<cac:TaxTotal>[\s\S]*<\/cac:TaxTotal>/, to: `<cac:TaxTotal><cbc:TaxAmount currencyID="EUR">29.00</cbc:TaxAmount>
    <cac:TaxSubtotal><cbc:TaxableAmount currencyID="EUR">100.00</cbc:TaxableAmount><cbc:TaxAmount currencyID="EUR">20.00</cbc:TaxAmount>
      <cac:TaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>20</cbc:Percent><cbc:TaxExemptionReason>Conseil</cbc:TaxExemptionReason><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:TaxCategory></cac:TaxSubtotal>
    <cac:TaxSubtotal><cbc:TaxableAmount currencyID="EUR">45.00</cbc:TaxableAmount><cbc:TaxAmount currencyID="EUR">9.00</cbc:TaxAmount>
      <cac:TaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>20</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:TaxCategory></cac:TaxSubtotal></cac:TaxTotal>`,
    more: [['<cbc:Name>Conseil</cbc:Name><cac:ClassifiedTaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>20</cbc:Percent>', '<cbc:Name>Conseil</cbc:Name><cac:ClassifiedTaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>20</cbc:Percent><cbc:TaxExemptionReason>Conseil</cbc:TaxExemptionReason>']] },
  { syntax: 'ubl', name: 'the S VAT amount is 30.00 instead of 145.00 × 20 %', from: '<cbc:TaxAmount currencyID="EUR">29.00</cbc:TaxAmount>\n      <cac:TaxCategory>', to: '<cbc:TaxAmount currencyID="EUR">30.00</cbc:TaxAmount>\n      <cac:TaxCategory>' },
  { syntax: 'ubl', name: 'BT-106 is 151.00', from: '<cbc:LineExtensionAmount currencyID="EUR">150.00</cbc:LineExtensionAmount>', to: '<cbc:LineExtensionAmount currencyID="EUR">151.00</cbc:LineExtensionAmount>' },
  { syntax: 'ubl', name: 'BT-107 is 11.00', from: '<cbc:AllowanceTotalAmount currencyID="EUR">10.00</cbc:AllowanceTotalAmount>', to: '<cbc:AllowanceTotalAmount currencyID="EUR">11.00</cbc:AllowanceTotalAmount>' },
  { syntax: 'ubl', name: 'BT-108 is 6.00', from: '<cbc:ChargeTotalAmount currencyID="EUR">5.00</cbc:ChargeTotalAmount>', to: '<cbc:ChargeTotalAmount currencyID="EUR">6.00</cbc:ChargeTotalAmount>' },
  { syntax: 'ubl', name: 'BT-109 is 146.00', from: '<cbc:TaxExclusiveAmount currencyID="EUR">145.00</cbc:TaxExclusiveAmount>', to: '<cbc:TaxExclusiveAmount currencyID="EUR">146.00</cbc:TaxExclusiveAmount>' },
  { syntax: 'ubl', name: 'BT-112 is 175.00', from: '<cbc:TaxInclusiveAmount currencyID="EUR">174.00</cbc:TaxInclusiveAmount>', to: '<cbc:TaxInclusiveAmount currencyID="EUR">175.00</cbc:TaxInclusiveAmount>' },
  { syntax: 'ubl', name: 'line 1 has no quantity', from: '<cbc:ID>1</cbc:ID><cbc:InvoicedQuantity unitCode="C62">1</cbc:InvoicedQuantity>', to: '<cbc:ID>1</cbc:ID>', xsdInvalid: true },
  { syntax: 'ubl', name: 'line 1 has a quantity without unit', from: '<cbc:ID>1</cbc:ID><cbc:InvoicedQuantity unitCode="C62">1</cbc:InvoicedQuantity>', to: '<cbc:ID>1</cbc:ID><cbc:InvoicedQuantity>1</cbc:InvoicedQuantity>' },
  { syntax: 'ubl', name: 'sub-line 2.1 (DETAIL) has no net amount', from: '<cbc:ID>2.1</cbc:ID><cbc:InvoicedQuantity unitCode="C62">1</cbc:InvoicedQuantity><cbc:LineExtensionAmount currencyID="EUR">50.00</cbc:LineExtensionAmount>', to: '<cbc:ID>2.1</cbc:ID><cbc:InvoicedQuantity unitCode="C62">1</cbc:InvoicedQuantity>', xsdInvalid: true },
  { syntax: 'ubl', name: 'line 1 has no net price', from: '<cac:Price><cbc:PriceAmount currencyID="EUR">100.00</cbc:PriceAmount></cac:Price>', to: '', xsdInvalid: true },
  { syntax: 'ubl', name: 'line 1 has no VAT category', from: /<cac:Item><cbc:Name>Conseil<\/cbc:Name><cac:ClassifiedTaxCategory>.*?<\/cac:ClassifiedTaxCategory>/, to: '<cac:Item><cbc:Name>Conseil</cbc:Name>' },
  { syntax: 'ubl', name: 'line 1 has two VAT categories', from: '<cbc:Name>Conseil</cbc:Name><cac:ClassifiedTaxCategory>', to: '<cbc:Name>Conseil</cbc:Name><cac:ClassifiedTaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>20</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:ClassifiedTaxCategory><cac:ClassifiedTaxCategory>' },
  { syntax: 'ubl', name: 'line 2 has the unknown subtype GRP', from: '<cbc:DocumentStatusCode>GROUP</cbc:DocumentStatusCode>', to: '<cbc:DocumentStatusCode>GRP</cbc:DocumentStatusCode>' },
  { syntax: 'ubl', name: 'sub-line 2.1 names its parent but has no subtype', from: '<cbc:DocumentStatusCode>DETAIL</cbc:DocumentStatusCode>', to: '' },
  { syntax: 'ubl', name: 'GROUP line 2 says 60.00 but its sub-line is 50.00', from: '<cbc:ID>2</cbc:ID><cbc:InvoicedQuantity unitCode="C62">1</cbc:InvoicedQuantity><cbc:LineExtensionAmount currencyID="EUR">50.00</cbc:LineExtensionAmount>', to: '<cbc:ID>2</cbc:ID><cbc:InvoicedQuantity unitCode="C62">1</cbc:InvoicedQuantity><cbc:LineExtensionAmount currencyID="EUR">60.00</cbc:LineExtensionAmount>' },
  { syntax: 'ubl', name: 'sub-line 2.1 names the missing parent line 9', from: '<cac:BillingReferenceLine><cbc:ID>2</cbc:ID>', to: '<cac:BillingReferenceLine><cbc:ID>9</cbc:ID>' },
  { syntax: 'ubl', name: 'GROUP line 2 has a GROUP sub-line 2.2 without net amount', from: '</Invoice>', to: `  <cac:InvoiceLine><cbc:ID>2.2</cbc:ID><cbc:InvoicedQuantity unitCode="C62">1</cbc:InvoicedQuantity>
    <cac:BillingReference><cac:InvoiceDocumentReference><cbc:ID>F2026-0042</cbc:ID><cbc:DocumentStatusCode>GROUP</cbc:DocumentStatusCode></cac:InvoiceDocumentReference>
      <cac:BillingReferenceLine><cbc:ID>2</cbc:ID></cac:BillingReferenceLine></cac:BillingReference>
    <cac:Item><cbc:Name>Sous-lot</cbc:Name></cac:Item></cac:InvoiceLine>
</Invoice>`, xsdInvalid: true },
  { syntax: 'ubl', name: 'an item attribute without name or name code', from: '<cbc:Name>Couleur</cbc:Name><cbc:NameCode listID="6313">COLOR_TEXT</cbc:NameCode>', to: '', xsdInvalid: true },
  { syntax: 'ubl', name: 'an item attribute with both a value and a measured value', from: '<cbc:Value>Bleu</cbc:Value>', to: '<cbc:Value>Bleu</cbc:Value><cbc:ValueQuantity unitCode="MTR">2</cbc:ValueQuantity>' },
  { syntax: 'ubl', name: 'an item attribute code outside UNTDID 6313', from: 'COLOR_TEXT', to: 'COLOUR' },
  { syntax: 'ubl', name: 'a charge reason code outside UNTDID 7161', from: '<cbc:AllowanceChargeReasonCode listID="7161">FC</cbc:AllowanceChargeReasonCode>', to: '<cbc:AllowanceChargeReasonCode listID="7161">QQQ</cbc:AllowanceChargeReasonCode>' },
  { syntax: 'ubl', name: 'a tax charge (list 5153) with a code outside UNTDID 5153', from: '<cbc:AllowanceChargeReasonCode listID="7161">FC</cbc:AllowanceChargeReasonCode>', to: '<cbc:AllowanceChargeReasonCode listID="5153">FC</cbc:AllowanceChargeReasonCode>' },
  { syntax: 'ubl', name: 'a tax charge (list 5153) with a 5153 code (allowed)', from: '<cbc:AllowanceChargeReasonCode listID="7161">FC</cbc:AllowanceChargeReasonCode>', to: '<cbc:AllowanceChargeReasonCode listID="5153">EXC</cbc:AllowanceChargeReasonCode>' },
  { syntax: 'ubl', name: 'a charge reason code list 9999', from: '<cbc:AllowanceChargeReasonCode listID="7161">', to: '<cbc:AllowanceChargeReasonCode listID="9999">' },
  { syntax: 'ubl', name: 'a ZIP attachment', from: 'mimeCode="application/xml"', to: 'mimeCode="application/zip"' },
  { syntax: 'ubl', name: 'the delivery terms code XXX', from: '<cbc:ID>EXW</cbc:ID>', to: '<cbc:ID>XXX</cbc:ID>' },
  { syntax: 'ubl', name: 'delivery terms with special terms', from: '<cbc:ID>EXW</cbc:ID><cac:DeliveryLocation>', to: '<cbc:ID>EXW</cbc:ID><cbc:SpecialTerms>Franco</cbc:SpecialTerms><cac:DeliveryLocation>' },
  { syntax: 'ubl', name: 'a tax exchange rate with an operator code', from: '<cac:TaxTotal>', to: '<cac:TaxExchangeRate><cbc:SourceCurrencyCode>EUR</cbc:SourceCurrencyCode><cbc:TargetCurrencyCode>EUR</cbc:TargetCurrencyCode><cbc:CalculationRate>1</cbc:CalculationRate><cbc:MathematicOperatorCode>multiply</cbc:MathematicOperatorCode></cac:TaxExchangeRate><cac:TaxTotal>' },
  { syntax: 'ubl', name: 'line 1 delivery terms with a loss risk', from: '<cbc:PriceAmount currencyID="EUR">100.00</cbc:PriceAmount></cac:Price>', to: '<cbc:PriceAmount currencyID="EUR">100.00</cbc:PriceAmount></cac:Price><cac:DeliveryTerms><cbc:ID>EXW</cbc:ID><cbc:LossRisk>Vendeur</cbc:LossRisk></cac:DeliveryTerms>' },
  { syntax: 'ubl', name: 'a preceding invoice reference with two invoice references', from: '<cac:AdditionalDocumentReference>', to: '<cac:BillingReference><cac:InvoiceDocumentReference><cbc:ID>F2026-0001</cbc:ID></cac:InvoiceDocumentReference><cac:InvoiceDocumentReference><cbc:ID>F2026-0002</cbc:ID></cac:InvoiceDocumentReference></cac:BillingReference><cac:AdditionalDocumentReference>', xsdInvalid: true },
  { syntax: 'ubl', name: 'a preceding invoice reference without invoice number', from: '<cac:AdditionalDocumentReference>', to: '<cac:BillingReference><cac:InvoiceDocumentReference><cbc:IssueDate>2026-01-05</cbc:IssueDate></cac:InvoiceDocumentReference></cac:BillingReference><cac:AdditionalDocumentReference>', xsdInvalid: true },
  { syntax: 'ubl', name: 'no due date for a positive amount due', from: '<cbc:DueDate>2026-10-15</cbc:DueDate>', to: '' },

  // ---------------- CII ----------------
  { syntax: 'cii', name: 'the VAT breakdown says Z where the lines, allowance and charge say S', from: '<ram:BasisAmount>145.00</ram:BasisAmount>\n        <ram:CategoryCode>S</ram:CategoryCode>', to: '<ram:BasisAmount>145.00</ram:BasisAmount>\n        <ram:CategoryCode>Z</ram:CategoryCode>' },
  ...EXTRA_CATEGORIES.map(([code, rate, rid]): ExtendedMutation => ({ syntax: 'cii', name: `a VAT breakdown ${code} (BR-FREXT-${rid}) of 10.00 that nothing uses`, from: CII_BREAKDOWN_END, to: ciiExtraBreakdown(code, rate) })),
  { syntax: 'cii', name: 'the S taxable amount is 146.00 instead of 145.00', from: '<ram:BasisAmount>145.00</ram:BasisAmount>', to: '<ram:BasisAmount>146.00</ram:BasisAmount>' },
  { syntax: 'cii', name: 'the S breakdown carries an exemption reason the lines do not', from: '<ram:TypeCode>VAT</ram:TypeCode><ram:BasisAmount>145.00</ram:BasisAmount>', to: '<ram:TypeCode>VAT</ram:TypeCode><ram:ExemptionReason>Motif</ram:ExemptionReason><ram:BasisAmount>145.00</ram:BasisAmount>' },
  { syntax: 'cii', name: 'the S VAT amount is 30.00 instead of 145.00 × 20 %', from: '<ram:CalculatedAmount>29.00</ram:CalculatedAmount>', to: '<ram:CalculatedAmount>30.00</ram:CalculatedAmount>' },
  { syntax: 'cii', name: 'a logistics service charge of 5.00 counted in BT-108, BT-109 and the S breakdown (allowed)', from: /<ram:ApplicableTradeTax><ram:CalculatedAmount>29\.00[\s\S]*<\/ram:SpecifiedTradeSettlementHeaderMonetarySummation>/, to: `<ram:ApplicableTradeTax><ram:CalculatedAmount>30.00</ram:CalculatedAmount><ram:TypeCode>VAT</ram:TypeCode><ram:BasisAmount>150.00</ram:BasisAmount>
        <ram:CategoryCode>S</ram:CategoryCode><ram:RateApplicablePercent>20</ram:RateApplicablePercent></ram:ApplicableTradeTax>
      ${ciiAllowanceCharge(false, '10.00', '<ram:ReasonCode>95</ram:ReasonCode><ram:Reason>Remise</ram:Reason>')}
      ${ciiAllowanceCharge(true, '5.00', '<ram:ReasonCode>FC</ram:ReasonCode><ram:Reason>Transport</ram:Reason>')}
      <ram:SpecifiedLogisticsServiceCharge><ram:Description>Emballage</ram:Description><ram:AppliedAmount>5.00</ram:AppliedAmount>
        <ram:AppliedTradeTax><ram:TypeCode>VAT</ram:TypeCode><ram:CategoryCode>S</ram:CategoryCode><ram:RateApplicablePercent>20</ram:RateApplicablePercent></ram:AppliedTradeTax></ram:SpecifiedLogisticsServiceCharge>
      <ram:SpecifiedTradePaymentTerms><ram:DueDateDateTime><udt:DateTimeString format="102">20261015</udt:DateTimeString></ram:DueDateDateTime></ram:SpecifiedTradePaymentTerms>
      <ram:SpecifiedTradeSettlementHeaderMonetarySummation>
        <ram:LineTotalAmount>150.00</ram:LineTotalAmount><ram:ChargeTotalAmount>10.00</ram:ChargeTotalAmount><ram:AllowanceTotalAmount>10.00</ram:AllowanceTotalAmount>
        <ram:TaxBasisTotalAmount>150.00</ram:TaxBasisTotalAmount><ram:TaxTotalAmount currencyID="EUR">30.00</ram:TaxTotalAmount>
        <ram:GrandTotalAmount>180.00</ram:GrandTotalAmount><ram:DuePayableAmount>180.00</ram:DuePayableAmount>
      </ram:SpecifiedTradeSettlementHeaderMonetarySummation>` },
  { syntax: 'cii', name: 'BT-106 is 151.00', from: '<ram:LineTotalAmount>150.00</ram:LineTotalAmount>', to: '<ram:LineTotalAmount>151.00</ram:LineTotalAmount>' },
  { syntax: 'cii', name: 'BT-107 is 11.00', from: '<ram:AllowanceTotalAmount>10.00</ram:AllowanceTotalAmount>', to: '<ram:AllowanceTotalAmount>11.00</ram:AllowanceTotalAmount>' },
  { syntax: 'cii', name: 'BT-108 is 6.00', from: '<ram:ChargeTotalAmount>5.00</ram:ChargeTotalAmount>', to: '<ram:ChargeTotalAmount>6.00</ram:ChargeTotalAmount>' },
  { syntax: 'cii', name: 'BT-109 is 146.00', from: '<ram:TaxBasisTotalAmount>145.00</ram:TaxBasisTotalAmount>', to: '<ram:TaxBasisTotalAmount>146.00</ram:TaxBasisTotalAmount>' },
  { syntax: 'cii', name: 'BT-112 is 175.00', from: '<ram:GrandTotalAmount>174.00</ram:GrandTotalAmount>', to: '<ram:GrandTotalAmount>175.00</ram:GrandTotalAmount>' },
  { syntax: 'cii', name: 'line 1 has no quantity', from: '<ram:SpecifiedLineTradeDelivery><ram:BilledQuantity unitCode="C62">1</ram:BilledQuantity></ram:SpecifiedLineTradeDelivery>', to: '<ram:SpecifiedLineTradeDelivery/>' },
  { syntax: 'cii', name: 'line 1 has a quantity without unit', from: '<ram:BilledQuantity unitCode="C62">1</ram:BilledQuantity>', to: '<ram:BilledQuantity>1</ram:BilledQuantity>' },
  { syntax: 'cii', name: 'line 1 has no net amount', from: '<ram:SpecifiedTradeSettlementLineMonetarySummation><ram:LineTotalAmount>100.00</ram:LineTotalAmount></ram:SpecifiedTradeSettlementLineMonetarySummation>', to: '', xsdInvalid: true },
  { syntax: 'cii', name: 'line 1 has no net price', from: '<ram:SpecifiedLineTradeAgreement><ram:NetPriceProductTradePrice><ram:ChargeAmount>100.00</ram:ChargeAmount></ram:NetPriceProductTradePrice></ram:SpecifiedLineTradeAgreement>', to: '<ram:SpecifiedLineTradeAgreement/>' },
  { syntax: 'cii', name: 'line 1 has no VAT category', from: /(<ram:LineID>1<\/ram:LineID>[\s\S]*?<ram:SpecifiedLineTradeSettlement>)<ram:ApplicableTradeTax>.*?<\/ram:ApplicableTradeTax>/, to: '$1', xsdInvalid: true },
  { syntax: 'cii', name: 'line 1 has two VAT categories', from: /(<ram:LineID>1<\/ram:LineID>[\s\S]*?<ram:SpecifiedLineTradeSettlement>)/, to: '$1<ram:ApplicableTradeTax><ram:TypeCode>VAT</ram:TypeCode><ram:CategoryCode>S</ram:CategoryCode><ram:RateApplicablePercent>20</ram:RateApplicablePercent></ram:ApplicableTradeTax>' },
  { syntax: 'cii', name: 'a document charge without reason', from: '<ram:ReasonCode>FC</ram:ReasonCode><ram:Reason>Transport</ram:Reason>', to: '' },
  { syntax: 'cii', name: 'a line charge without reason', from: /(<ram:LineID>1<\/ram:LineID>[\s\S]*?<ram:SpecifiedLineTradeSettlement><ram:ApplicableTradeTax>.*?<\/ram:ApplicableTradeTax>)/, to: '$1<ram:SpecifiedTradeAllowanceCharge><ram:ChargeIndicator><udt:Indicator>true</udt:Indicator></ram:ChargeIndicator><ram:ActualAmount>0.00</ram:ActualAmount></ram:SpecifiedTradeAllowanceCharge>' },
  { syntax: 'cii', name: 'line 2 has the unknown subtype GRP', from: '<ram:LineStatusReasonCode>GROUP</ram:LineStatusReasonCode>', to: '<ram:LineStatusReasonCode>GRP</ram:LineStatusReasonCode>' },
  { syntax: 'cii', name: 'sub-line 2.1 names its parent but has no subtype', from: '<ram:LineStatusReasonCode>DETAIL</ram:LineStatusReasonCode>', to: '' },
  { syntax: 'cii', name: 'GROUP line 2 says 60.00 but its sub-line is 50.00', from: /(<ram:LineID>2<\/ram:LineID>[\s\S]*?<ram:LineTotalAmount>)50\.00/, to: '$160.00' },
  { syntax: 'cii', name: 'sub-line 2.1 names the missing parent line 9', from: '<ram:ParentLineID>2</ram:ParentLineID>', to: '<ram:ParentLineID>9</ram:ParentLineID>' },
  { syntax: 'cii', name: 'GROUP line 2 has a GROUP sub-line 2.2 without net amount', from: '    <ram:ApplicableHeaderTradeAgreement>', to: `    <ram:IncludedSupplyChainTradeLineItem>
      <ram:AssociatedDocumentLineDocument><ram:LineID>2.2</ram:LineID><ram:ParentLineID>2</ram:ParentLineID><ram:LineStatusReasonCode>GROUP</ram:LineStatusReasonCode></ram:AssociatedDocumentLineDocument>
      <ram:SpecifiedTradeProduct><ram:Name>Sous-lot</ram:Name></ram:SpecifiedTradeProduct>
      <ram:SpecifiedLineTradeAgreement/><ram:SpecifiedLineTradeDelivery/><ram:SpecifiedLineTradeSettlement/>
    </ram:IncludedSupplyChainTradeLineItem>
    <ram:ApplicableHeaderTradeAgreement>`, xsdInvalid: true },
  { syntax: 'cii', name: 'an item attribute without name or type code', from: '<ram:TypeCode>COLOR_TEXT</ram:TypeCode><ram:Description>Couleur</ram:Description>', to: '' },
  { syntax: 'cii', name: 'an item attribute with both a value and a measured value', from: '<ram:Description>Couleur</ram:Description><ram:Value>Bleu</ram:Value>', to: '<ram:Description>Couleur</ram:Description><ram:ValueMeasure unitCode="MTR">2</ram:ValueMeasure><ram:Value>Bleu</ram:Value>' },
  { syntax: 'cii', name: 'an item attribute code outside UNTDID 6313', from: 'COLOR_TEXT', to: 'COLOUR' },
  { syntax: 'cii', name: 'line delivery terms with a description', from: /(<ram:LineID>1<\/ram:LineID>[\s\S]*?<ram:SpecifiedLineTradeAgreement>)/, to: '$1<ram:ApplicableTradeDeliveryTerms><ram:DeliveryTypeCode>EXW</ram:DeliveryTypeCode><ram:Description>Franco</ram:Description></ram:ApplicableTradeDeliveryTerms>' },
  { syntax: 'cii', name: 'line 1 has two net prices', from: '<ram:NetPriceProductTradePrice><ram:ChargeAmount>100.00</ram:ChargeAmount>', to: '<ram:NetPriceProductTradePrice><ram:ChargeAmount>100.00</ram:ChargeAmount><ram:ChargeAmount>100.00</ram:ChargeAmount>', xsdInvalid: true },
  { syntax: 'cii', name: 'a GROUP line without VAT category (allowed)', from: /(<ram:LineID>2<\/ram:LineID>[\s\S]*?<ram:SpecifiedLineTradeSettlement>)<ram:ApplicableTradeTax>.*?<\/ram:ApplicableTradeTax>/, to: '$1', xsdInvalid: true },
  { syntax: 'cii', name: 'header delivery terms with a description', from: '<ram:DeliveryTypeCode>EXW</ram:DeliveryTypeCode></ram:ApplicableTradeDeliveryTerms>\n      <ram:AdditionalReferencedDocument>', to: '<ram:DeliveryTypeCode>EXW</ram:DeliveryTypeCode><ram:Description>Franco</ram:Description></ram:ApplicableTradeDeliveryTerms>\n      <ram:AdditionalReferencedDocument>' },
  { syntax: 'cii', name: 'a tax currency exchange with a market id', from: '<ram:SpecifiedTradeSettlementPaymentMeans>', to: '<ram:TaxApplicableTradeCurrencyExchange><ram:SourceCurrencyCode>EUR</ram:SourceCurrencyCode><ram:TargetCurrencyCode>EUR</ram:TargetCurrencyCode><ram:MarketID>ECB</ram:MarketID><ram:ConversionRate>1</ram:ConversionRate></ram:TaxApplicableTradeCurrencyExchange><ram:SpecifiedTradeSettlementPaymentMeans>' },
  { syntax: 'cii', name: 'an order reference with a type code', from: '</ram:ApplicableTradeDeliveryTerms>\n      <ram:AdditionalReferencedDocument>', to: '</ram:ApplicableTradeDeliveryTerms><ram:BuyerOrderReferencedDocument><ram:IssuerAssignedID>PO-1</ram:IssuerAssignedID><ram:TypeCode>220</ram:TypeCode></ram:BuyerOrderReferencedDocument>\n      <ram:AdditionalReferencedDocument>' },
  { syntax: 'cii', name: 'an attachment with a reference type code', from: '<ram:AttachmentBinaryObject mimeCode="application/xml" filename="annex.xml">PGEvPg==</ram:AttachmentBinaryObject>', to: '<ram:AttachmentBinaryObject mimeCode="application/xml" filename="annex.xml">PGEvPg==</ram:AttachmentBinaryObject><ram:ReferenceTypeCode>AAA</ram:ReferenceTypeCode>' },
  { syntax: 'cii', name: 'an attachment with an issue date', from: '<ram:AttachmentBinaryObject mimeCode="application/xml" filename="annex.xml">PGEvPg==</ram:AttachmentBinaryObject>', to: '<ram:AttachmentBinaryObject mimeCode="application/xml" filename="annex.xml">PGEvPg==</ram:AttachmentBinaryObject><ram:FormattedIssueDateTime><qdt:DateTimeString format="102">20260901</qdt:DateTimeString></ram:FormattedIssueDateTime>' },
  { syntax: 'cii', name: 'a contract reference with the type code XXX', from: '<ram:AdditionalReferencedDocument>', to: '<ram:ContractReferencedDocument><ram:IssuerAssignedID>CT-1</ram:IssuerAssignedID><ram:ReferenceTypeCode>XXX</ram:ReferenceTypeCode></ram:ContractReferencedDocument><ram:AdditionalReferencedDocument>' },
  { syntax: 'cii', name: 'a seller global id in scheme 9999', from: '<ram:ID>12345678200012</ram:ID><ram:Name>', to: '<ram:ID>12345678200012</ram:ID><ram:GlobalID schemeID="9999">X1</ram:GlobalID><ram:Name>' },
  { syntax: 'cii', name: 'a seller global id in scheme SE (allowed)', from: '<ram:ID>12345678200012</ram:ID><ram:Name>', to: '<ram:ID>12345678200012</ram:ID><ram:GlobalID schemeID="SE">X1</ram:GlobalID><ram:Name>' },
  { syntax: 'cii', name: 'a gross price allowance reason code XX', from: '<ram:SpecifiedLineTradeAgreement><ram:NetPriceProductTradePrice><ram:ChargeAmount>100.00</ram:ChargeAmount>', to: '<ram:SpecifiedLineTradeAgreement><ram:GrossPriceProductTradePrice><ram:ChargeAmount>100.00</ram:ChargeAmount><ram:AppliedTradeAllowanceCharge><ram:ChargeIndicator><udt:Indicator>false</udt:Indicator></ram:ChargeIndicator><ram:ActualAmount>0.00</ram:ActualAmount><ram:ReasonCode>XX</ram:ReasonCode></ram:AppliedTradeAllowanceCharge></ram:GrossPriceProductTradePrice><ram:NetPriceProductTradePrice><ram:ChargeAmount>100.00</ram:ChargeAmount>' },
  { syntax: 'cii', name: 'a charge reason code outside UNTDID 7161', from: '<ram:ReasonCode>FC</ram:ReasonCode>', to: '<ram:ReasonCode>QQQ</ram:ReasonCode>' },
  { syntax: 'cii', name: 'a tax charge (list 5153) with a code outside UNTDID 5153', from: '<ram:ReasonCode>FC</ram:ReasonCode>', to: '<ram:ReasonCode listID="5153">FC</ram:ReasonCode>', xsdInvalid: true },
  { syntax: 'cii', name: 'a charge reason code list 9999', from: '<ram:ReasonCode>FC</ram:ReasonCode>', to: '<ram:ReasonCode listID="9999">FC</ram:ReasonCode>', xsdInvalid: true },
  { syntax: 'cii', name: 'a ZIP attachment', from: 'mimeCode="application/xml"', to: 'mimeCode="application/zip"' },
  { syntax: 'cii', name: 'the delivery terms code XXX', from: '<ram:DeliveryTypeCode>EXW</ram:DeliveryTypeCode>', to: '<ram:DeliveryTypeCode>XXX</ram:DeliveryTypeCode>' },
  { syntax: 'cii', name: 'no due date for a positive amount due', from: /<ram:SpecifiedTradePaymentTerms>.*?<\/ram:SpecifiedTradePaymentTerms>/, to: '' },
];

/** The base invoice of a syntax with one mutation applied (throws when the change does not apply). */
export function mutated(m: ExtendedMutation): string {
  const base = m.syntax === 'ubl' ? UBL_EXTENDED : CII_EXTENDED;
  let out = base;
  for (const [from, to] of [[m.from, m.to] as [string | RegExp, string], ...(m.more ?? [])]) {
    const next = out.replace(from, to);
    if (next === out) throw new Error(`mutation did not apply: ${m.syntax} ${m.name}: ${String(from)}`);
    out = next;
  }
  return out;
}
