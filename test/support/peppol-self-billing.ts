/**
 * Our own small Peppol BIS Self-Billing documents for the peppol-bis-sb pack tests, and the violation of
 * every self-billing rule as a change to the good document (one case per rule id, a few more where a
 * release or the official rule order makes a difference).
 *
 * `fires` is what the release's self-billing rules report for the case (rule:severity, sorted, every
 * firing counted): the expectations follow the official rule semantics of each release, checked
 * against the official artefacts outside the repository (schematrons/peppol-bis-sb/NOTES.md).
 */

export type SbRelease = '3.0.0' | '3.0.1' | '3.0.2';
export const SB_RELEASES: SbRelease[] = ['3.0.0', '3.0.1', '3.0.2'];

export const SB_CUSTOMIZATION = 'urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:selfbilling:3.0';
export const SB_PROFILE = 'urn:fdc:peppol.eu:2017:poacc:selfbilling:01:1.0';

const NS = 'xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" '
  + 'xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"';

/** A self-billed invoice (389) the buyer issues for a Belgian seller; clean under every release. */
export function selfBilledInvoice(issueDate = '2026-09-01'): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2" ${NS}>
  <cbc:CustomizationID>${SB_CUSTOMIZATION}</cbc:CustomizationID>
  <cbc:ProfileID>${SB_PROFILE}</cbc:ProfileID>
  <cbc:ID>SB-1</cbc:ID>
  <cbc:IssueDate>${issueDate}</cbc:IssueDate>
  <cbc:DueDate>2026-09-30</cbc:DueDate>
  <cbc:InvoiceTypeCode>389</cbc:InvoiceTypeCode>
  <cbc:Note>Self-billed by the buyer under agreement SBA-7</cbc:Note>
  <cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode>
  <cbc:BuyerReference>REF-1</cbc:BuyerReference>
  <cac:InvoicePeriod><cbc:StartDate>2026-08-01</cbc:StartDate><cbc:EndDate>2026-08-31</cbc:EndDate></cac:InvoicePeriod>
  <cac:AdditionalDocumentReference><cbc:ID>PRJ-1</cbc:ID><cbc:DocumentTypeCode>50</cbc:DocumentTypeCode></cac:AdditionalDocumentReference>
  <cac:AccountingSupplierParty>
    <cac:Party>
      <cbc:EndpointID schemeID="0208">0123456749</cbc:EndpointID>
      <cac:PartyIdentification><cbc:ID schemeID="0088">5790000435975</cbc:ID></cac:PartyIdentification>
      <cac:PartyName><cbc:Name>Seller Ltd</cbc:Name></cac:PartyName>
      <cac:PostalAddress><cbc:StreetName>Street 1</cbc:StreetName><cbc:CityName>Brussels</cbc:CityName><cbc:PostalZone>1000</cbc:PostalZone>
        <cac:Country><cbc:IdentificationCode>BE</cbc:IdentificationCode></cac:Country></cac:PostalAddress>
      <cac:PartyTaxScheme><cbc:CompanyID>BE0123456749</cbc:CompanyID><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:PartyTaxScheme>
      <cac:PartyLegalEntity><cbc:RegistrationName>Seller Ltd</cbc:RegistrationName></cac:PartyLegalEntity>
    </cac:Party>
  </cac:AccountingSupplierParty>
  <cac:AccountingCustomerParty>
    <cac:Party>
      <cbc:EndpointID schemeID="9925">BE0987654321</cbc:EndpointID>
      <cac:PartyName><cbc:Name>Buyer NV</cbc:Name></cac:PartyName>
      <cac:PostalAddress><cbc:StreetName>Street 2</cbc:StreetName><cbc:CityName>Ghent</cbc:CityName><cbc:PostalZone>9000</cbc:PostalZone>
        <cac:Country><cbc:IdentificationCode>BE</cbc:IdentificationCode></cac:Country></cac:PostalAddress>
      <cac:PartyLegalEntity><cbc:RegistrationName>Buyer NV</cbc:RegistrationName></cac:PartyLegalEntity>
    </cac:Party>
  </cac:AccountingCustomerParty>
  <cac:PaymentMeans><cbc:PaymentMeansCode>30</cbc:PaymentMeansCode><cac:PayeeFinancialAccount><cbc:ID>BE68539007547034</cbc:ID></cac:PayeeFinancialAccount></cac:PaymentMeans>
  <cac:TaxTotal>
    <cbc:TaxAmount currencyID="EUR">21.00</cbc:TaxAmount>
    <cac:TaxSubtotal><cbc:TaxableAmount currencyID="EUR">100.00</cbc:TaxableAmount><cbc:TaxAmount currencyID="EUR">21.00</cbc:TaxAmount>
      <cac:TaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>21</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:TaxCategory></cac:TaxSubtotal>
  </cac:TaxTotal>
  <cac:LegalMonetaryTotal><cbc:LineExtensionAmount currencyID="EUR">100.00</cbc:LineExtensionAmount><cbc:TaxExclusiveAmount currencyID="EUR">100.00</cbc:TaxExclusiveAmount>
    <cbc:TaxInclusiveAmount currencyID="EUR">121.00</cbc:TaxInclusiveAmount><cbc:PayableAmount currencyID="EUR">121.00</cbc:PayableAmount></cac:LegalMonetaryTotal>
  <cac:InvoiceLine>
    <cbc:ID>1</cbc:ID>
    <cbc:InvoicedQuantity unitCode="C62">2</cbc:InvoicedQuantity>
    <cbc:LineExtensionAmount currencyID="EUR">100.00</cbc:LineExtensionAmount>
    <cac:InvoicePeriod><cbc:StartDate>2026-08-01</cbc:StartDate><cbc:EndDate>2026-08-31</cbc:EndDate></cac:InvoicePeriod>
    <cac:Item><cbc:Name>Milk delivered</cbc:Name><cac:ClassifiedTaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>21</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:ClassifiedTaxCategory></cac:Item>
    <cac:Price><cbc:PriceAmount currencyID="EUR">50.00</cbc:PriceAmount><cbc:BaseQuantity unitCode="C62">1</cbc:BaseQuantity></cac:Price>
  </cac:InvoiceLine>
