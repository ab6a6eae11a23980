/**
 * The Peppol BIS Billing releases after 3.0.19 (schematrons/peppol-bis/3.0.20 = OpenPeppol 2025.11,
 * mandatory from 2026-02-23; 3.0.21 = OpenPeppol 2026.5, mandatory from 2026-08-24) and the choice of
 * release by the document's issue date (pack.json select.issuedFrom / issuedBefore).
 *
 * Every rule that changed between 3.0.19 and 3.0.21 gets a passing and a failing case on our own small
 * documents; the official examples of each release are run outside the repository (NOTES.md records
 * the result: all clean).
 */
import { validate } from '../../../../services/validation/engine/index.ts';

const CUSTOMIZATION = 'urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0';
const BILLING_01 = 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0';
const UBL_NS = 'xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2" ' +
  'xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" ' +
  'xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"';

type Release = '3.0.19' | '3.0.20' | '3.0.21';
const RELEASES: Release[] = ['3.0.19', '3.0.20', '3.0.21'];

interface Doc {
  issueDate?: string | null;
  profile?: string;
  customization?: string;
  country?: string;
  currency?: string;
  typeCode?: string;
  sellerEndpoint?: string;
  sellerIds?: string;
  sellerVat?: string;
  buyerLegal?: string;
  contactEmail?: string;
  paymentMeans?: string;
  extraDocRef?: string;
  lineClassification?: string;
}

/** A small Peppol invoice; seller and buyer in `country` (default BE, which has no national Peppol rules). */
function invoice(d: Doc = {}): string {
  const c = d.country ?? 'BE';
  const cur = d.currency ?? 'EUR';
  const party = (city: string, extra: string, vat: string, legal: string) => `<cac:Party>${city === 'Seller' ? (d.sellerEndpoint ?? '<cbc:EndpointID schemeID="9925">BE0123456749</cbc:EndpointID>') : '<cbc:EndpointID schemeID="9925">BE0987654321</cbc:EndpointID>'}
      ${extra}
      <cac:PartyName><cbc:Name>${city} Ltd</cbc:Name></cac:PartyName>
      <cac:PostalAddress><cbc:StreetName>Street 1</cbc:StreetName><cbc:CityName>${city}town</cbc:CityName><cbc:PostalZone>1000</cbc:PostalZone>
        <cac:Country><cbc:IdentificationCode>${c}</cbc:IdentificationCode></cac:Country></cac:PostalAddress>
      ${vat}
      <cac:PartyLegalEntity><cbc:RegistrationName>${city} Ltd</cbc:RegistrationName>${legal}</cac:PartyLegalEntity>
      <cac:Contact><cbc:Name>Tina Test</cbc:Name><cbc:Telephone>030 123456</cbc:Telephone><cbc:ElectronicMail>${d.contactEmail ?? 'tina@example.com'}</cbc:ElectronicMail></cac:Contact>
    </cac:Party>`;
  const issue = d.issueDate === null ? '' : `<cbc:IssueDate>${d.issueDate ?? '2026-05-04'}</cbc:IssueDate>`;
  return `<Invoice ${UBL_NS}>
  <cbc:CustomizationID>${d.customization ?? CUSTOMIZATION}</cbc:CustomizationID>
  <cbc:ProfileID>${d.profile ?? BILLING_01}</cbc:ProfileID>
  <cbc:ID>INV-1</cbc:ID>${issue}<cbc:InvoiceTypeCode>${d.typeCode ?? '380'}</cbc:InvoiceTypeCode>
  <cbc:DocumentCurrencyCode>${cur}</cbc:DocumentCurrencyCode><cbc:BuyerReference>REF-1</cbc:BuyerReference>
  ${d.extraDocRef ?? ''}
  <cac:AccountingSupplierParty>${party('Seller', d.sellerIds ?? '', d.sellerVat ?? '', '')}</cac:AccountingSupplierParty>
  <cac:AccountingCustomerParty>${party('Buyer', '', '', d.buyerLegal ?? '')}</cac:AccountingCustomerParty>
  ${d.paymentMeans ?? '<cac:PaymentMeans><cbc:PaymentMeansCode>30</cbc:PaymentMeansCode><cac:PayeeFinancialAccount><cbc:ID>BE68539007547034</cbc:ID></cac:PayeeFinancialAccount></cac:PaymentMeans>'}
  <cac:TaxTotal><cbc:TaxAmount currencyID="${cur}">21.00</cbc:TaxAmount>
    <cac:TaxSubtotal><cbc:TaxableAmount currencyID="${cur}">100.00</cbc:TaxableAmount><cbc:TaxAmount currencyID="${cur}">21.00</cbc:TaxAmount>
      <cac:TaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>21</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:TaxCategory></cac:TaxSubtotal>
  </cac:TaxTotal>
  <cac:LegalMonetaryTotal><cbc:LineExtensionAmount currencyID="${cur}">100.00</cbc:LineExtensionAmount><cbc:TaxExclusiveAmount currencyID="${cur}">100.00</cbc:TaxExclusiveAmount>
    <cbc:TaxInclusiveAmount currencyID="${cur}">121.00</cbc:TaxInclusiveAmount><cbc:PayableAmount currencyID="${cur}">121.00</cbc:PayableAmount></cac:LegalMonetaryTotal>
  <cac:InvoiceLine><cbc:ID>1</cbc:ID><cbc:InvoicedQuantity unitCode="C62">2</cbc:InvoicedQuantity><cbc:LineExtensionAmount currencyID="${cur}">100.00</cbc:LineExtensionAmount>
    <cac:Item><cbc:Name>Goods</cbc:Name>${d.lineClassification ?? ''}<cac:ClassifiedTaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>21</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:ClassifiedTaxCategory></cac:Item>
    <cac:Price><cbc:PriceAmount currencyID="${cur}">50.00</cbc:PriceAmount></cac:Price></cac:InvoiceLine>
</Invoice>`;
}

