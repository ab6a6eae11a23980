/**
 * The Romanian pack (schematrons/cius-ro/1.0.1): the BR-RO rules on the CIUS-RO invoice our writer makes
 * of test/support/romanian-invoice.ts (ANAF publishes no example set we can reach; see
 * test/conformance/cius-ro.spec.ts for the official CEN examples declared CIUS-RO); each mutation breaks
 * one rule, and the rule's own id comes back, once per context node.
 */
import { validate, type ValidationFinding } from '../../../../services/validation/engine/index.ts';
import { jsonToCanonical, canonicalToCiusRoUbl } from '../../../../mappings/index.ts';
import { romanianJsonInvoice } from '../../../support/romanian-invoice.ts';

const BASE = canonicalToCiusRoUbl(jsonToCanonical({ type: 'invoice', document: romanianJsonInvoice('FCT-2026-001') }, { today: '2026-11-02' }));
const CREDIT = canonicalToCiusRoUbl(jsonToCanonical({ type: 'credit-note', document: romanianJsonInvoice('CN-2026-001', { dueDate: undefined }) }, { today: '2026-11-02' }));

const roFindings = (xml: string): ValidationFinding[] =>
  validate(xml, { packs: ['cius-ro'], skipXsd: true }).findings.filter((f) => f.source.startsWith('cius-ro@'));
const ids = (xml: string): string[] => roFindings(xml).map((f) => f.rule).sort();
const mutate = (from: string | RegExp, to: string, base = BASE): string => {
  const out = base.replace(from, to);
  if (out === base) throw new Error(`mutation did not apply: ${String(from)}`);
  return out;
};
const SELLER_ADDRESS = /(<cac:AccountingSupplierParty>[\s\S]*?<cac:PostalAddress>)([\s\S]*?)(<\/cac:PostalAddress>)/;
const BUYER_ADDRESS = /(<cac:AccountingCustomerParty>[\s\S]*?<cac:PostalAddress>)([\s\S]*?)(<\/cac:PostalAddress>)/;
const sellerAddress = (inner: string) => mutate(SELLER_ADDRESS, `$1${inner}$3`);
const buyerAddress = (inner: string) => mutate(BUYER_ADDRESS, `$1${inner}$3`);
const RO = '<cac:Country><cbc:IdentificationCode>RO</cbc:IdentificationCode></cac:Country>';
const long = (n: number) => 'x'.repeat(n);
const delivery = (address: string) => mutate('<cac:TaxTotal>', `<cac:Delivery><cac:DeliveryLocation><cac:Address>${address}</cac:Address></cac:DeliveryLocation></cac:Delivery><cac:TaxTotal>`);