</Invoice>`;
}

/** The self-billed invoice issued by a buyer with VAT number `buyerVat` (the sending company in API tests). */
export function selfBilledInvoiceBy(buyerVat: string, issueDate = '2026-09-01'): string {
  return change(selfBilledInvoice(issueDate), '<cac:PartyLegalEntity><cbc:RegistrationName>Buyer NV',
    `<cac:PartyTaxScheme><cbc:CompanyID>${buyerVat}</cbc:CompanyID><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:PartyTaxScheme><cac:PartyLegalEntity><cbc:RegistrationName>Buyer NV`);
}

/** The same document as a self-billed credit note (261). */
export function selfBilledCreditNote(issueDate = '2026-09-01'): string {
  return selfBilledInvoice(issueDate)
    .replace('urn:oasis:names:specification:ubl:schema:xsd:Invoice-2', 'urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2')
    .replace(/<(\/?)Invoice>/g, '<$1CreditNote>').replace(/<Invoice /, '<CreditNote ')
    .replace('<cbc:InvoiceTypeCode>389</cbc:InvoiceTypeCode>', '<cbc:CreditNoteTypeCode>261</cbc:CreditNoteTypeCode>')
    .replace(/<(\/?)cac:InvoiceLine>/g, '<$1cac:CreditNoteLine>')
    .replace(/<(\/?)cbc:InvoicedQuantity/g, '<$1cbc:CreditedQuantity');
}

/** `xml` with `from` replaced by `to`; throws when `from` is not in it exactly once, so no case is silently a no-op. */
export function change(xml: string, from: string, to: string): string {
  const at = xml.indexOf(from);
  if (at < 0 || xml.indexOf(from, at + 1) >= 0) throw new Error(`test document: '${from}' must occur exactly once`);
  return xml.slice(0, at) + to + xml.slice(at + from.length);
}

export interface SbCase {
  /** the rule id the case is about */
  rule: string;
  /** what it shows, for the test name */
  title: string;
  xml: string;
  /** sorted `RULE:severity` firings of the self-billing pack, per release (the same for each release when one list) */
  fires: string[] | Record<SbRelease, string[]>;
}

const inv = selfBilledInvoice();
const cn = selfBilledCreditNote();
const on = (xml: string, ...edits: Array<[string, string]>): string => edits.reduce((x, [a, b]) => change(x, a, b), xml);
const F = (rule: string, n = 1): string[] => Array.from({ length: n }, () => `${rule}:fatal`);
const W = (rule: string, n = 1): string[] => Array.from({ length: n }, () => `${rule}:warning`);
const only302 = (xs: string[]): Record<SbRelease, string[]> => ({ '3.0.0': [], '3.0.1': [], '3.0.2': xs });

const SELLER_EP = '<cbc:EndpointID schemeID="0208">0123456749</cbc:EndpointID>';
const SELLER_PID = '<cac:PartyIdentification><cbc:ID schemeID="0088">5790000435975</cbc:ID></cac:PartyIdentification>';
const pid = (scheme: string, value: string): [string, string] => [SELLER_PID, `<cac:PartyIdentification><cbc:ID schemeID="${scheme}">${value}</cbc:ID></cac:PartyIdentification>`];
const ep = (scheme: string, value: string): [string, string] => [SELLER_EP, `<cbc:EndpointID schemeID="${scheme}">${value}</cbc:EndpointID>`];
const DOC_CHARGE_AT = '<cac:TaxTotal>';
const docAllowance = (inner: string): [string, string] => [DOC_CHARGE_AT, `<cac:AllowanceCharge>${inner}</cac:AllowanceCharge><cac:TaxTotal>`];
const TAX_CAT = '<cac:TaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>21</cbc:Percent>';
const vatex = (code: string): [string, string] => [TAX_CAT, `<cac:TaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>21</cbc:Percent><cbc:TaxExemptionReasonCode>${code}</cbc:TaxExemptionReasonCode>`];
const PRICE = '<cac:Price><cbc:PriceAmount currencyID="EUR">50.00</cbc:PriceAmount>';
const PRICE_END = '<cbc:BaseQuantity unitCode="C62">1</cbc:BaseQuantity></cac:Price>';
const LINE_PERIOD = '<cac:InvoicePeriod><cbc:StartDate>2026-08-01</cbc:StartDate><cbc:EndDate>2026-08-31</cbc:EndDate></cac:InvoicePeriod>\n    <cac:Item>';
const TAX_TOTAL_END = '</cac:TaxSubtotal>\n  </cac:TaxTotal>';
/** a VAT accounting currency (BT-6) with its VAT total (BT-111) */
const taxCurrency = (code: string, amount: string): Array<[string, string]> => [
  ['<cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode>', `<cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode><cbc:TaxCurrencyCode>${code}</cbc:TaxCurrencyCode>`],
  [TAX_TOTAL_END, `${TAX_TOTAL_END}<cac:TaxTotal><cbc:TaxAmount currencyID="${code}">${amount}</cbc:TaxAmount></cac:TaxTotal>`],
];

export const SB_CASES: SbCase[] = [
  // ----- document level
  { rule: 'PEPPOL-EN16931-R008', title: 'an empty element', xml: on(inv, ['<cbc:BuyerReference>REF-1</cbc:BuyerReference>', '<cbc:AccountingCost> </cbc:AccountingCost><cbc:BuyerReference>REF-1</cbc:BuyerReference>']), fires: F('PEPPOL-EN16931-R008') },
  { rule: 'PEPPOL-EN16931-R001', title: 'no business process (which is then not an approved one either)', xml: on(inv, [`<cbc:ProfileID>${SB_PROFILE}</cbc:ProfileID>`, '']), fires: [...F('PEPPOL-EN16931-R001'), ...F('PEPPOL-EN16931-R007')] },
  { rule: 'PEPPOL-EN16931-R007', title: 'the Billing process identifier', xml: on(inv, [SB_PROFILE, 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0']), fires: F('PEPPOL-EN16931-R007') },
  { rule: 'PEPPOL-EN16931-R007', title: 'selfbilling:02:1.0 has the published form (3.0.0, 3.0.1) but is not approved (3.0.2)', xml: on(inv, [SB_PROFILE, 'urn:fdc:peppol.eu:2017:poacc:selfbilling:02:1.0']), fires: only302(F('PEPPOL-EN16931-R007')) },
  { rule: 'PEPPOL-EN16931-R002', title: 'two document notes', xml: on(inv, ['<cbc:DocumentCurrencyCode>', '<cbc:Note>Second note</cbc:Note><cbc:DocumentCurrencyCode>']), fires: F('PEPPOL-EN16931-R002') },
  { rule: 'PEPPOL-EN16931-R003', title: 'neither buyer reference nor order reference', xml: on(inv, ['<cbc:BuyerReference>REF-1</cbc:BuyerReference>', '']), fires: F('PEPPOL-EN16931-R003') },
  { rule: 'PEPPOL-EN16931-R004', title: 'the Billing specification identifier', xml: on(inv, [SB_CUSTOMIZATION, 'urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0']), fires: F('PEPPOL-EN16931-R004') },
  { rule: 'PEPPOL-EN16931-R004', title: "an empty part ('::') fails from 3.0.2 on", xml: on(inv, [`${SB_CUSTOMIZATION}<`, `${SB_CUSTOMIZATION}::ext<`]), fires: only302(F('PEPPOL-EN16931-R004')) },
  { rule: 'PEPPOL-EN16931-R053', title: 'two VAT totals with breakdown', xml: on(inv, ['<cac:LegalMonetaryTotal>', '<cac:TaxTotal><cbc:TaxAmount currencyID="EUR">0.00</cbc:TaxAmount><cac:TaxSubtotal><cbc:TaxableAmount currencyID="EUR">0.00</cbc:TaxableAmount><cbc:TaxAmount currencyID="EUR">0.00</cbc:TaxAmount><cac:TaxCategory><cbc:ID>Z</cbc:ID><cbc:Percent>0</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:TaxCategory></cac:TaxSubtotal></cac:TaxTotal><cac:LegalMonetaryTotal>']), fires: F('PEPPOL-EN16931-R053') },
  { rule: 'PEPPOL-EN16931-R054', title: 'a VAT accounting currency without its VAT total (no VAT total in it to compare the sign with either)', xml: on(inv, taxCurrency('USD', '23.00')[0]!), fires: [...F('PEPPOL-EN16931-R054'), ...F('PEPPOL-EN16931-R055')] },
  { rule: 'PEPPOL-EN16931-R055', title: 'the VAT total in accounting currency with the other sign', xml: on(inv, ...taxCurrency('USD', '-23.00')), fires: F('PEPPOL-EN16931-R055') },
  { rule: 'PEPPOL-EN16931-R005', title: 'a VAT accounting currency equal to the invoice currency', xml: on(inv, ...taxCurrency('EUR', '21.00')), fires: F('PEPPOL-EN16931-R005') },
  { rule: 'PEPPOL-EN16931-R080', title: 'two project references on a credit note', xml: on(cn, ['<cac:AccountingSupplierParty>', '<cac:AdditionalDocumentReference><cbc:ID>PRJ-2</cbc:ID><cbc:DocumentTypeCode>50</cbc:DocumentTypeCode></cac:AdditionalDocumentReference><cac:AccountingSupplierParty>']), fires: F('PEPPOL-EN16931-R080') },
  { rule: 'PEPPOL-EN16931-R080', title: 'as published it has a credit note context only: two project references on an invoice pass', xml: on(inv, ['<cac:AccountingSupplierParty>', '<cac:AdditionalDocumentReference><cbc:ID>PRJ-2</cbc:ID><cbc:DocumentTypeCode>50</cbc:DocumentTypeCode></cac:AdditionalDocumentReference><cac:AccountingSupplierParty>']), fires: [] },
  { rule: 'PEPPOL-EN16931-P0100', title: 'an ordinary invoice type code (380)', xml: on(inv, ['<cbc:InvoiceTypeCode>389<', '<cbc:InvoiceTypeCode>380<']), fires: F('PEPPOL-EN16931-P0100') },
  { rule: 'PEPPOL-EN16931-P0100', title: 'the self-billed debit note (527) passes', xml: on(inv, ['<cbc:InvoiceTypeCode>389<', '<cbc:InvoiceTypeCode>527<']), fires: [] },
  { rule: 'PEPPOL-EN16931-P0100', title: 'checked for profile 01 only: selfbilling:02:1.0 with type 380', xml: on(inv, [SB_PROFILE, 'urn:fdc:peppol.eu:2017:poacc:selfbilling:02:1.0'], ['<cbc:InvoiceTypeCode>389<', '<cbc:InvoiceTypeCode>380<']), fires: only302(F('PEPPOL-EN16931-R007')) },
  { rule: 'PEPPOL-EN16931-P0101', title: 'an ordinary credit note type code (381)', xml: on(cn, ['<cbc:CreditNoteTypeCode>261<', '<cbc:CreditNoteTypeCode>381<']), fires: F('PEPPOL-EN16931-P0101') },
  // ----- parties and identifiers
  { rule: 'PEPPOL-EN16931-R020', title: 'no seller electronic address', xml: on(inv, [SELLER_EP, '']), fires: F('PEPPOL-EN16931-R020') },
  { rule: 'PEPPOL-EN16931-R010', title: 'no buyer electronic address', xml: on(inv, ['<cbc:EndpointID schemeID="9925">BE0987654321</cbc:EndpointID>', '']), fires: F('PEPPOL-EN16931-R010') },
  { rule: 'PEPPOL-EN16931-CL008', title: 'an electronic address scheme outside the EAS list', xml: on(inv, ep('9999', '123')), fires: F('PEPPOL-EN16931-CL008') },
  { rule: 'PEPPOL-EN16931-CL008', title: 'EAS 0193 withdrawn in 3.0.2', xml: on(inv, ep('0193', 'UBLBE0123456749')), fires: only302(F('PEPPOL-EN16931-CL008')) },
  { rule: 'PEPPOL-EN16931-CL008', title: 'EAS 0242 added in 3.0.2', xml: on(inv, ep('0242', '123456789')), fires: { '3.0.0': F('PEPPOL-EN16931-CL008'), '3.0.1': F('PEPPOL-EN16931-CL008'), '3.0.2': [] } },
  { rule: 'PEPPOL-EN16931-CL008', title: 'EAS 0244 added in 3.0.1', xml: on(inv, ep('0244', '123456789')), fires: { '3.0.0': F('PEPPOL-EN16931-CL008'), '3.0.1': [], '3.0.2': [] } },
  { rule: 'PEPPOL-EN16931-CL008', title: 'EAS 9901 withdrawn in 3.0.1', xml: on(inv, ep('9901', '123456789')), fires: { '3.0.0': [], '3.0.1': F('PEPPOL-EN16931-CL008'), '3.0.2': F('PEPPOL-EN16931-CL008') } },
  { rule: 'PEPPOL-COMMON-R040', title: 'a GLN with a wrong check digit', xml: on(inv, pid('0088', '5790000435976')), fires: F('PEPPOL-COMMON-R040') },
  { rule: 'PEPPOL-COMMON-R041', title: 'a Norwegian organisation number with a wrong check digit', xml: on(inv, pid('0192', '987654321')), fires: F('PEPPOL-COMMON-R041') },
  { rule: 'PEPPOL-COMMON-R042', title: 'a Danish CVR number of seven digits', xml: on(inv, pid('0184', '1234567')), fires: F('PEPPOL-COMMON-R042') },
  { rule: 'PEPPOL-COMMON-R042', title: 'a CVR number without DK passes from 3.0.2 on', xml: on(inv, pid('0184', '12345678')), fires: { '3.0.0': F('PEPPOL-COMMON-R042'), '3.0.1': F('PEPPOL-COMMON-R042'), '3.0.2': [] } },
  { rule: 'PEPPOL-COMMON-R043', title: 'a Belgian enterprise number with wrong check digits', xml: on(inv, ep('0208', '0123456789')), fires: F('PEPPOL-COMMON-R043') },
  { rule: 'PEPPOL-COMMON-R044', title: 'an Italian IPA code of three characters', xml: on(inv, pid('0201', 'ABC')), fires: W('PEPPOL-COMMON-R044') },
  { rule: 'PEPPOL-COMMON-R045', title: 'an Italian Codice Fiscale of the wrong length', xml: on(inv, pid('0210', 'RSSMRA85')), fires: W('PEPPOL-COMMON-R045') },
  { rule: 'PEPPOL-COMMON-R046', title: 'a Codice Fiscale endpoint (9907, in the EAS list of 3.0.0 only)', xml: on(inv, ep('9907', 'RSSMRA85')), fires: { '3.0.0': W('PEPPOL-COMMON-R046'), '3.0.1': [...F('PEPPOL-EN16931-CL008'), ...W('PEPPOL-COMMON-R046')], '3.0.2': [...F('PEPPOL-EN16931-CL008'), ...W('PEPPOL-COMMON-R046')] } },
  { rule: 'PEPPOL-COMMON-R047', title: 'an Italian Partita IVA with a wrong check digit', xml: on(inv, pid('0211', 'IT12345678901')), fires: W('PEPPOL-COMMON-R047') },
  { rule: 'PEPPOL-COMMON-R049', title: 'a Swedish organisation number with a wrong check digit', xml: on(inv, pid('0007', '1234567890')), fires: F('PEPPOL-COMMON-R049') },
  { rule: 'PEPPOL-COMMON-R050', title: 'an Australian Business Number failing the check', xml: on(inv, pid('0151', '12345678901')), fires: F('PEPPOL-COMMON-R050') },
  { rule: 'PEPPOL-COMMON-R052', title: 'a Danish P number of three digits (3.0.2)', xml: on(inv, pid('0096', '123')), fires: only302(F('PEPPOL-COMMON-R052')) },
  { rule: 'PEPPOL-COMMON-R053', title: 'a Danish ERSTORG number without DK (3.0.2)', xml: on(inv, pid('0198', '12345678')), fires: only302(F('PEPPOL-COMMON-R053')) },
  { rule: 'PEPPOL-COMMON-R054', title: 'a KVK number of three digits (3.0.2)', xml: on(inv, pid('0106', '123')), fires: only302(W('PEPPOL-COMMON-R054')) },
  { rule: 'PEPPOL-COMMON-R055', title: 'an OIN of three digits (3.0.2)', xml: on(inv, pid('0190', '123')), fires: only302(W('PEPPOL-COMMON-R055')) },
  { rule: 'PEPPOL-COMMON-R056-1', title: 'a 9944 Dutch VAT number in the wrong form (3.0.2)', xml: on(inv, pid('9944', 'NL123')), fires: only302(W('PEPPOL-COMMON-R056-1')) },
  { rule: 'PEPPOL-COMMON-R056-2', title: 'a VAT-scheme company id starting with NL in the wrong form (3.0.2)', xml: on(inv, ['<cbc:CompanyID>BE0123456749</cbc:CompanyID>', '<cbc:CompanyID>NL123</cbc:CompanyID>']), fires: only302(W('PEPPOL-COMMON-R056-2')) },
  { rule: 'PEPPOL-COMMON-R057', title: 'a KVK establishment number of three digits (3.0.2)', xml: on(inv, pid('0217', '123')), fires: only302(W('PEPPOL-COMMON-R057')) },
  { rule: 'PEPPOL-COMMON-R057', title: 'a Dutch VAT number with scheme 0217 is checked as a VAT number (R056-2 comes first)', xml: on(inv, ['<cbc:CompanyID>BE0123456749</cbc:CompanyID>', '<cbc:CompanyID schemeID="0217">NL123</cbc:CompanyID>']), fires: only302(W('PEPPOL-COMMON-R056-2')) },
  // ----- allowances and charges
  { rule: 'PEPPOL-EN16931-R041', title: 'a percentage without base amount (R043 is then not checked, as in the official rule order)', xml: on(inv, docAllowance('<cbc:ChargeIndicator>FALSE</cbc:ChargeIndicator><cbc:AllowanceChargeReason>Discount</cbc:AllowanceChargeReason><cbc:MultiplierFactorNumeric>10</cbc:MultiplierFactorNumeric><cbc:Amount currencyID="EUR">10.00</cbc:Amount>')), fires: F('PEPPOL-EN16931-R041') },
  { rule: 'PEPPOL-EN16931-R042', title: 'a base amount without percentage', xml: on(inv, docAllowance('<cbc:ChargeIndicator>false</cbc:ChargeIndicator><cbc:AllowanceChargeReason>Discount</cbc:AllowanceChargeReason><cbc:Amount currencyID="EUR">10.00</cbc:Amount><cbc:BaseAmount currencyID="EUR">100.00</cbc:BaseAmount>')), fires: F('PEPPOL-EN16931-R042') },
  { rule: 'PEPPOL-EN16931-R040', title: 'an amount that is not base x percentage / 100', xml: on(inv, docAllowance('<cbc:ChargeIndicator>false</cbc:ChargeIndicator><cbc:AllowanceChargeReason>Discount</cbc:AllowanceChargeReason><cbc:MultiplierFactorNumeric>10</cbc:MultiplierFactorNumeric><cbc:Amount currencyID="EUR">5.00</cbc:Amount><cbc:BaseAmount currencyID="EUR">100.00</cbc:BaseAmount>')), fires: F('PEPPOL-EN16931-R040') },
  { rule: 'PEPPOL-EN16931-R043', title: 'a charge indicator in upper case', xml: on(inv, docAllowance('<cbc:ChargeIndicator>TRUE</cbc:ChargeIndicator><cbc:AllowanceChargeReason>Freight</cbc:AllowanceChargeReason><cbc:Amount currencyID="EUR">10.00</cbc:Amount>')), fires: F('PEPPOL-EN16931-R043') },
  { rule: 'PEPPOL-EN16931-CL002', title: 'an allowance reason code outside the UNCL 5189 subset', xml: on(inv, docAllowance('<cbc:ChargeIndicator>false</cbc:ChargeIndicator><cbc:AllowanceChargeReasonCode>999</cbc:AllowanceChargeReasonCode><cbc:Amount currencyID="EUR">10.00</cbc:Amount>')), fires: F('PEPPOL-EN16931-CL002') },
  { rule: 'PEPPOL-EN16931-CL003', title: 'a charge reason code outside UNCL 7161', xml: on(inv, docAllowance('<cbc:ChargeIndicator>true</cbc:ChargeIndicator><cbc:AllowanceChargeReasonCode>XYZ</cbc:AllowanceChargeReasonCode><cbc:Amount currencyID="EUR">10.00</cbc:Amount>')), fires: F('PEPPOL-EN16931-CL003') },
  { rule: 'PEPPOL-EN16931-CL003', title: 'charge reason PRV is in the list from 3.0.2 on', xml: on(inv, docAllowance('<cbc:ChargeIndicator>true</cbc:ChargeIndicator><cbc:AllowanceChargeReasonCode>PRV</cbc:AllowanceChargeReasonCode><cbc:Amount currencyID="EUR">10.00</cbc:Amount>')), fires: { '3.0.0': F('PEPPOL-EN16931-CL003'), '3.0.1': F('PEPPOL-EN16931-CL003'), '3.0.2': [] } },
  { rule: 'PEPPOL-EN16931-R044', title: 'a charge on price level', xml: on(inv, [PRICE_END, '<cbc:BaseQuantity unitCode="C62">1</cbc:BaseQuantity><cac:AllowanceCharge><cbc:ChargeIndicator>true</cbc:ChargeIndicator><cbc:Amount currencyID="EUR">1.00</cbc:Amount></cac:AllowanceCharge></cac:Price>']), fires: F('PEPPOL-EN16931-R044') },
  { rule: 'PEPPOL-EN16931-R046', title: 'a net price that is not gross price minus discount', xml: on(inv, [PRICE_END, '<cbc:BaseQuantity unitCode="C62">1</cbc:BaseQuantity><cac:AllowanceCharge><cbc:ChargeIndicator>false</cbc:ChargeIndicator><cbc:Amount currencyID="EUR">5.00</cbc:Amount><cbc:BaseAmount currencyID="EUR">60.00</cbc:BaseAmount></cac:AllowanceCharge></cac:Price>']), fires: F('PEPPOL-EN16931-R046') },
  // ----- payment, amounts, currency
  { rule: 'PEPPOL-EN16931-R061', title: 'a SEPA direct debit without mandate reference', xml: on(inv, ['<cbc:PaymentMeansCode>30</cbc:PaymentMeansCode>', '<cbc:PaymentMeansCode>59</cbc:PaymentMeansCode>']), fires: F('PEPPOL-EN16931-R061') },
  { rule: 'PEPPOL-EN16931-R051', title: 'an amount in another currency than the invoice currency', xml: on(inv, ['<cbc:TaxExclusiveAmount currencyID="EUR">', '<cbc:TaxExclusiveAmount currencyID="USD">']), fires: F('PEPPOL-EN16931-R051') },
  { rule: 'PEPPOL-EN16931-R051', title: 'as published for self-billing, a VAT subtotal amount is not covered', xml: on(inv, ['<cbc:TaxAmount currencyID="EUR">21.00</cbc:TaxAmount>\n      <cac:TaxCategory>', '<cbc:TaxAmount currencyID="USD">21.00</cbc:TaxAmount>\n      <cac:TaxCategory>']), fires: [] },
  { rule: 'PEPPOL-EN16931-CL007', title: 'a VAT accounting currency outside ISO 4217', xml: on(inv, ...taxCurrency('ZZZ', '23.00')), fires: F('PEPPOL-EN16931-CL007') },
  { rule: 'PEPPOL-EN16931-CL007', title: 'MRO (replaced by MRU) is in the list up to 3.0.1', xml: on(inv, ...taxCurrency('MRO', '900.00')), fires: only302(F('PEPPOL-EN16931-CL007')) },
  // ----- lines
  { rule: 'PEPPOL-EN16931-R120', title: 'a line net amount that is not quantity x price', xml: on(inv, [PRICE, '<cac:Price><cbc:PriceAmount currencyID="EUR">40.00</cbc:PriceAmount>']), fires: F('PEPPOL-EN16931-R120') },
  { rule: 'PEPPOL-EN16931-R121', title: 'a price base quantity of zero', xml: on(inv, ['<cbc:BaseQuantity unitCode="C62">1</cbc:BaseQuantity>', '<cbc:BaseQuantity unitCode="C62">0</cbc:BaseQuantity>']), fires: F('PEPPOL-EN16931-R121') },
  { rule: 'PEPPOL-EN16931-R130', title: 'a price base quantity in another unit than the invoiced quantity', xml: on(inv, ['<cbc:BaseQuantity unitCode="C62">', '<cbc:BaseQuantity unitCode="KGM">']), fires: F('PEPPOL-EN16931-R130') },
  { rule: 'PEPPOL-EN16931-R100', title: 'two invoiced objects on a line', xml: on(inv, [LINE_PERIOD, LINE_PERIOD.replace('<cac:Item>', '<cac:DocumentReference><cbc:ID>OBJ-1</cbc:ID><cbc:DocumentTypeCode>130</cbc:DocumentTypeCode></cac:DocumentReference><cac:DocumentReference><cbc:ID>OBJ-2</cbc:ID><cbc:DocumentTypeCode>130</cbc:DocumentTypeCode></cac:DocumentReference><cac:Item>')]), fires: F('PEPPOL-EN16931-R100') },
  { rule: 'PEPPOL-EN16931-R101', title: 'a line document reference that is not an invoiced object', xml: on(inv, [LINE_PERIOD, LINE_PERIOD.replace('<cac:Item>', '<cac:DocumentReference><cbc:ID>OBJ-1</cbc:ID><cbc:DocumentTypeCode>50</cbc:DocumentTypeCode></cac:DocumentReference><cac:Item>')]), fires: F('PEPPOL-EN16931-R101') },
  { rule: 'PEPPOL-EN16931-R110', title: 'a line period starting before the invoice period', xml: on(inv, [LINE_PERIOD, LINE_PERIOD.replace('2026-08-01', '2026-07-15')]), fires: F('PEPPOL-EN16931-R110') },
  { rule: 'PEPPOL-EN16931-R111', title: 'a line period ending after the invoice period', xml: on(inv, [LINE_PERIOD, LINE_PERIOD.replace('2026-08-31', '2026-09-15')]), fires: F('PEPPOL-EN16931-R111') },
  // ----- code lists, formats
  { rule: 'PEPPOL-EN16931-F001', title: 'a date not written YYYY-MM-DD', xml: on(inv, ['<cbc:DueDate>2026-09-30</cbc:DueDate>', '<cbc:DueDate>2026-9-30</cbc:DueDate>']), fires: F('PEPPOL-EN16931-F001') },
  { rule: 'PEPPOL-EN16931-CL001', title: 'an attachment MIME type outside the list', xml: on(inv, ['<cbc:DocumentTypeCode>50</cbc:DocumentTypeCode></cac:AdditionalDocumentReference>', '<cbc:DocumentTypeCode>50</cbc:DocumentTypeCode></cac:AdditionalDocumentReference><cac:AdditionalDocumentReference><cbc:ID>ATT-1</cbc:ID><cac:Attachment><cbc:EmbeddedDocumentBinaryObject mimeCode="application/xml" filename="a.xml">PGEvPg==</cbc:EmbeddedDocumentBinaryObject></cac:Attachment></cac:AdditionalDocumentReference>']), fires: F('PEPPOL-EN16931-CL001') },
  { rule: 'PEPPOL-EN16931-CL006', title: 'an invoice period description code outside UNCL 2005', xml: on(inv, ['<cac:InvoicePeriod><cbc:StartDate>2026-08-01</cbc:StartDate><cbc:EndDate>2026-08-31</cbc:EndDate></cac:InvoicePeriod>\n  <cac:AdditionalDocumentReference>', '<cac:InvoicePeriod><cbc:StartDate>2026-08-01</cbc:StartDate><cbc:EndDate>2026-08-31</cbc:EndDate><cbc:DescriptionCode>99</cbc:DescriptionCode></cac:InvoicePeriod>\n  <cac:AdditionalDocumentReference>']), fires: F('PEPPOL-EN16931-CL006') },
  { rule: 'PEPPOL-EN16931-P0104', title: 'VATEX-EU-G with category S', xml: on(inv, vatex('VATEX-EU-G')), fires: F('PEPPOL-EN16931-P0104') },
  { rule: 'PEPPOL-EN16931-P0105', title: 'VATEX-EU-O with category S', xml: on(inv, vatex('VATEX-EU-O')), fires: F('PEPPOL-EN16931-P0105') },
  { rule: 'PEPPOL-EN16931-P0106', title: 'VATEX-EU-IC with category S', xml: on(inv, vatex('VATEX-EU-IC')), fires: F('PEPPOL-EN16931-P0106') },
  { rule: 'PEPPOL-EN16931-P0107', title: 'VATEX-EU-AE with category S', xml: on(inv, vatex('VATEX-EU-AE')), fires: F('PEPPOL-EN16931-P0107') },
  { rule: 'PEPPOL-EN16931-P0108', title: 'VATEX-EU-D with category S', xml: on(inv, vatex('VATEX-EU-D')), fires: F('PEPPOL-EN16931-P0108') },
  { rule: 'PEPPOL-EN16931-P0109', title: 'VATEX-EU-F with category S', xml: on(inv, vatex('VATEX-EU-F')), fires: F('PEPPOL-EN16931-P0109') },
  { rule: 'PEPPOL-EN16931-P0110', title: 'VATEX-EU-I with category S', xml: on(inv, vatex('VATEX-EU-I')), fires: F('PEPPOL-EN16931-P0110') },
  { rule: 'PEPPOL-EN16931-P0111', title: 'VATEX-EU-J (lower case) with category S', xml: on(inv, vatex('vatex-eu-j')), fires: F('PEPPOL-EN16931-P0111') },
];

/** A clean self-billed invoice that also has what most rules compute on: a percentage allowance, a VAT
 *  accounting currency with its VAT total, a price discount, a line invoiced object and an attachment. */
export function richSelfBilledInvoice(): string {
  return on(inv,
    docAllowance('<cbc:ChargeIndicator>false</cbc:ChargeIndicator><cbc:AllowanceChargeReasonCode>95</cbc:AllowanceChargeReasonCode><cbc:MultiplierFactorNumeric>0</cbc:MultiplierFactorNumeric><cbc:Amount currencyID="EUR">0.00</cbc:Amount><cbc:BaseAmount currencyID="EUR">100.00</cbc:BaseAmount>'),
    [PRICE_END, '<cbc:BaseQuantity unitCode="C62">1</cbc:BaseQuantity><cac:AllowanceCharge><cbc:ChargeIndicator>false</cbc:ChargeIndicator><cbc:Amount currencyID="EUR">5.00</cbc:Amount><cbc:BaseAmount currencyID="EUR">55.00</cbc:BaseAmount></cac:AllowanceCharge></cac:Price>'],
    [LINE_PERIOD, LINE_PERIOD.replace('<cac:Item>', '<cac:DocumentReference><cbc:ID>OBJ-1</cbc:ID><cbc:DocumentTypeCode>130</cbc:DocumentTypeCode></cac:DocumentReference><cac:Item>')],
    ['<cbc:DocumentTypeCode>50</cbc:DocumentTypeCode></cac:AdditionalDocumentReference>', '<cbc:DocumentTypeCode>50</cbc:DocumentTypeCode></cac:AdditionalDocumentReference><cac:AdditionalDocumentReference><cbc:ID>ATT-1</cbc:ID><cac:Attachment><cbc:EmbeddedDocumentBinaryObject mimeCode="application/pdf" filename="copy.pdf">JVBERi0=</cbc:EmbeddedDocumentBinaryObject></cac:Attachment></cac:AdditionalDocumentReference>'],
    ...taxCurrency('USD', '23.00'),
  );
}

/** The expected firings of a case under one release. */
export function expectedFor(c: SbCase, release: SbRelease): string[] {
  return (Array.isArray(c.fires) ? c.fires : c.fires[release]).slice().sort();
}