/** A minimal Peppol CII invoice (only what the selection and the rules asserted on below need). */
function ciiInvoice(o: { date?: string; format?: string; profile?: string; endpointScheme?: string } = {}): string {
  return `<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"
    xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100"
    xmlns:udt="urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100">
  <rsm:ExchangedDocumentContext>
    <ram:BusinessProcessSpecifiedDocumentContextParameter><ram:ID>${o.profile ?? BILLING_01}</ram:ID></ram:BusinessProcessSpecifiedDocumentContextParameter>
    <ram:GuidelineSpecifiedDocumentContextParameter><ram:ID>${CUSTOMIZATION}</ram:ID></ram:GuidelineSpecifiedDocumentContextParameter>
  </rsm:ExchangedDocumentContext>
  <rsm:ExchangedDocument><ram:ID>INV-1</ram:ID><ram:TypeCode>380</ram:TypeCode>
    <ram:IssueDateTime><udt:DateTimeString format="${o.format ?? '102'}">${o.date ?? '20260504'}</udt:DateTimeString></ram:IssueDateTime></rsm:ExchangedDocument>
  <rsm:SupplyChainTradeTransaction><ram:ApplicableHeaderTradeAgreement>
    <ram:SellerTradeParty><ram:Name>Seller</ram:Name><ram:URIUniversalCommunication><ram:URIID schemeID="${o.endpointScheme ?? '9925'}">BE0123456749</ram:URIID></ram:URIUniversalCommunication></ram:SellerTradeParty>
    <ram:BuyerTradeParty><ram:Name>Buyer</ram:Name><ram:URIUniversalCommunication><ram:URIID schemeID="9925">BE0987654321</ram:URIID></ram:URIUniversalCommunication></ram:BuyerTradeParty>
  </ram:ApplicableHeaderTradeAgreement></rsm:SupplyChainTradeTransaction>
</rsm:CrossIndustryInvoice>`;
}

/** Findings of one release as `RULE:severity`, sorted (only the Peppol pack runs). */
const run = (xml: string, release: Release): string[] =>
  validate(xml, { packs: [`peppol-bis@${release}`], skipXsd: true }).findings.map((f) => `${f.rule}:${f.severity}`).sort();
/** Findings of `rule` under each release, e.g. { '3.0.19': [], '3.0.20': ['X:warning'], '3.0.21': ['X:fatal'] }. */
const byRelease = (xml: string, rule: string): Record<Release, string[]> =>
  Object.fromEntries(RELEASES.map((r) => [r, run(xml, r).filter((x) => x.startsWith(`${rule}:`))])) as Record<Release, string[]>;
