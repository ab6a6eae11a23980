/**
 * The French BR-FR (flux 2) pack for UBL, schematrons/br-fr/1.4.0/br-fr-ubl.sch. The corpus has no French UBL
 * sample with an official BR-FR verdict, so the base document is a small French B2B invoice written from the
 * French conventions (SIREN legal identifiers, 0225 electronic addresses, #PMT#/#PMD#/#AAB#/#BAR# notes, billing
 * framework in cbc:ProfileID); each mutation breaks one French rule and must fire that rule only. A second base
 * document is a two-vendor S8 invoice (sub-invoice GROUP/DETAIL lines) for the multi-vendor rules.
 */
import { validate, type ValidationFinding } from '../../../../services/validation/engine/index.ts';

const NS = 'xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2" ' +
  'xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" ' +
  'xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"';

const party = (name: string, siren: string, vat: string) => `<cac:Party><cbc:EndpointID schemeID="0225">${siren}</cbc:EndpointID>
    <cac:PartyIdentification><cbc:ID schemeID="0009">${siren}00012</cbc:ID></cac:PartyIdentification>
    <cac:PostalAddress><cbc:StreetName>1 rue de Rivoli</cbc:StreetName><cbc:CityName>Paris</cbc:CityName><cbc:PostalZone>75001</cbc:PostalZone>
      <cac:Country><cbc:IdentificationCode>FR</cbc:IdentificationCode></cac:Country></cac:PostalAddress>
    <cac:PartyTaxScheme><cbc:CompanyID>${vat}</cbc:CompanyID><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:PartyTaxScheme>
    <cac:PartyLegalEntity><cbc:RegistrationName>${name}</cbc:RegistrationName><cbc:CompanyID schemeID="0002">${siren}</cbc:CompanyID></cac:PartyLegalEntity></cac:Party>`;

const tax = (amount: string, base: string) => `<cac:TaxTotal><cbc:TaxAmount currencyID="EUR">${amount}</cbc:TaxAmount>
    <cac:TaxSubtotal><cbc:TaxableAmount currencyID="EUR">${base}</cbc:TaxableAmount><cbc:TaxAmount currencyID="EUR">${amount}</cbc:TaxAmount>
      <cac:TaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>20</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:TaxCategory></cac:TaxSubtotal></cac:TaxTotal>`;

const invoice = (profile: string, lines: string, totals: { net: string; vat: string; gross: string }) => `<Invoice ${NS}>
  <cbc:CustomizationID>urn:cen.eu:en16931:2017</cbc:CustomizationID><cbc:ProfileID>${profile}</cbc:ProfileID>
  <cbc:ID>F2026-0042</cbc:ID><cbc:IssueDate>2026-09-15</cbc:IssueDate><cbc:DueDate>2026-10-15</cbc:DueDate>
  <cbc:InvoiceTypeCode>380</cbc:InvoiceTypeCode>
  <cbc:Note>#PMT#Indemnité forfaitaire pour frais de recouvrement : 40 €</cbc:Note>
  <cbc:Note>#PMD#Pénalités de retard : trois fois le taux d'intérêt légal</cbc:Note>
  <cbc:Note>#AAB#Pas d'escompte pour paiement anticipé</cbc:Note>
  <cbc:Note>#BAR#B2B</cbc:Note>
  <cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode>
  <cac:AccountingSupplierParty>${party('Vendeur SAS', '123456782', 'FR32123456782')}</cac:AccountingSupplierParty>
  <cac:AccountingCustomerParty>${party('Acheteur SA', '987654321', 'FR12987654321')}</cac:AccountingCustomerParty>
  <cac:PaymentMeans><cbc:PaymentMeansCode>30</cbc:PaymentMeansCode><cac:PayeeFinancialAccount><cbc:ID>FR7630006000011234567890189</cbc:ID></cac:PayeeFinancialAccount></cac:PaymentMeans>
  ${tax(totals.vat, totals.net)}
  <cac:LegalMonetaryTotal><cbc:LineExtensionAmount currencyID="EUR">${totals.net}</cbc:LineExtensionAmount><cbc:TaxExclusiveAmount currencyID="EUR">${totals.net}</cbc:TaxExclusiveAmount>
    <cbc:TaxInclusiveAmount currencyID="EUR">${totals.gross}</cbc:TaxInclusiveAmount><cbc:PayableAmount currencyID="EUR">${totals.gross}</cbc:PayableAmount></cac:LegalMonetaryTotal>
  ${lines}
</Invoice>`;

