/**
 * The Peppol BIS Billing 3.0.19 pack (schematrons/peppol-bis/3.0.19) beyond the VEFA unit tests
 * (those run in test/conformance): the official full examples, the pack's selection, the shape of
 * its findings, and check-digit cases where our rules differ in method from the published ones.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { validate, getRegistry, type ValidationFinding } from '../../../../services/validation/engine/index.ts';
import { corpusPath } from '../../../support/corpus.ts';

const PEPPOL = corpusPath('peppol-bis-invoice-3');
const CUSTOMIZATION = 'urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0';

const peppolFindings = (xml: string | Buffer): ValidationFinding[] =>
  validate(xml, { packs: ['peppol-bis@3.0.19'], skipXsd: true }).findings.filter((f) => f.source.startsWith('peppol-bis@'));
const summary = (fs: ValidationFinding[]): string[] => fs.map((f) => `${f.rule}:${f.severity}`).sort();

const UBL_NS = 'xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2" ' +
  'xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" ' +
  'xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"';

/** A small German (seller and buyer in DE) Peppol invoice paid by SEPA credit transfer to `iban`. */
function germanInvoice(iban: string): string {
  const party = (city: string) => `<cac:Party><cbc:EndpointID schemeID="9930">DE123456789</cbc:EndpointID>
      <cac:PartyName><cbc:Name>Firma</cbc:Name></cac:PartyName>
      <cac:PostalAddress><cbc:StreetName>Hauptstr. 1</cbc:StreetName><cbc:CityName>${city}</cbc:CityName><cbc:PostalZone>10115</cbc:PostalZone>
        <cac:Country><cbc:IdentificationCode>DE</cbc:IdentificationCode></cac:Country></cac:PostalAddress>
      <cac:PartyTaxScheme><cbc:CompanyID>DE123456789</cbc:CompanyID><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:PartyTaxScheme>
      <cac:PartyLegalEntity><cbc:RegistrationName>Firma GmbH</cbc:RegistrationName></cac:PartyLegalEntity>
      <cac:Contact><cbc:Name>Tina Test</cbc:Name><cbc:Telephone>030 123456</cbc:Telephone><cbc:ElectronicMail>tina@firma.de</cbc:ElectronicMail></cac:Contact>
    </cac:Party>`;
  return `<Invoice ${UBL_NS}>
  <cbc:CustomizationID>${CUSTOMIZATION}</cbc:CustomizationID>
  <cbc:ProfileID>urn:fdc:peppol.eu:2017:poacc:billing:01:1.0</cbc:ProfileID>
  <cbc:ID>R-1</cbc:ID><cbc:IssueDate>2026-01-15</cbc:IssueDate><cbc:InvoiceTypeCode>380</cbc:InvoiceTypeCode>
  <cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode><cbc:BuyerReference>04011000-12345-34</cbc:BuyerReference>
  <cac:AccountingSupplierParty>${party('Berlin')}</cac:AccountingSupplierParty>
  <cac:AccountingCustomerParty>${party('Hamburg')}</cac:AccountingCustomerParty>
  <cac:PaymentMeans><cbc:PaymentMeansCode>58</cbc:PaymentMeansCode><cac:PayeeFinancialAccount><cbc:ID>${iban}</cbc:ID></cac:PayeeFinancialAccount></cac:PaymentMeans>
  <cac:TaxTotal><cbc:TaxAmount currencyID="EUR">19.00</cbc:TaxAmount>
    <cac:TaxSubtotal><cbc:TaxableAmount currencyID="EUR">100.00</cbc:TaxableAmount><cbc:TaxAmount currencyID="EUR">19.00</cbc:TaxAmount>
      <cac:TaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>19</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:TaxCategory></cac:TaxSubtotal>
  </cac:TaxTotal>
  <cac:LegalMonetaryTotal><cbc:LineExtensionAmount currencyID="EUR">100.00</cbc:LineExtensionAmount><cbc:TaxExclusiveAmount currencyID="EUR">100.00</cbc:TaxExclusiveAmount>
    <cbc:TaxInclusiveAmount currencyID="EUR">119.00</cbc:TaxInclusiveAmount><cbc:PayableAmount currencyID="EUR">119.00</cbc:PayableAmount></cac:LegalMonetaryTotal>
  <cac:InvoiceLine><cbc:ID>1</cbc:ID><cbc:InvoicedQuantity unitCode="C62">2</cbc:InvoicedQuantity><cbc:LineExtensionAmount currencyID="EUR">100.00</cbc:LineExtensionAmount>
    <cac:Item><cbc:Name>Ware</cbc:Name><cac:ClassifiedTaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>19</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:ClassifiedTaxCategory></cac:Item>
    <cac:Price><cbc:PriceAmount currencyID="EUR">50.00</cbc:PriceAmount></cac:Price></cac:InvoiceLine>
</Invoice>`;
}