const peppolPack = (xml: string, options: Parameters<typeof validate>[1] = {}): string[] =>
  validate(xml, { skipXsd: true, ...options }).packs.filter((p) => p.startsWith('peppol-bis@'));

describe('Peppol BIS releases: selection by issue date', () => {
  it('the base documents are clean under every release', () => {
    for (const r of RELEASES) expect({ r, got: run(invoice(), r) }).toEqual({ r, got: [] });
  });

  it('picks 3.0.19 before 2026-02-23, 3.0.20 from 2026-02-23, 3.0.21 from 2026-08-24 (UBL cbc:IssueDate)', () => {
    expect(peppolPack(invoice({ issueDate: '2026-02-22' }))).toEqual(['peppol-bis@3.0.19']);
    expect(peppolPack(invoice({ issueDate: '2026-02-23' }))).toEqual(['peppol-bis@3.0.20']);
    expect(peppolPack(invoice({ issueDate: '2026-08-23' }))).toEqual(['peppol-bis@3.0.20']);
    expect(peppolPack(invoice({ issueDate: '2026-08-24' }))).toEqual(['peppol-bis@3.0.21']);
    expect(peppolPack(invoice({ issueDate: '2017-11-13' }))).toEqual(['peppol-bis@3.0.19']);
    expect(peppolPack(invoice({ issueDate: '2026-02-23+01:00' }))).toEqual(['peppol-bis@3.0.20']);
  });

  it('gives a document without a readable issue date the newest release', () => {
    expect(peppolPack(invoice({ issueDate: null }))).toEqual(['peppol-bis@3.0.21']);
    expect(peppolPack(invoice({ issueDate: '2026-02-30' }))).toEqual(['peppol-bis@3.0.21']);
    expect(peppolPack(invoice({ issueDate: '23.02.2026' }))).toEqual(['peppol-bis@3.0.21']);
  });

  it('reads the CII issue date (format 102)', () => {
    expect(peppolPack(ciiInvoice({ date: '20260222' }))).toEqual(['peppol-bis@3.0.19']);
    expect(peppolPack(ciiInvoice({ date: '20260223' }))).toEqual(['peppol-bis@3.0.20']);
    expect(peppolPack(ciiInvoice({ date: '20260824' }))).toEqual(['peppol-bis@3.0.21']);
    expect(peppolPack(ciiInvoice({ date: '2026-02-22', format: '203' }))).toEqual(['peppol-bis@3.0.21']);
  });

  it('chooses the release the same way when the pack is forced by id or applied by the network', () => {
    expect(peppolPack(invoice({ issueDate: '2026-02-22' }), { packs: ['peppol-bis'] })).toEqual(['peppol-bis@3.0.19']);
    expect(peppolPack(invoice({ issueDate: '2026-09-01' }), { packs: ['peppol-bis'] })).toEqual(['peppol-bis@3.0.21']);
    expect(peppolPack(invoice({ issueDate: '2026-02-22' }), { packs: ['peppol-bis@3.0.21'] })).toEqual(['peppol-bis@3.0.21']);
    const plain = invoice({ issueDate: '2026-03-01', customization: 'urn:cen.eu:en16931:2017' });
    expect(peppolPack(plain)).toEqual([]);
    expect(peppolPack(plain, { networkPacks: ['peppol-bis'] })).toEqual(['peppol-bis@3.0.20']);
  });

  it('an EAS 0193 endpoint passes under 3.0.19 and fails under 2026.5; 0242 the reverse', () => {
    const e0193 = invoice({ sellerEndpoint: '<cbc:EndpointID schemeID="0193">UBLBE0123456749</cbc:EndpointID>' });
    expect(byRelease(e0193, 'PEPPOL-EN16931-CL008')).toEqual({ '3.0.19': [], '3.0.20': [], '3.0.21': ['PEPPOL-EN16931-CL008:fatal'] });
    const e0242 = invoice({ sellerEndpoint: '<cbc:EndpointID schemeID="0242">123456789</cbc:EndpointID>' });
    expect(byRelease(e0242, 'PEPPOL-EN16931-CL008')).toEqual({ '3.0.19': ['PEPPOL-EN16931-CL008:fatal'], '3.0.20': ['PEPPOL-EN16931-CL008:fatal'], '3.0.21': [] });
    // by issue date, through the registry's selection
    const at = (date: string, xml: string): string[] => validate(xml.replace('2026-05-04', date), { skipXsd: true }).findings
      .filter((f) => f.rule === 'PEPPOL-EN16931-CL008').map((f) => f.source);
    expect(at('2026-02-22', e0193)).toEqual([]);
    expect(at('2026-08-24', e0193)).toEqual(['peppol-bis@3.0.21']);
    expect(at('2026-02-22', e0242)).toEqual(['peppol-bis@3.0.19']);
    expect(at('2026-08-24', e0242)).toEqual([]);
    // the same code list in CII
    expect(RELEASES.map((r) => run(ciiInvoice({ endpointScheme: '0193' }), r).includes('PEPPOL-EN16931-CL008:fatal'))).toEqual([false, false, true]);
    expect(RELEASES.map((r) => run(ciiInvoice({ endpointScheme: '0242' }), r).includes('PEPPOL-EN16931-CL008:fatal'))).toEqual([true, true, false]);
  });
});