const line = (id: string, net: string, extra = '', itemExtra = '', exemption = '') => `<cac:InvoiceLine><cbc:ID>${id}</cbc:ID><cbc:InvoicedQuantity unitCode="C62">1</cbc:InvoicedQuantity>
    <cbc:LineExtensionAmount currencyID="EUR">${net}</cbc:LineExtensionAmount>${extra}
    <cac:Item><cbc:Name>Prestation ${id}</cbc:Name>${itemExtra}<cac:ClassifiedTaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>20</cbc:Percent>${exemption}<cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:ClassifiedTaxCategory></cac:Item>
    <cac:Price><cbc:PriceAmount currencyID="EUR">${net}</cbc:PriceAmount></cac:Price></cac:InvoiceLine>`;

const BASE = invoice('S1', line('1', '100.00'), { net: '100.00', vat: '20.00', gross: '120.00' });

const frFindings = (xml: string): ValidationFinding[] =>
  validate(xml, { packs: ['br-fr'], skipXsd: true }).findings.filter((f) => f.source.startsWith('br-fr@'));
const ids = (xml: string): string[] => frFindings(xml).map((f) => f.rule).sort();
const mutate = (base: string, from: string | RegExp, to: string): string => {
  const out = base.replace(from, to);
  if (out === base) throw new Error(`mutation did not apply: ${String(from)}`);
  return out;
};