describe('CIUS-RO rules (cius-ro pack)', () => {
  it('the base invoice and credit note are clean, and pass the EN 16931 core', () => {
    expect(ids(BASE)).toEqual([]);
    expect(ids(CREDIT)).toEqual([]);
    for (const xml of [BASE, CREDIT]) {
      expect(validate(xml, { packs: ['en16931'] }).findings.filter((f) => f.severity !== 'warning').map((f) => f.rule)).toEqual([]);
    }
  });

  it.each([
    ['BR-RO-001: BT-24 of another CIUS-RO version', 'CIUS-RO:1.0.1</cbc:CustomizationID>', 'CIUS-RO:1.0.0</cbc:CustomizationID>', ['BR-RO-001']],
    ['BR-RO-010: an invoice number without a digit', '<cbc:ID>FCT-2026-001</cbc:ID>', '<cbc:ID>FCT-ABC</cbc:ID>', ['BR-RO-010']],
    ['BR-RO-L155: an invoice number over 200 characters', '<cbc:ID>FCT-2026-001</cbc:ID>', `<cbc:ID>1${long(200)}</cbc:ID>`, ['BR-RO-L155']],
    ['BR-RO-020: invoice type 326 (partial invoice)', '<cbc:InvoiceTypeCode>380</cbc:InvoiceTypeCode>', '<cbc:InvoiceTypeCode>326</cbc:InvoiceTypeCode>', ['BR-RO-020']],
    ['BR-RO-030: an invoice in EUR without RON as the VAT currency', '<cbc:DocumentCurrencyCode>RON</cbc:DocumentCurrencyCode>', '<cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode>', ['BR-RO-030']],
    ['BR-RO-A020: 21 notes', '<cbc:InvoiceTypeCode>380</cbc:InvoiceTypeCode>', `<cbc:InvoiceTypeCode>380</cbc:InvoiceTypeCode>${'<cbc:Note>n</cbc:Note>'.repeat(21)}`, ['BR-RO-A020']],
    ['BR-RO-065: the seller has no VAT or tax registration id', /<cac:PartyTaxScheme><cbc:CompanyID>RO18547290<\/cbc:CompanyID><cac:TaxScheme><cbc:ID>VAT<\/cbc:ID><\/cac:TaxScheme><\/cac:PartyTaxScheme>/, '', ['BR-RO-065']],
    ['BR-RO-120: the buyer has neither CUI nor VAT id', /<cac:PartyTaxScheme><cbc:CompanyID>RO14399840<\/cbc:CompanyID><cac:TaxScheme><cbc:ID>VAT<\/cbc:ID><\/cac:TaxScheme><\/cac:PartyTaxScheme><cac:PartyLegalEntity><cbc:RegistrationName>Client Comercial SA<\/cbc:RegistrationName><cbc:CompanyID>14399840<\/cbc:CompanyID>/, '<cac:PartyLegalEntity><cbc:RegistrationName>Client Comercial SA</cbc:RegistrationName>', ['BR-RO-120']],
    ['BR-RO-040: VAT point date code 5', '<cbc:DocumentCurrencyCode>RON</cbc:DocumentCurrencyCode>', '<cbc:DocumentCurrencyCode>RON</cbc:DocumentCurrencyCode><cac:InvoicePeriod><cbc:DescriptionCode>5</cbc:DescriptionCode></cac:InvoicePeriod>', ['BR-RO-040']],
    ['BR-RO-L1024: an item name over 100 characters', '<cbc:Name>Licență software</cbc:Name>', `<cbc:Name>${long(101)}</cbc:Name>`, ['BR-RO-L1024']],
    ['BR-RO-L1021: a line accounting reference over 100 characters', '<cbc:LineExtensionAmount currencyID="RON">1000.00</cbc:LineExtensionAmount><cac:Item>', `<cbc:LineExtensionAmount currencyID="RON">1000.00</cbc:LineExtensionAmount><cbc:AccountingCost>${long(101)}</cbc:AccountingCost><cac:Item>`, ['BR-RO-L1021']],
    ['BR-RO-L1001: a buyer accounting reference over 100 characters', '<cbc:DocumentCurrencyCode>RON</cbc:DocumentCurrencyCode>', `<cbc:DocumentCurrencyCode>RON</cbc:DocumentCurrencyCode><cbc:AccountingCost>${long(101)}</cbc:AccountingCost>`, ['BR-RO-L1001']],
    ['BR-RO-L0303: an order reference over 200 characters', '<cac:AccountingSupplierParty>', `<cac:OrderReference><cbc:ID>${long(201)}</cbc:ID></cac:OrderReference><cac:AccountingSupplierParty>`, ['BR-RO-L0303']],
    ['BR-RO-L0302: a contract reference over 200 characters', '<cac:AccountingSupplierParty>', `<cac:ContractDocumentReference><cbc:ID>${long(201)}</cbc:ID></cac:ContractDocumentReference><cac:AccountingSupplierParty>`, ['BR-RO-L0302']],
    ['BR-RO-L208 and BR-RO-L140: payment account name and remittance information too long', '<cac:TaxTotal>', `<cac:PaymentMeans><cbc:PaymentMeansCode>30</cbc:PaymentMeansCode><cbc:PaymentID>${long(141)}</cbc:PaymentID><cac:PayeeFinancialAccount><cbc:ID>RO49AAAA1B31007593840000</cbc:ID><cbc:Name>${long(201)}</cbc:Name></cac:PayeeFinancialAccount></cac:PaymentMeans><cac:TaxTotal>`, ['BR-RO-L140', 'BR-RO-L208']],
  ])('%s', (_name, from, to, expected) => {
    expect(ids(mutate(from, to))).toEqual(expected);
  });

  it.each([
    ['BR-RO-081 and BR-RO-091: the seller has no street and no city', 'seller', `<cbc:CountrySubentity>RO-CJ</cbc:CountrySubentity>${RO}`, ['BR-RO-081', 'BR-RO-091']],
    ['BR-RO-082 and BR-RO-092: the buyer has no street and no city (a Bucharest buyer also misses its sector)', 'buyer', `<cbc:CountrySubentity>RO-B</cbc:CountrySubentity>${RO}`, ['BR-RO-082', 'BR-RO-092', 'BR-RO-101']],
    ['BR-RO-100: a Bucharest seller whose city is not a sector', 'seller', `<cbc:StreetName>Calea Victoriei 1</cbc:StreetName><cbc:CityName>Bucuresti</cbc:CityName><cbc:CountrySubentity>RO-B</cbc:CountrySubentity>${RO}`, ['BR-RO-100']],
    ['BR-RO-110: a Romanian seller whose county is a name', 'seller', `<cbc:StreetName>Str. A 1</cbc:StreetName><cbc:CityName>Cluj-Napoca</cbc:CityName><cbc:CountrySubentity>Cluj</cbc:CountrySubentity>${RO}`, ['BR-RO-110']],
    ['BR-RO-110: a Romanian seller without a county', 'seller', `<cbc:StreetName>Str. A 1</cbc:StreetName><cbc:CityName>Cluj-Napoca</cbc:CityName>${RO}`, ['BR-RO-110']],
    ['BR-RO-111: a Romanian buyer whose county is not a code', 'buyer', `<cbc:StreetName>Str. A 1</cbc:StreetName><cbc:CityName>Iasi</cbc:CityName><cbc:CountrySubentity>RO-XX</cbc:CountrySubentity>${RO}`, ['BR-RO-111']],
    ['BR-RO-L0201, BR-RO-L0501 and BR-RO-L151: seller post code, city and street too long', 'seller', `<cbc:StreetName>${long(151)}</cbc:StreetName><cbc:CityName>${long(51)}</cbc:CityName><cbc:PostalZone>${long(21)}</cbc:PostalZone><cbc:CountrySubentity>RO-CJ</cbc:CountrySubentity>${RO}`, ['BR-RO-L0201', 'BR-RO-L0501', 'BR-RO-L151']],
    ['BR-RO-L0202, BR-RO-L0502 and BR-RO-L152: buyer post code, city and street too long', 'buyer', `<cbc:StreetName>${long(151)}</cbc:StreetName><cbc:CityName>${long(51)}</cbc:CityName><cbc:PostalZone>${long(21)}</cbc:PostalZone><cbc:CountrySubentity>RO-CJ</cbc:CountrySubentity>${RO}`, ['BR-RO-L0202', 'BR-RO-L0502', 'BR-RO-L152']],
  ])('%s', (_name, who, inner, expected) => {
    expect(ids(who === 'seller' ? sellerAddress(inner) : buyerAddress(inner))).toEqual(expected);
  });

  it('a foreign party needs no county: a German buyer without subdivision is clean', () => {
    expect(ids(buyerAddress('<cbc:StreetName>Hauptstr. 1</cbc:StreetName><cbc:CityName>Berlin</cbc:CityName><cac:Country><cbc:IdentificationCode>DE</cbc:IdentificationCode></cac:Country>'))).toEqual([]);
  });

  it('BR-RO-180, BR-RO-201, BR-RO-211: an empty delivery address; BR-RO-202 / BR-RO-212 for a Romanian one badly coded', () => {
    expect(ids(delivery(RO))).toEqual(['BR-RO-180', 'BR-RO-201', 'BR-RO-211']);
    expect(ids(delivery(`<cbc:StreetName>Str. B 2</cbc:StreetName><cbc:CityName>Bucuresti</cbc:CityName><cbc:CountrySubentity>RO-B</cbc:CountrySubentity>${RO}`))).toEqual(['BR-RO-202']);
    expect(ids(delivery(`<cbc:StreetName>Str. B 2</cbc:StreetName><cbc:CityName>Brasov</cbc:CityName><cbc:CountrySubentity>Brasov</cbc:CountrySubentity>${RO}`))).toEqual(['BR-RO-212']);
    expect(ids(delivery(`<cbc:StreetName>Str. B 2</cbc:StreetName><cbc:CityName>SECTOR5</cbc:CityName><cbc:CountrySubentity>RO-B</cbc:CountrySubentity>${RO}`))).toEqual([]);
  });

  it('BR-RO-140, BR-RO-150, BR-RO-160, BR-RO-170: the tax representative address', () => {
    const rep = (address: string) => mutate('<cac:TaxTotal>', `<cac:TaxRepresentativeParty><cac:PartyName><cbc:Name>Rep SRL</cbc:Name></cac:PartyName><cac:PostalAddress>${address}</cac:PostalAddress><cac:PartyTaxScheme><cbc:CompanyID>RO1234567</cbc:CompanyID><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:PartyTaxScheme></cac:TaxRepresentativeParty><cac:TaxTotal>`);
    expect(ids(rep(`<cbc:CountrySubentity>RO-B</cbc:CountrySubentity>${RO}`))).toEqual(['BR-RO-140', 'BR-RO-150', 'BR-RO-160']);
    expect(ids(rep(`<cbc:StreetName>S 1</cbc:StreetName><cbc:CityName>Arad</cbc:CityName>${RO}`))).toEqual(['BR-RO-170']);
  });

  it('BR-RO-020 on a credit note: only 381', () => {
    expect(ids(mutate('<cbc:CreditNoteTypeCode>381</cbc:CreditNoteTypeCode>', '<cbc:CreditNoteTypeCode>380</cbc:CreditNoteTypeCode>', CREDIT))).toEqual(['BR-RO-020']);
  });

  it('messages say what was found and the hint how to fix it', () => {
    const [f] = roFindings(sellerAddress(`<cbc:StreetName>Str. A 1</cbc:StreetName><cbc:CityName>Cluj-Napoca</cbc:CityName><cbc:CountrySubentity>Cluj</cbc:CountrySubentity>${RO}`));
    expect(f).toMatchObject({ rule: 'BR-RO-110', severity: 'fatal', bt: ['BT-39'] });
    expect(f!.message).toContain('found "Cluj"');
    expect(f!.hint).toContain('RO-AB');
  });

  it('a repeated single element (schema-invalid, but seen) gives findings, never an evaluation error', () => {
    const twice = (from: string) => mutate(from, from + from);
    for (const xml of [twice('<cbc:ID>FCT-2026-001</cbc:ID>'), twice('<cbc:CountrySubentity>RO-B</cbc:CountrySubentity>'), twice('<cbc:DocumentCurrencyCode>RON</cbc:DocumentCurrencyCode>'), twice('<cbc:Name>Licență software</cbc:Name>')]) {
      expect(validate(xml, { packs: ['cius-ro'], skipXsd: true }).findings.filter((f) => f.rule === 'RULE-EVALUATION-ERROR')).toEqual([]);
    }
  });

  it('is selected by the CIUS-RO customization only', () => {
    const broken = mutate('<cbc:ID>FCT-2026-001</cbc:ID>', '<cbc:ID>FCT-ABC</cbc:ID>');
    const sel = (xml: string) => validate(xml, { skipXsd: true }).findings.some((f) => f.source.startsWith('cius-ro@'));
    expect(sel(broken)).toBe(true);
    expect(sel(broken.replace('#compliant#urn:efactura.mfinante.ro:CIUS-RO:1.0.1', ''))).toBe(false);
    // An older CIUS-RO still selects the pack, which then refuses its BT-24 (BR-RO-001).
    expect(ids(BASE.replace('CIUS-RO:1.0.1', 'CIUS-RO:1.0.0'))).toEqual(['BR-RO-001']);
  });
});