describe('Peppol BIS 3.0.20 (2025.11) rule changes', () => {
  it('EAS: 0244 and 0245 added', () => {
    for (const scheme of ['0244', '0245']) {
      const xml = invoice({ sellerEndpoint: `<cbc:EndpointID schemeID="${scheme}">12345678</cbc:EndpointID>` });
      expect(byRelease(xml, 'PEPPOL-EN16931-CL008')).toEqual({ '3.0.19': ['PEPPOL-EN16931-CL008:fatal'], '3.0.20': [], '3.0.21': [] });
    }
  });

  it('ISO 4217: CNH added; STN replaced by STD in 3.0.20 and back in 3.0.21', () => {
    expect(byRelease(invoice({ currency: 'CNH' }), 'PEPPOL-EN16931-CL007')['3.0.19'].length).toBeGreaterThan(0);
    expect(byRelease(invoice({ currency: 'CNH' }), 'PEPPOL-EN16931-CL007')['3.0.20']).toEqual([]);
    expect(byRelease(invoice({ currency: 'CNH' }), 'PEPPOL-EN16931-CL007')['3.0.21']).toEqual([]);
    const stn = byRelease(invoice({ currency: 'STN' }), 'PEPPOL-EN16931-CL007');
    expect([stn['3.0.19'].length, stn['3.0.20'].length > 0, stn['3.0.21'].length]).toEqual([0, true, 0]);
    const std = byRelease(invoice({ currency: 'STD' }), 'PEPPOL-EN16931-CL007');
    expect([std['3.0.19'].length > 0, std['3.0.20'].length, std['3.0.21'].length > 0]).toEqual([true, 0, true]);
  });

  it('PEPPOL-COMMON-R052: a Danish P number (0096) is ten digits (warning, fatal from 3.0.21)', () => {
    const ok = invoice({ sellerIds: '<cac:PartyIdentification><cbc:ID schemeID="0096">1234567890</cbc:ID></cac:PartyIdentification>' });
    const bad = invoice({ sellerIds: '<cac:PartyIdentification><cbc:ID schemeID="0096">12345</cbc:ID></cac:PartyIdentification>' });
    expect(byRelease(ok, 'PEPPOL-COMMON-R052')).toEqual({ '3.0.19': [], '3.0.20': [], '3.0.21': [] });
    expect(byRelease(bad, 'PEPPOL-COMMON-R052')).toEqual({ '3.0.19': [], '3.0.20': ['PEPPOL-COMMON-R052:warning'], '3.0.21': ['PEPPOL-COMMON-R052:fatal'] });
  });

  it('PEPPOL-COMMON-R053: a Danish ERSTORG number (0198) is DK + eight digits (warning, fatal from 3.0.21)', () => {
    const ok = invoice({ sellerIds: '<cac:PartyIdentification><cbc:ID schemeID="0198">DK12345678</cbc:ID></cac:PartyIdentification>' });
    const bad = invoice({ sellerIds: '<cac:PartyIdentification><cbc:ID schemeID="0198">12345678</cbc:ID></cac:PartyIdentification>' });
    expect(byRelease(ok, 'PEPPOL-COMMON-R053')).toEqual({ '3.0.19': [], '3.0.20': [], '3.0.21': [] });
    expect(byRelease(bad, 'PEPPOL-COMMON-R053')).toEqual({ '3.0.19': [], '3.0.20': ['PEPPOL-COMMON-R053:warning'], '3.0.21': ['PEPPOL-COMMON-R053:fatal'] });
  });

  it('DK-R-017: a Danish buyer legal id needs schemeID 0184 (warning, fatal from 3.0.21)', () => {
    const ok = invoice({ country: 'DK', buyerLegal: '<cbc:CompanyID schemeID="0184">12345678</cbc:CompanyID>' });
    const bad = invoice({ country: 'DK', buyerLegal: '<cbc:CompanyID schemeID="0198">DK12345678</cbc:CompanyID>' });
    expect(byRelease(ok, 'DK-R-017')).toEqual({ '3.0.19': [], '3.0.20': [], '3.0.21': [] });
    expect(byRelease(bad, 'DK-R-017')).toEqual({ '3.0.19': [], '3.0.20': ['DK-R-017:warning'], '3.0.21': ['DK-R-017:fatal'] });
    // only when seller and buyer are Danish
    expect(byRelease(invoice({ buyerLegal: '<cbc:CompanyID schemeID="0198">DK12345678</cbc:CompanyID>' }), 'DK-R-017')['3.0.21']).toEqual([]);
  });
});