describe('BR-FR UBL pack on a French B2B invoice', () => {
  it('the base invoice is clean for BR-FR and for the EN 16931 core', () => {
    expect(ids(BASE)).toEqual([]);
    const core = validate(BASE, { packs: ['en16931'], skipXsd: true }).findings.filter((f) => f.severity !== 'warning');
    expect(core.map((f) => f.rule)).toEqual([]);
  });

  it.each([
    ['BR-FR-05_BT-22-1: the recovery fee note is missing', /<cbc:Note>#PMT#[^<]*<\/cbc:Note>/, '', ['BR-FR-05_BT-22-1']],
    ['BR-FR-06_BT-21-3: the discount note twice', '<cbc:Note>#BAR#B2B</cbc:Note>', '<cbc:Note>#BAR#B2B</cbc:Note><cbc:Note>#AAB#Pas d\'escompte</cbc:Note>', ['BR-FR-06_BT-21-3']],
    ['BR-FR-08_BT-23: unknown billing framework', '<cbc:ProfileID>S1</cbc:ProfileID>', '<cbc:ProfileID>urn:fdc:peppol.eu:2017:poacc:billing:01:1.0</cbc:ProfileID>', ['BR-FR-08_BT-23']],
    ['BR-FR-01/02 on BT-1: the invoice number contains a space', '<cbc:ID>F2026-0042</cbc:ID>', '<cbc:ID>F2026 0042</cbc:ID>', ['BR-FR-01_BT-1-2', 'BR-FR-02_BT-1']],
    ['BR-FR-03_BT-9: the due date is not a real date', '<cbc:DueDate>2026-10-15</cbc:DueDate>', '<cbc:DueDate>2026-02-30</cbc:DueDate>', ['BR-FR-03_BT-9', 'BR-FR-CO-07_BT-9']],
    ['BR-FR-09_BT-29: the seller SIRET does not start with the SIREN', '<cbc:ID schemeID="0009">12345678200012</cbc:ID>', '<cbc:ID schemeID="0009">99999999900012</cbc:ID>', ['BR-FR-09_BT-29']],
    ['BR-FR-10_BT-30 and BR-FR-32-LEGALID: the seller SIREN has 8 digits', '<cbc:CompanyID schemeID="0002">123456782</cbc:CompanyID>', '<cbc:CompanyID schemeID="0002">12345678</cbc:CompanyID>', ['BR-FR-09_BT-29', 'BR-FR-10_BT-30', 'BR-FR-32-LEGALID']],
    ['BR-FR-16_BT-119 and BT-152: 19% is not a French VAT rate', /<cbc:Percent>20<\/cbc:Percent>/g, '<cbc:Percent>19</cbc:Percent>', ['BR-FR-16_BT-119', 'BR-FR-16_BT-152']],
    ['BR-FR-20_BT-21: an unknown BAR processing rule', '<cbc:Note>#BAR#B2B</cbc:Note>', '<cbc:Note>#BAR#B2G</cbc:Note>', ['BR-FR-20_BT-21']],
    ['BR-FR-21_BT-49: B2B buyer address outside the French directory scheme', '<cbc:EndpointID schemeID="0225">987654321</cbc:EndpointID>', '<cbc:EndpointID schemeID="0009">98765432100012</cbc:EndpointID>', ['BR-FR-21_BT-49']],
    ['BR-FR-CO-04_BT-3: a corrective invoice without the corrected invoice', '<cbc:InvoiceTypeCode>380</cbc:InvoiceTypeCode>', '<cbc:InvoiceTypeCode>384</cbc:InvoiceTypeCode>', ['BR-FR-CO-04_BT-3']],
    ['BR-FR-CO-12_BT-5: an invoice in USD without VAT in EUR', '<cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode>', '<cbc:DocumentCurrencyCode>USD</cbc:DocumentCurrencyCode>', ['BR-FR-CO-12_BT-5']],
    ['BR-FR-DEC-01_BT-131: a line amount with 3 decimals', '<cbc:LineExtensionAmount currencyID="EUR">100.00</cbc:LineExtensionAmount>\n    <cac:Item>', '<cbc:LineExtensionAmount currencyID="EUR">100.001</cbc:LineExtensionAmount>\n    <cac:Item>', ['BR-FR-DEC-01_BT-131']],
  ])('%s', (_name, from, to, expected) => {
    expect(ids(mutate(BASE, from, to))).toEqual(expected);
  });
});

describe('BR-FR UBL multi-vendor rules (billing framework S8)', () => {
  const own = (status: string, parent?: string) => `<cac:BillingReference><cac:InvoiceDocumentReference><cbc:ID>F2026-0042</cbc:ID><cbc:DocumentStatusCode>${status}</cbc:DocumentStatusCode></cac:InvoiceDocumentReference>${parent ? `<cac:BillingReferenceLine><cbc:ID>${parent}</cbc:ID></cac:BillingReferenceLine>` : ''}</cac:BillingReference>`;
  const sub = (no: string, avv = true) => `<cac:DocumentReference><cbc:ID schemeID="AFL">${no}</cbc:ID><cbc:DocumentTypeCode>130</cbc:DocumentTypeCode></cac:DocumentReference>${avv ? '<cac:DocumentReference><cbc:ID schemeID="AVV">S1</cbc:ID><cbc:DocumentTypeCode>130</cbc:DocumentTypeCode></cac:DocumentReference>' : ''}`;
  const vendor = (siren: string) => `<cac:ManufacturerParty><cac:PostalAddress><cac:Country><cbc:IdentificationCode>FR</cbc:IdentificationCode></cac:Country></cac:PostalAddress><cac:PartyLegalEntity><cbc:RegistrationName>Vendeur ${siren}</cbc:RegistrationName><cbc:CompanyID schemeID="0002">${siren}</cbc:CompanyID></cac:PartyLegalEntity></cac:ManufacturerParty>`;
  const lines = [
    line('1', '100.00', own('GROUP') + sub('F2026-0042') + '<cac:TaxTotal><cbc:TaxAmount currencyID="EUR">20.00</cbc:TaxAmount></cac:TaxTotal>', vendor('123456782')),
    line('2', '100.00', own('DETAIL', '1') + sub('F2026-0042', false), vendor('123456782')),
  ].join('\n');
  const MV = invoice('S8', lines, { net: '200.00', vat: '40.00', gross: '240.00' })
    .replace('<cbc:TaxAmount currencyID="EUR">40.00</cbc:TaxAmount>\n    <cac:TaxSubtotal><cbc:TaxableAmount currencyID="EUR">200.00</cbc:TaxableAmount><cbc:TaxAmount currencyID="EUR">40.00</cbc:TaxAmount>\n      <cac:TaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>20</cbc:Percent>',
      '<cbc:TaxAmount currencyID="EUR">40.00</cbc:TaxAmount>\n    <cac:TaxSubtotal><cbc:TaxableAmount currencyID="EUR">200.00</cbc:TaxableAmount><cbc:TaxAmount currencyID="EUR">40.00</cbc:TaxAmount>\n      <cac:TaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>20</cbc:Percent><cbc:TaxExemptionReason>#F2026-0042#</cbc:TaxExemptionReason>');

  it('the two-line S8 invoice breaks only the rules whose data it leaves out', () => {
    // The GROUP line carries its sub-invoice VAT (20.00) while the only VAT breakdown tagged #F2026-0042# holds 40.00,
    // and the DETAIL line has no #sub-invoice# exemption reason: BR-FR-MV-09 and BR-FR-MV-08 must say so.
    expect(ids(MV)).toEqual(['BR-FR-MV-08_BT-128', 'BR-FR-MV-09_EXT-FR-FE-181']);
  });

  it('BR-FR-MV-06: a sub-line with another vendor than its GROUP line', () => {
    const xml = mutate(MV, /(<cbc:ID>2<\/cbc:ID>[\s\S]*?<cbc:CompanyID schemeID="0002">)123456782/, '$1111111118');
    expect(ids(xml)).toContain('BR-FR-MV-06_EXT-FR-FE-167');
  });

  it('BR-FR-MV-01: a line without sub-type', () => {
    const xml = mutate(MV, '<cbc:DocumentStatusCode>DETAIL</cbc:DocumentStatusCode>', '<cbc:DocumentStatusCode></cbc:DocumentStatusCode>');
    expect(ids(xml)).toContain('BR-FR-MV-01_EXT-FR-FE-163');
  });

  it('BR-FR-MV-02: no GROUP line at all', () => {
    const xml = mutate(MV, '<cbc:DocumentStatusCode>GROUP</cbc:DocumentStatusCode>', '<cbc:DocumentStatusCode>DETAIL</cbc:DocumentStatusCode>');
    expect(ids(xml)).toContain('BR-FR-MV-02_EXT-FR-FE-163');
  });
});

describe('BR-FR UBL pack on a credit note', () => {
  const toCreditNote = (xml: string) => xml
    .replace('<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"', '<CreditNote xmlns="urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"')
    .replace('</Invoice>', '</CreditNote>')
    .replace('<cbc:InvoiceTypeCode>380</cbc:InvoiceTypeCode>', '<cbc:CreditNoteTypeCode>381</cbc:CreditNoteTypeCode>')
    .replace(/cac:InvoiceLine>/g, 'cac:CreditNoteLine>')
    .replace(/cbc:InvoicedQuantity/g, 'cbc:CreditedQuantity')
    .replace('<cbc:DueDate>2026-10-15</cbc:DueDate>', '');
  const CN = toCreditNote(BASE);

  it('BR-FR-CO-05_BT-3: a credit note must reference the credited invoice', () => {
    expect(ids(CN)).toEqual(['BR-FR-CO-05_BT-3']);
  });

  it('is clean once the credited invoice is referenced, and the rules read CreditNote paths', () => {
    const ok = CN.replace('<cbc:DocumentCurrencyCode>', '<cbc:DocumentCurrencyCode>').replace('<cac:AccountingSupplierParty>',
      '<cac:BillingReference><cac:InvoiceDocumentReference><cbc:ID>F2026-0001</cbc:ID><cbc:IssueDate>2026-09-01</cbc:IssueDate></cac:InvoiceDocumentReference></cac:BillingReference><cac:AccountingSupplierParty>');
    expect(ids(ok)).toEqual([]);
    expect(ids(ok.replace('<cbc:CreditedQuantity unitCode="C62">1</cbc:CreditedQuantity>', '<cbc:CreditedQuantity unitCode="C62">1.12345</cbc:CreditedQuantity>'))).toEqual(['BR-FR-DEC-02_BT-129']);
  });
});