describe('Peppol BIS 3.0.19 pack', () => {
  it('is compiled for UBL and CII and covers every rule id of the official unit tests', () => {
    const reg = getRegistry();
    const ids = new Set(reg.available().filter((f) => f.pack === 'peppol-bis').flatMap((f) => f.ruleIds));
    expect(reg.has('peppol-bis', 'ubl')).toBe(true);
    expect(reg.has('peppol-bis', 'cii')).toBe(true);
    const index = JSON.parse(readFileSync(join(PEPPOL, 'unit-tests-index.json'), 'utf8')) as { tests: { expect: { scope: string[] } }[] }[];
    const tested = new Set(index.flatMap((f) => f.tests.flatMap((t) => t.expect.scope)));
    expect(tested.size).toBe(146);
    expect([...tested].filter((id) => !ids.has(id))).toEqual([]);
  });

  it('runs for documents that claim Peppol BIS Billing and not for others', () => {
    const ok = germanInvoice('DE89370400440532013000');
    expect(validate(ok, { skipXsd: true }).packs.some((p) => p.startsWith('peppol-bis@'))).toBe(true);
    const other = ok.replace(CUSTOMIZATION, 'urn:cen.eu:en16931:2017');
    expect(validate(other, { skipXsd: true }).packs.some((p) => p.startsWith('peppol-bis@'))).toBe(false);
  });

  it('agrees with the official rules on the published full examples and snippets', () => {
    // Official Peppol 3.0.19 results (shared/corpus/README.md §2): all clean but two Greek warnings.
    const oracle: Record<string, string[]> = {
      'GR-base-example-TaxRepresentative.xml': ['GR-S-011:warning'],
      'GR-base-example-correct.xml': ['GR-S-008-1:warning'],
    };
    const dirs = ['examples', 'snippets', 'national-examples/GR', 'national-examples/NO'];
    let n = 0;
    for (const d of dirs) {
      for (const f of readdirSync(join(PEPPOL, 'rules', d)).filter((x) => x.endsWith('.xml'))) {
        const got = summary(peppolFindings(readFileSync(join(PEPPOL, 'rules', d, f))));
        expect({ file: `${d}/${f}`, got }).toEqual({ file: `${d}/${f}`, got: oracle[f] ?? [] });
        n++;
      }
    }
    expect(n).toBe(27);
  });

  it('checks a German IBAN with mod 97 without big-integer arithmetic (DE-R-019)', () => {
    expect(summary(peppolFindings(germanInvoice('DE89370400440532013000')))).toEqual([]);
    expect(summary(peppolFindings(germanInvoice('DE89 3704 0044 0532 0130 00')))).toEqual([]);
    expect(summary(peppolFindings(germanInvoice('DE89370400440532013001')))).toEqual(['DE-R-019:warning']);
  });

  it('gives every finding a message with the found value, a location, BT ids and (for errors) a hint', () => {
    const bad = germanInvoice('DE89370400440532013000')
      .replace('<cbc:ProfileID>urn:fdc:peppol.eu:2017:poacc:billing:01:1.0</cbc:ProfileID>', '<cbc:ProfileID>billing-01</cbc:ProfileID>')
      .replace('<cbc:InvoicedQuantity unitCode="C62">2</cbc:InvoicedQuantity>', '<cbc:InvoicedQuantity unitCode="C62">3</cbc:InvoicedQuantity>')
      .replace('<cbc:EndpointID schemeID="9930">DE123456789</cbc:EndpointID>', '<cbc:EndpointID schemeID="0088">1234567890123</cbc:EndpointID>');
    const fs = peppolFindings(bad);
    expect(summary(fs)).toEqual(['PEPPOL-COMMON-R040:fatal', 'PEPPOL-EN16931-R007:fatal', 'PEPPOL-EN16931-R120:fatal']);
    for (const f of fs) {
      expect(f.message.length).toBeGreaterThan(20);
      expect(f.hint.length).toBeGreaterThan(10);
      expect(f.bt.length + (f.rule.startsWith('PEPPOL-COMMON') ? 1 : 0)).toBeGreaterThan(0);
      expect(f.location).toMatch(/^\/ubl:Invoice\[1\]/);
    }
    const r120 = fs.find((f) => f.rule === 'PEPPOL-EN16931-R120')!;
    expect(r120.message).toContain('100');
    expect(r120.message).toContain('150');
    expect(r120.location).toBe('/ubl:Invoice[1]/cac:InvoiceLine[1]');
    expect(fs.find((f) => f.rule === 'PEPPOL-EN16931-R007')!.message).toContain('billing-01');
  });

  it('applies national rules only to the country they belong to', () => {
    const de = germanInvoice('DE89370400440532013000').replace(/<cac:Contact>[\s\S]*?<\/cac:Contact>/, '');
    expect(summary(peppolFindings(de))).toEqual(['DE-R-002:fatal', 'DE-R-005:fatal', 'DE-R-006:fatal', 'DE-R-007:fatal', 'DE-R-027:warning', 'DE-R-028:warning']);
    const at = de.replace(/<cbc:IdentificationCode>DE<\/cbc:IdentificationCode>/g, '<cbc:IdentificationCode>AT</cbc:IdentificationCode>');
    expect(summary(peppolFindings(at))).toEqual([]);
  });
  it('reports every empty element once, wherever it sits (PEPPOL-EN16931-R008)', () => {
    const xml = germanInvoice('DE89370400440532013000')
      .replace('<cbc:InvoiceTypeCode>380</cbc:InvoiceTypeCode>', '<cbc:InvoiceTypeCode>380</cbc:InvoiceTypeCode><cbc:Note/>')
      .replace('<cbc:ID>1</cbc:ID>', '<cbc:ID>1</cbc:ID><cbc:Note> </cbc:Note>')
      .replace('<cac:Item><cbc:Name>Ware</cbc:Name>', '<cac:Item><cbc:Description/><cbc:Name>Ware</cbc:Name>')
      .replace('<cbc:BuyerReference>', '<cbc:TaxCurrencyCode></cbc:TaxCurrencyCode><cbc:BuyerReference>');
    const r008 = peppolFindings(xml).filter((f) => f.rule === 'PEPPOL-EN16931-R008').map((f) => f.location).sort();
    expect(r008).toEqual([
      '/ubl:Invoice[1]/cac:InvoiceLine[1]/cac:Item[1]/cbc:Description[1]',
      '/ubl:Invoice[1]/cac:InvoiceLine[1]/cbc:Note[1]',
      '/ubl:Invoice[1]/cbc:Note[1]',
      '/ubl:Invoice[1]/cbc:TaxCurrencyCode[1]',
    ]);
  });
  it('applies the Icelandic rules (IS-R-*) to Icelandic sellers', () => {
    const icelandic = (account: string, dueDate: string | null, eindagi: string): string => germanInvoice('DE89370400440532013000')
      .replace(/<cbc:IdentificationCode>DE<\/cbc:IdentificationCode>/g, '<cbc:IdentificationCode>IS</cbc:IdentificationCode>')
      .replace(/<cbc:RegistrationName>Firma GmbH<\/cbc:RegistrationName>/g, '<cbc:RegistrationName>Firma ehf.</cbc:RegistrationName><cbc:CompanyID schemeID="0196">5902697199</cbc:CompanyID>')
      .replace('<cbc:InvoiceTypeCode>', `${dueDate ? `<cbc:DueDate>${dueDate}</cbc:DueDate>` : ''}<cbc:InvoiceTypeCode>`)
      .replace('<cac:AccountingSupplierParty>', `<cac:AdditionalDocumentReference><cbc:ID>${eindagi}</cbc:ID><cbc:DocumentDescription>EINDAGI</cbc:DocumentDescription></cac:AdditionalDocumentReference><cac:AccountingSupplierParty>`)
      .replace(/<cac:PaymentMeans>[\s\S]*?<\/cac:PaymentMeans>/, `<cac:PaymentMeans><cbc:PaymentMeansCode>9</cbc:PaymentMeansCode><cac:PayeeFinancialAccount><cbc:ID>${account}</cbc:ID></cac:PayeeFinancialAccount></cac:PaymentMeans>`);
    expect(summary(peppolFindings(icelandic('011526000123', '2026-02-01', '2026-02-10')))).toEqual([]);
    expect(summary(peppolFindings(icelandic('0115260001', '2026-02-01', '2026-02-10')))).toEqual(['IS-R-006:fatal']);
    expect(summary(peppolFindings(icelandic('011526000123', '2026-02-01', '2026-01-31')))).toEqual(['IS-R-010:fatal']);
    expect(summary(peppolFindings(icelandic('011526000123', null, '2026-02-10')))).toEqual(['IS-R-009:fatal', 'IS-R-010:fatal']);
    expect(summary(peppolFindings(icelandic('011526000123', '2026-02-01', '10.02.2026')))).toEqual(['IS-R-008:fatal', 'IS-R-010:fatal']);
    const noIds = icelandic('011526000123', '2026-02-01', '2026-02-10').replace(/<cbc:CompanyID schemeID="0196">5902697199<\/cbc:CompanyID>/g, '');
    expect(summary(peppolFindings(noIds))).toEqual(['IS-R-002:fatal', 'IS-R-004:fatal']);
  });
});