describe('Peppol BIS 3.0.21 (2026.5) rule changes', () => {
  it('PEPPOL-EN16931-R007: only approved process identifiers (billing 01, billing with response, the French ones)', () => {
    for (const profile of ['urn:peppol:bis:billing_with_response', 'urn:peppol:france:billing:regulated', 'urn:peppol:france:billing:non-regulated']) {
      expect({ profile, got: byRelease(invoice({ profile }), 'PEPPOL-EN16931-R007') })
        .toEqual({ profile, got: { '3.0.19': ['PEPPOL-EN16931-R007:fatal'], '3.0.20': ['PEPPOL-EN16931-R007:fatal'], '3.0.21': [] } });
    }
    const nn = invoice({ profile: 'urn:fdc:peppol.eu:2017:poacc:billing:02:1.0' });
    expect(byRelease(nn, 'PEPPOL-EN16931-R007')).toEqual({ '3.0.19': [], '3.0.20': [], '3.0.21': ['PEPPOL-EN16931-R007:fatal'] });
    expect(RELEASES.map((r) => run(ciiInvoice({ profile: 'urn:fdc:peppol.eu:2017:poacc:billing:02:1.0' }), r).includes('PEPPOL-EN16931-R007:fatal'))).toEqual([false, false, true]);
  });

  it('PEPPOL-EN16931-P0100: the type code list also applies to profile 02 (billing with response)', () => {
    const ok = invoice({ profile: 'urn:peppol:bis:billing_with_response' });
    const bad = invoice({ profile: 'urn:peppol:bis:billing_with_response', typeCode: '999' });
    expect(byRelease(ok, 'PEPPOL-EN16931-P0100')['3.0.21']).toEqual([]);
    expect(byRelease(bad, 'PEPPOL-EN16931-P0100')['3.0.21']).toEqual(['PEPPOL-EN16931-P0100:fatal']);
    expect(byRelease(invoice({ typeCode: '999' }), 'PEPPOL-EN16931-P0100')).toEqual({ '3.0.19': ['PEPPOL-EN16931-P0100:fatal'], '3.0.20': ['PEPPOL-EN16931-P0100:fatal'], '3.0.21': ['PEPPOL-EN16931-P0100:fatal'] });
  });

  it("PEPPOL-EN16931-R004: the specification identifier must not contain '::'", () => {
    const ok = invoice({ customization: `${CUSTOMIZATION}#conformant#urn:example:extension` });
    const bad = invoice({ customization: `${CUSTOMIZATION}::extension` });
    expect(byRelease(ok, 'PEPPOL-EN16931-R004')).toEqual({ '3.0.19': [], '3.0.20': [], '3.0.21': [] });
    expect(byRelease(bad, 'PEPPOL-EN16931-R004')).toEqual({ '3.0.19': [], '3.0.20': [], '3.0.21': ['PEPPOL-EN16931-R004:fatal'] });
  });

  it('PEPPOL-COMMON-R054, R055, R056-1, R057: Dutch identifier formats (KVK, OIN, VAT, establishment number)', () => {
    const cases: [string, string, string, string][] = [
      ['PEPPOL-COMMON-R054', '0106', '12345678', '1234567'],
      ['PEPPOL-COMMON-R055', '0190', '12345678901234567890', '1234567890'],
      ['PEPPOL-COMMON-R056-1', '9944', 'NL123456789B12', 'NL123456789'],
      ['PEPPOL-COMMON-R057', '0217', '123456789012', '12345678'],
    ];
    for (const [rule, scheme, good, wrong] of cases) {
      const ok = invoice({ sellerIds: `<cac:PartyIdentification><cbc:ID schemeID="${scheme}">${good}</cbc:ID></cac:PartyIdentification>` });
      const bad = invoice({ sellerIds: `<cac:PartyIdentification><cbc:ID schemeID="${scheme}">${wrong}</cbc:ID></cac:PartyIdentification>` });
      expect({ rule, got: byRelease(ok, rule) }).toEqual({ rule, got: { '3.0.19': [], '3.0.20': [], '3.0.21': [] } });
      expect({ rule, got: byRelease(bad, rule) }).toEqual({ rule, got: { '3.0.19': [], '3.0.20': [], '3.0.21': [`${rule}:warning`] } });
    }
  });

  it('PEPPOL-COMMON-R056-2: a Dutch VAT number (VAT scheme, NL prefix) is NL + 9 digits + B + 2 digits', () => {
    const vat = (v: string) => `<cac:PartyTaxScheme><cbc:CompanyID>${v}</cbc:CompanyID><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:PartyTaxScheme>`;
    expect(byRelease(invoice({ sellerVat: vat('NL123456789B12') }), 'PEPPOL-COMMON-R056-2')).toEqual({ '3.0.19': [], '3.0.20': [], '3.0.21': [] });
    expect(byRelease(invoice({ sellerVat: vat('NL12345678B1') }), 'PEPPOL-COMMON-R056-2')).toEqual({ '3.0.19': [], '3.0.20': [], '3.0.21': ['PEPPOL-COMMON-R056-2:warning'] });
    expect(byRelease(invoice({ sellerVat: vat('BE0123456749') }), 'PEPPOL-COMMON-R056-2')['3.0.21']).toEqual([]);
  });

  it('DK-R-003: UNSPSC version for Danish items is now an error', () => {
    const cls = (v: string) => `<cac:CommodityClassification><cbc:ItemClassificationCode listID="TST" listVersionID="${v}">43211503</cbc:ItemClassificationCode></cac:CommodityClassification>`;
    expect(byRelease(invoice({ country: 'DK', lineClassification: cls('19.05.01') }), 'DK-R-003')).toEqual({ '3.0.19': [], '3.0.20': [], '3.0.21': [] });
    expect(byRelease(invoice({ country: 'DK', lineClassification: cls('20.0') }), 'DK-R-003'))
      .toEqual({ '3.0.19': ['DK-R-003:warning'], '3.0.20': ['DK-R-003:warning'], '3.0.21': ['DK-R-003:fatal'] });
  });

  it('DE-R-T02: a German external document location must be an absolute URL', () => {
    const ref = (uri: string) => `<cac:AdditionalDocumentReference><cbc:ID>Doc-1</cbc:ID><cac:Attachment><cac:ExternalReference><cbc:URI>${uri}</cbc:URI></cac:ExternalReference></cac:Attachment></cac:AdditionalDocumentReference>`;
    expect(byRelease(invoice({ country: 'DE', extraDocRef: ref('https://example.com/timesheet.pdf') }), 'DE-R-T02')).toEqual({ '3.0.19': [], '3.0.20': [], '3.0.21': [] });
    expect(byRelease(invoice({ country: 'DE', extraDocRef: ref('www.example.com/timesheet.pdf') }), 'DE-R-T02')).toEqual({ '3.0.19': [], '3.0.20': [], '3.0.21': ['DE-R-T02:warning'] });
    expect(byRelease(invoice({ extraDocRef: ref('www.example.com/timesheet.pdf') }), 'DE-R-T02')['3.0.21']).toEqual([]);
  });

  it('DE-R-028: the e-mail pattern accepts non-ASCII addresses and still needs one @ and a dotted domain', () => {
    expect(byRelease(invoice({ country: 'DE', contactEmail: 'jürgen@müller.de' }), 'DE-R-028')).toEqual({ '3.0.19': ['DE-R-028:warning'], '3.0.20': ['DE-R-028:warning'], '3.0.21': [] });
    expect(byRelease(invoice({ country: 'DE', contactEmail: 'tina@firma' }), 'DE-R-028')).toEqual({ '3.0.19': ['DE-R-028:warning'], '3.0.20': ['DE-R-028:warning'], '3.0.21': ['DE-R-028:warning'] });
    expect(byRelease(invoice({ country: 'DE', contactEmail: 'tina test@firma.de' }), 'DE-R-028')['3.0.21']).toEqual(['DE-R-028:warning']);
  });

  it('DE payment rules read the payment means code after normalize-space (DE-R-019 … DE-R-025)', () => {
    const pm = (code: string, iban: string) => `<cac:PaymentMeans><cbc:PaymentMeansCode>${code}</cbc:PaymentMeansCode><cac:PayeeFinancialAccount><cbc:ID>${iban}</cbc:ID></cac:PayeeFinancialAccount></cac:PaymentMeans>`;
    expect(byRelease(invoice({ country: 'DE', paymentMeans: pm('58', 'DE89370400440532013000') }), 'DE-R-019')).toEqual({ '3.0.19': [], '3.0.20': [], '3.0.21': [] });
    expect(byRelease(invoice({ country: 'DE', paymentMeans: pm(' 58 ', 'DE89370400440532013001') }), 'DE-R-019')).toEqual({ '3.0.19': [], '3.0.20': [], '3.0.21': ['DE-R-019:warning'] });
    const card = `<cac:PaymentMeans><cbc:PaymentMeansCode> 48 </cbc:PaymentMeansCode></cac:PaymentMeans>`;
    expect(byRelease(invoice({ country: 'DE', paymentMeans: card }), 'DE-R-024-1')).toEqual({ '3.0.19': [], '3.0.20': [], '3.0.21': ['DE-R-024-1:fatal'] });
  });

  it('EAS: 15 withdrawn schemes fail and 0246, 0248 are added; ISO 4217: XCG added, ANG and BGN withdrawn', () => {
    for (const scheme of ['0037', '0147', '0154', '0158', '0170', '0177', '0193', '0194', '0202', '0203', '0205', '0212', '0213', '0215', '0217']) {
      const xml = invoice({ sellerEndpoint: `<cbc:EndpointID schemeID="${scheme}">123456789012</cbc:EndpointID>` });
      expect({ scheme, got: byRelease(xml, 'PEPPOL-EN16931-CL008') }).toEqual({ scheme, got: { '3.0.19': [], '3.0.20': [], '3.0.21': ['PEPPOL-EN16931-CL008:fatal'] } });
    }
    for (const scheme of ['0246', '0248']) {
      const xml = invoice({ sellerEndpoint: `<cbc:EndpointID schemeID="${scheme}">12345678</cbc:EndpointID>` });
      expect(byRelease(xml, 'PEPPOL-EN16931-CL008')['3.0.21']).toEqual([]);
      expect(byRelease(xml, 'PEPPOL-EN16931-CL008')['3.0.20']).toEqual(['PEPPOL-EN16931-CL008:fatal']);
    }
    expect(byRelease(invoice({ currency: 'XCG' }), 'PEPPOL-EN16931-CL007')['3.0.21']).toEqual([]);
    expect(byRelease(invoice({ currency: 'XCG' }), 'PEPPOL-EN16931-CL007')['3.0.20'].length).toBeGreaterThan(0);
    for (const cur of ['ANG', 'BGN']) {
      expect(byRelease(invoice({ currency: cur }), 'PEPPOL-EN16931-CL007')['3.0.20']).toEqual([]);
      expect(byRelease(invoice({ currency: cur }), 'PEPPOL-EN16931-CL007')['3.0.21'].length).toBeGreaterThan(0);
    }
  });
});
