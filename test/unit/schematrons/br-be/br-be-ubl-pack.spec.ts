/**
 * The Belgian pack (schematrons/br-be/1.31): the published UBL.BE rules ubl-BE-01 … ubl-BE-15 on the UBL.BE
 * invoice of test/support/ubl-be-invoice.ts (the corpus has no UBL.BE sample); each mutation breaks one rule.
 * The pack keeps the official ids; the API shows them as BR-BE-NN (services/validation/published-rule-ids.ts).
 */
import { validate, type ValidationFinding } from '../../../../services/validation/engine/index.ts';
import { UBL_BE_INVOICE } from '../../../support/ubl-be-invoice.ts';

const BASE = UBL_BE_INVOICE;

const beFindings = (xml: string): ValidationFinding[] =>
  validate(xml, { packs: ['br-be'], skipXsd: true }).findings.filter((f) => f.source.startsWith('br-be@'));
const ids = (xml: string): string[] => beFindings(xml).map((f) => f.rule).sort();
const mutate = (from: string | RegExp, to: string): string => {
  const out = BASE.replace(from, to);
  if (out === BASE) throw new Error(`mutation did not apply: ${String(from)}`);
  return out;
};

describe('UBL.BE rules (br-be pack)', () => {
  it('the UBL.BE base invoice is clean, and also passes the EN 16931 core', () => {
    expect(ids(BASE)).toEqual([]);
    const core = validate(BASE, { packs: ['en16931'], skipXsd: true }).findings.filter((f) => f.severity !== 'warning');
    expect(core.map((f) => f.rule)).toEqual([]);
  });

  it.each([
    ['ubl-BE-01 and ubl-BE-03: the UBL.BE marker reference is missing', /<cac:AdditionalDocumentReference><cbc:ID>UBL\.BE<\/cbc:ID>.*?<\/cac:AdditionalDocumentReference>/, '', ['ubl-BE-01', 'ubl-BE-03']],
    ['ubl-BE-02 (once per reference): no CommercialInvoice description', '<cbc:DocumentDescription>CommercialInvoice</cbc:DocumentDescription>', '<cbc:DocumentDescription>Invoice</cbc:DocumentDescription>', ['ubl-BE-02', 'ubl-BE-02']],
    ['ubl-BE-04: a reference without document description', '<cbc:DocumentDescription>1.31</cbc:DocumentDescription>', '', ['ubl-BE-04']],
    ['ubl-BE-10: the tax category name is not a BTCC code', '<cac:TaxCategory><cbc:ID>S</cbc:ID><cbc:Name>03</cbc:Name>', '<cac:TaxCategory><cbc:ID>S</cbc:ID><cbc:Name>21%</cbc:Name>', ['ubl-BE-10']],
    ['ubl-BE-11 and ubl-BE-12: exemption reason code and text outside BVERC', '<cbc:Percent>21</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:TaxCategory></cac:TaxSubtotal>', '<cbc:Percent>21</cbc:Percent><cbc:TaxExemptionReasonCode>VATEX-EU-AE</cbc:TaxExemptionReasonCode><cbc:TaxExemptionReason>Autoliquidation</cbc:TaxExemptionReason><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:TaxCategory></cac:TaxSubtotal>', ['ubl-BE-11', 'ubl-BE-12']],
    ['ubl-BE-13: the line VAT amount is not numeric', '<cac:TaxTotal><cbc:TaxAmount currencyID="EUR">21.00</cbc:TaxAmount></cac:TaxTotal>', '<cac:TaxTotal><cbc:TaxAmount currencyID="EUR">n/a</cbc:TaxAmount></cac:TaxTotal>', ['ubl-BE-13']],
    ['ubl-BE-14: the line VAT total is missing', '<cac:TaxTotal><cbc:TaxAmount currencyID="EUR">21.00</cbc:TaxAmount></cac:TaxTotal>', '', ['ubl-BE-14']],
    ['ubl-BE-15: the item VAT category has no name', '<cac:ClassifiedTaxCategory><cbc:ID>S</cbc:ID><cbc:Name>03</cbc:Name>', '<cac:ClassifiedTaxCategory><cbc:ID>S</cbc:ID>', ['ubl-BE-15']],
    ['ubl-BE-05 and ubl-BE-06: delivery terms outside the BELM lists', '<cac:AccountingSupplierParty>', '<cac:Delivery><cac:DeliveryTerms><cbc:ID>BELM-009</cbc:ID><cbc:SpecialTerms>Regime special</cbc:SpecialTerms></cac:DeliveryTerms></cac:Delivery><cac:AccountingSupplierParty>', ['ubl-BE-05', 'ubl-BE-06']],
    ['ubl-BE-07, ubl-BE-08 and ubl-BE-09: a settlement discount without amount and date', '<cac:PaymentTerms><cbc:Note>30 jours</cbc:Note></cac:PaymentTerms>', '<cac:PaymentTerms><cbc:Note>30 jours</cbc:Note><cbc:SettlementDiscountPercent>120</cbc:SettlementDiscountPercent></cac:PaymentTerms>', ['ubl-BE-07', 'ubl-BE-08', 'ubl-BE-09']],
  ])('%s', (_name, from, to, expected) => {
    expect(ids(mutate(from, to))).toEqual(expected);
  });

  it('accepts a BELM special regime with its Dutch text and a valid settlement discount', () => {
    const xml = mutate('<cac:AccountingSupplierParty>', '<cac:Delivery><cac:DeliveryTerms><cbc:ID>BELM-002</cbc:ID><cbc:SpecialTerms>Bijzondere regeling - gebruikte goederen</cbc:SpecialTerms></cac:DeliveryTerms></cac:Delivery><cac:AccountingSupplierParty>')
      .replace('<cac:PaymentTerms><cbc:Note>30 jours</cbc:Note></cac:PaymentTerms>', '<cac:PaymentTerms><cbc:Note>30 jours</cbc:Note><cbc:SettlementDiscountPercent>2</cbc:SettlementDiscountPercent><cbc:Amount currencyID="EUR">2.42</cbc:Amount><cbc:PaymentDueDate>2026-01-25</cbc:PaymentDueDate></cac:PaymentTerms>');
    expect(ids(xml)).toEqual([]);
  });

  it('is selected by the UBL.BE customization only', () => {
    const sel = (xml: string) => validate(xml, { skipXsd: true }).findings.some((f) => f.source.startsWith('br-be@'));
    const broken = mutate('<cac:ClassifiedTaxCategory><cbc:ID>S</cbc:ID><cbc:Name>03</cbc:Name>', '<cac:ClassifiedTaxCategory><cbc:ID>S</cbc:ID>');
    expect(sel(broken)).toBe(true);
    expect(sel(broken.replace('#conformant#urn:UBL.BE:1.0.0.20180214', ''))).toBe(false);
  });
});
