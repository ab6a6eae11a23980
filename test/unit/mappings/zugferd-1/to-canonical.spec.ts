/**
 * ZUGFeRD 1.0 → canonical: every ZUGFeRD 1.0 document of the mustangproject corpus (XML and hybrid
 * PDF) is found and ingested or refused as Mustang's own expectations say; business terms are
 * checked value by value on three samples; the derived delivery forms pass the ZUGFeRD 1.0 XSD
 * (source) and the EN 16931 rules (derived CII, and the Peppol UBL's XSD); broken documents are
 * MappingErrors naming every problem, never a crash.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import {
  detectFormat, detectZugferd1, extractHybridPdf, ingestAuto, rawDeposit, zugferd1DeliveryForm, zugferd1ToCanonical, MappingError,
  EN16931_CUSTOMIZATION_ID, type CanonicalInvoice,
} from '../../../../mappings/index.ts';
import { PEPPOL_BIS3_CUSTOMIZATION_ID } from '../../../../mappings/canonical/codes.ts';
import { validate } from '../../../../services/validation/engine/index.ts';
import { CORPUS } from '../support/corpus.ts';
import { zugferd1Pdf as zf1Pdf } from '../../../support/zugferd1.ts';

const MUSTANG = join(CORPUS, 'mustangproject');
const VALID_V1 = 'validator/src/test/resources/validV1.xml';
const COMFORT = 'library/src/test/resources/migration/input/ZUGFeRD1_COMFORT_Einfach.xml';
const EXTENDED = 'library/src/test/resources/migration/input/ZUGFeRD1_EXTENDED_Warenrechnung.xml';
const PDF = 'validator/src/test/resources/validV1WithAdditionalData.pdf';
const read = (path: string) => readFileSync(join(MUSTANG, path));

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });
}

/** Every ZUGFeRD 1.0 XML of the corpus (found by its root, not its name) and what Mustang's tests say of it. */
const XML_OUTCOME: Record<string, 'ingests' | { refused: string[] }> = {
  [VALID_V1]: 'ingests',
  [COMFORT]: 'ingests',
  [EXTENDED]: 'ingests',
  // Mustang: invalid (arithmetic) and invalid (an extra FooterExchangedDocument): both still carry every fact we need.
  'validator/src/test/resources/invalidV1addition.xml': 'ingests',
  'validator/src/test/resources/invalidV1ExtraTags.xml': 'ingests',
  // "HederExchangedDocument": no header, so no number and no issue date.
  'validator/src/test/resources/invalidV1.xml': { refused: ['BT-1', 'BT-2'] },
  // Only a misplaced guideline: nothing of an invoice.
  'validator/src/test/resources/invalidV1TooMinimal.xml': { refused: ['zugferd-1-guideline', 'BT-1', 'BT-2', 'BT-5', 'BT-27', 'BT-44'] },
};

describe('the ZUGFeRD 1.0 documents of the mustangproject corpus', () => {
  const files = walk(MUSTANG).filter((f) => !f.includes('/schema/'));
  const zf1Xml = files.filter((f) => f.endsWith('.xml') && detectZugferd1(readFileSync(f))).map((f) => relative(MUSTANG, f)).sort();

  it('are all known here: detected by their root, whatever their name', () => {
    expect(zf1Xml).toEqual(Object.keys(XML_OUTCOME).sort());
  });

  it.each(Object.entries(XML_OUTCOME))('%s', (path, outcome) => {
    const bytes = read(path);
    expect(detectFormat(bytes)).toMatchObject({ format: 'zugferd-1', apiFormat: 'auto', mediaType: 'application/xml' });
    expect(rawDeposit(bytes).storedFormat).toBe('xml');
    if (outcome === 'ingests') {
      const parsed = zugferd1ToCanonical(bytes);
      expect(parsed.syntax).toBe('zugferd-1');
      expect(parsed.original).toBe(bytes);
      expect(parsed.canonical.customizationId).toMatch(/^urn:ferd:CrossIndustryDocument:invoice:1p0:(basic|comfort|extended)$/);
      expect(parsed.canonical.lines.length).toBeGreaterThan(0);
    } else {
      const err = (() => { try { zugferd1ToCanonical(bytes); } catch (e) { return e; } })() as MappingError;
      expect(err).toBeInstanceOf(MappingError);
      expect(err.details.map((d) => d.rule)).toEqual(outcome.refused);
    }
  });

  it('the one ZUGFeRD 1.0 hybrid PDF is extracted by its XMP and ingested, the PDF kept as the original', async () => {
    const pdfs = files.filter((f) => f.endsWith('.pdf'));
    const zf1Pdfs: string[] = [];
    const warn = console.warn;
    console.warn = () => undefined;
    try {
      for (const f of pdfs) {
        const r = await extractHybridPdf(readFileSync(f)).catch(() => undefined);
        if (r?.syntax === 'zugferd-1') zf1Pdfs.push(relative(MUSTANG, f));
      }
    } finally { console.warn = warn; }
    expect(zf1Pdfs).toEqual([PDF]);

    const bytes = read(PDF);
    const h = await extractHybridPdf(bytes);
    expect(h).toMatchObject({ flavour: 'zugferd-1', syntax: 'zugferd-1', filename: 'ZUGFeRD-invoice.xml', profile: 'EXTENDED', profileSource: 'xmp', xmpIssues: [] });
    expect(h.xmp?.namespace).toBe('urn:ferd:pdfa:CrossIndustryDocument:invoice:1p0#');
    const d = await ingestAuto(bytes);
    expect(d.format).toBe('zugferd-1');
    expect(d.original).toBe(bytes);
    // The embedded document is the FeRD EXTENDED example, byte for byte.
    expect(h.xml.equals(read(EXTENDED))).toBe(true);
    expect(d.parsed.canonical).toEqual(zugferd1ToCanonical(read(EXTENDED)).canonical);
  });
});

describe('business terms, value by value', () => {
  it('COMFORT (FeRD "Einfach"): header, parties, payment, totals, VAT breakdown, lines', () => {
    const c = zugferd1ToCanonical(read(COMFORT)).canonical;
    expect(c).toMatchObject({
      kind: 'invoice',
      customizationId: 'urn:ferd:CrossIndustryDocument:invoice:1p0:comfort',
      number: '471102', // BT-1
      issueDate: '2013-03-05', // BT-2
      typeCode: '380', // BT-3
      currency: 'EUR', // BT-5
      dueDate: '2013-04-04', // BT-9
      paymentTerms: 'Zahlbar innerhalb 30 Tagen netto bis 04.04.2013, 3% Skonto innerhalb 10 Tagen bis 15.03.2013', // BT-20
      delivery: { actualDeliveryDate: '2013-03-05' }, // BT-72
    });
    expect(c.notes).toEqual([
      { text: 'Rechnung gemäß Bestellung vom 01.03.2013.' },
      { subjectCode: 'REG', text: expect.stringMatching(/^Lieferant GmbH[\s\S]*Handelsregisternummer: H A 123$/) },
    ]);
    expect(c.seller).toEqual({
      name: 'Lieferant GmbH', // BT-27
      identifiers: [{ value: '4000001123452', scheme: '0088' }], // BT-29 (GlobalID)
      vatId: 'DE123456789', // BT-31
      taxRegistrationId: '201/113/40209', // BT-32 (FC)
      address: { line1: 'Lieferantenstraße 20', city: 'München', postalCode: '80333', country: 'DE' },
    });
    expect(c.buyer).toEqual({
      name: 'Kunden AG Mitte',
      identifiers: [{ value: 'GE2020211' }, { value: '4000001987658', scheme: '0088' }],
      address: { line1: 'Kundenstraße 15', city: 'Frankfurt', postalCode: '69876', country: 'DE' },
      contact: { name: 'Hans Muster' },
    });
    expect(c.paymentInstructions).toEqual({
      meansCode: '31', meansText: 'Überweisung', remittanceInformation: '2013-471102',
      creditTransfers: [{ accountId: 'DE08700901001234567890', serviceProviderId: 'GENODEF1M04' }],
    });
    expect(c.totals).toEqual({ lineNetTotal: '473.00', chargeTotal: '0.00', allowanceTotal: '0.00', taxExclusive: '473.00', vatTotal: '56.87', taxInclusive: '529.87', prepaid: '0.00', payable: '529.87' });
    expect(c.vatBreakdown).toEqual([
      { taxableAmount: '275.00', taxAmount: '19.25', category: 'S', rate: '7.00' },
      { taxableAmount: '198.00', taxAmount: '37.62', category: 'S', rate: '19.00' },
    ]);
    expect(c.lines).toEqual([
      {
        id: '1', quantity: '20.0000', unit: 'C62', netAmount: '198.00',
        price: { netPrice: '9.9000', grossPrice: '9.9000' },
        vat: { category: 'S', rate: '19.00' },
        item: { name: 'Trennblätter A4', sellerId: 'TB100A4', standardId: { value: '4012345001235', scheme: '0160' } },
      },
      {
        id: '2', quantity: '50.0000', unit: 'C62', netAmount: '275.00',
        price: { netPrice: '5.5000', grossPrice: '5.5000' },
        vat: { category: 'S', rate: '7.00' },
        item: { name: 'Joghurt Banane', sellerId: 'ARNR2', standardId: { value: '4000050986428', scheme: '0160' } },
      },
    ]);
  });

  it('EXTENDED (FeRD "Warenrechnung"): references, ship-to, logistics charge, price allowances, free-text line', () => {
    const c = zugferd1ToCanonical(read(EXTENDED)).canonical;
    expect(c).toMatchObject({
      customizationId: 'urn:ferd:CrossIndustryDocument:invoice:1p0:extended',
      number: 'R87654321012345', issueDate: '2013-08-06', currency: 'EUR',
      orderReference: 'B123456789', // BT-13
      salesOrderReference: 'A456123', // BT-14 (reference type VN)
      despatchAdviceReference: 'L87654321012345', // BT-16 from the delivery note
      delivery: { // BG-13
        partyName: 'MUSTER-MARKT', locationId: { value: '4304171088093', scheme: '0088' }, actualDeliveryDate: '2013-08-05',
        address: { line1: 'HAUPTSTRASSE 44', city: 'SARSTEDT', postalCode: '31157', country: 'DE' },
      },
      totals: { lineNetTotal: '457.20', chargeTotal: '3.00', allowanceTotal: '11.21', taxExclusive: '448.99', vatTotal: '70.00', taxInclusive: '518.99', prepaid: '0.00', payable: '518.99' },
    });
    expect(c.seller.contact).toEqual({ phone: '+49 932 431 500', email: 'max.mustermann@musterlieferant.de' });
    expect(c.seller.identifiers).toEqual([{ value: '549910' }, { value: '4333741000005', scheme: '0088' }]);
    // BG-20 allowances, and the freight (SpecifiedLogisticsServiceCharge) as a BG-21 charge.
    expect(c.allowanceCharges).toEqual([
      { isCharge: false, amount: '5.60', baseAmount: '280.00', percentage: '2.00', vatCategory: 'S', vatRate: '19.00', reason: 'Rechnungsrabatt 1' },
      { isCharge: false, amount: '2.61', baseAmount: '130.70', percentage: '2.00', vatCategory: 'S', vatRate: '7.00', reason: 'Rechnungsrabatt 1' },
      { isCharge: false, amount: '2.50', baseAmount: '280.00', vatCategory: 'S', vatRate: '19.00', reason: 'Rechnungsrabatt 2' },
      { isCharge: false, amount: '0.50', baseAmount: '130.70', vatCategory: 'S', vatRate: '7.00', reason: 'Rechnungsrabatt 2' },
      { isCharge: true, amount: '3.00', vatCategory: 'S', vatRate: '19.00', reason: 'Transportkosten' },
    ]);
    expect(c.vatBreakdown).toEqual([
      { taxableAmount: '321.40', taxAmount: '61.07', category: 'S', rate: '19.00' },
      { taxableAmount: '127.59', taxAmount: '8.93', category: 'S', rate: '7.00' },
    ]);
    // Seven line items, the first a free-text line: six invoice lines, numbered by position (no LineID).
    expect(c.lines.map((l) => [l.id, l.item.name, l.quantity, l.netAmount])).toEqual([
      ['1', 'Zitronensäure 100ml', '100.0000', '100.00'],
      ['2', 'Gelierzucker Extra 250g', '50.0000', '72.50'],
      ['3', 'Gelierzucker Extra 250g', '10.0000', '0.00'],
      ['4', 'Bierbrau Pils 20/0500', '15.0000', '180.00'],
      ['5', 'Leergutpfand 20 x 0,5l', '15.0000', '46.50'],
      ['6', 'Mischpalette Joghurt Karton 3 x 20', '2.0000', '58.20'],
    ]);
    expect(c.notes?.at(-1)?.text).toMatch(/^Wichtige Information: Bei Bestellungen bis zum 19\.12\./);
    // BT-147 = gross − net price (two price allowances of 0.03 and 0.02).
    expect(c.lines[1]!.price).toEqual({ netPrice: '1.4500', grossPrice: '1.5000', discount: '0.05' });
    expect(c.lines[3]).toMatchObject({
      note: 'Öko-Kontroll-Nr.: DE-BW-006-987654321054',
      item: { buyerId: 'K4321', description: 'EAN-VKE: 4100130913297', attributes: [{ name: 'Verpackung', value: 'Kiste' }] },
    });
  });

  it('validV1 (EXTENDED, Bei Spiel GmbH): the IBAN without its print grouping, the seller tax number (FC)', () => {
    const c = zugferd1ToCanonical(read(VALID_V1)).canonical;
    expect(c).toMatchObject({ number: 'RE-20171118/506', issueDate: '2017-11-18', dueDate: '2017-12-09', delivery: { actualDeliveryDate: '2017-11-17' } });
    expect(c.seller).toMatchObject({ name: 'Bei Spiel GmbH', vatId: 'DE136695976', taxRegistrationId: '22/815/0815/4' });
    expect(c.buyer).toMatchObject({ name: 'Theodor Est', vatId: 'DE999999999' });
    expect(c.paymentInstructions?.creditTransfers).toEqual([{ accountId: 'DE88200800000970375700', serviceProviderId: 'COBADEFFXXX' }]);
    expect(c.lines.map((l) => [l.id, l.unit, l.vat.rate, l.price.baseQuantity])).toEqual([['1', 'HUR', '7.00', '1.0000'], ['2', 'C62', '19.00', '1.0000'], ['3', 'LTR', '19.00', '1.0000']]);
  });
});

describe('the delivery forms', () => {
  const cases: Array<[string, string]> = [['validV1', VALID_V1], ['COMFORT', COMFORT], ['EXTENDED', EXTENDED]];

  it.each(cases)('%s: ZUGFeRD 1.0 XSD-valid; derived CII passes the XSD and EN 16931 with no error', (_n, path) => {
    const source = validate(read(path));
    expect(source).toMatchObject({ syntax: 'zugferd-1', valid: true, packs: [], findings: [] });
    expect(source.profile).toMatch(/^zugferd-1-(comfort|extended)$/);
    const canonical = zugferd1ToCanonical(read(path)).canonical;
    const form = zugferd1DeliveryForm(canonical, { syntax: 'cii' });
    expect(form.syntax).toBe('cii-d16b');
    expect(form.canonical.customizationId).toBe(EN16931_CUSTOMIZATION_ID);
    expect(canonical.customizationId).toMatch(/^urn:ferd:/); // the stored view keeps what the document states
    const r = validate(form.xml);
    expect(r.packs).toEqual(['en16931@1.3.16']);
    expect(r.findings.filter((f) => f.severity === 'fatal')).toEqual([]);
  });

  it.each(cases)('%s: the Peppol UBL names the BIS specification and the routing endpoints, and is UBL XSD-valid', (_n, path) => {
    const canonical: CanonicalInvoice = zugferd1ToCanonical(read(path)).canonical;
    const form = zugferd1DeliveryForm(canonical, { syntax: 'ubl', sellerEndpoint: '9930:DE123456789', buyerEndpoint: '0088:4304171000002' });
    expect(form.syntax).toBe('ubl-2.1');
    expect(form.canonical).toMatchObject({ customizationId: PEPPOL_BIS3_CUSTOMIZATION_ID, seller: { electronicAddress: { scheme: '9930', value: 'DE123456789' } }, buyer: { electronicAddress: { scheme: '0088', value: '4304171000002' } } });
    const r = validate(form.xml, { packs: [] });
    expect(r.findings).toEqual([]);
  });

  it('findings name what the source lacks: the arithmetic of invalidV1addition fails EN 16931 on the derived form', () => {
    const canonical = zugferd1ToCanonical(read('validator/src/test/resources/invalidV1addition.xml')).canonical;
    const r = validate(zugferd1DeliveryForm(canonical, { syntax: 'cii' }).xml);
    expect(new Set(r.findings.filter((f) => f.severity === 'fatal').map((f) => f.rule))).toEqual(new Set(['BR-CO-10', 'BR-CO-13', 'BR-CO-15', 'BR-S-08']));
  });

  it('the ZUGFeRD 1.0 schema refuses what it does not define (invalidV1ExtraTags: a FooterExchangedDocument)', () => {
    const r = validate(read('validator/src/test/resources/invalidV1ExtraTags.xml'));
    expect(r.valid).toBe(false);
    expect(r.findings).toEqual([expect.objectContaining({ rule: 'XSD', source: 'xsd:zugferd-1.0', message: expect.stringContaining('FooterExchangedDocument') })]);
  });
});

describe('broken ZUGFeRD 1.0 documents are MappingErrors with details, never crashes', () => {
  const comfort = read(COMFORT).toString('utf8');
  const refused = (xml: string | Buffer): MappingError => {
    try { zugferd1ToCanonical(typeof xml === 'string' ? Buffer.from(xml) : xml); } catch (e) { return e as MappingError; }
    throw new Error('not refused');
  };

  it.each([
    ['truncated', 'INVALID_REQUEST', comfort.slice(0, comfort.length / 2), ['well-formed']],
    ['no guideline', 'MISSING_FIELD', comfort.replace(/<ram:GuidelineSpecifiedDocumentContextParameter>[\s\S]*?<\/ram:GuidelineSpecifiedDocumentContextParameter>/, ''), ['zugferd-1-guideline']],
    ['a Factur-X guideline', 'INVALID_REQUEST', comfort.replace('urn:ferd:CrossIndustryDocument:invoice:1p0:comfort', 'urn:cen.eu:en16931:2017'), ['zugferd-1-guideline']],
    ['unknown profile', 'INVALID_ENUM', comfort.replace('urn:ferd:CrossIndustryDocument:invoice:1p0:comfort', 'urn:ferd:CrossIndustryDocument:invoice:1p0:premium'), ['zugferd-1-profile']],
    ['no invoice number', 'MISSING_FIELD', comfort.replace('<ram:ID>471102</ram:ID>', ''), ['BT-1']],
    ['no currency', 'MISSING_FIELD', comfort.replace('<ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode>', ''), ['BT-5']],
    ['a currency that is no ISO 4217 code', 'INVALID_CURRENCY', comfort.replace('<ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode>', '<ram:InvoiceCurrencyCode>EURO</ram:InvoiceCurrencyCode>'), ['BT-5']],
    ['an impossible issue date', 'INVALID_DATE', comfort.replace('>20130305</udt:DateTimeString></ram:IssueDateTime>', '>20130231</udt:DateTimeString></ram:IssueDateTime>'), ['BT-2']],
    ['no number and no currency at once', 'MISSING_FIELD', comfort.replace('<ram:ID>471102</ram:ID>', '').replace('<ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode>', ''), ['BT-1', 'BT-5']],
  ])('%s → %s', (_n, code, xml, rules) => {
    const err = refused(xml);
    expect(err).toBeInstanceOf(MappingError);
    expect(err.code).toBe(code);
    expect(err.details.map((d) => d.rule)).toEqual(rules);
    for (const d of err.details) expect(d.field).toBeTruthy();
  });

  it('a CrossIndustryDocument of another namespace is not ZUGFeRD 1.0', () => {
    const foreign = comfort.replace('xmlns:rsm="urn:ferd:CrossIndustryDocument:invoice:1p0"', 'xmlns:rsm="urn:example:other"');
    expect(detectFormat(Buffer.from(foreign)).format).toBe('xml');
    expect(refused(foreign)).toMatchObject({ code: 'INVALID_REQUEST', details: [{ rule: 'zugferd-1-root' }] });
  });
});

describe('broken ZUGFeRD 1.0 hybrid PDFs', () => {
  it('a well-formed one is read by its XMP (flavour, profile) and ingested', async () => {
    const pdf = await zf1Pdf({ name: 'ZUGFeRD-invoice.xml', bytes: read(COMFORT) });
    const d = await ingestAuto(pdf);
    expect(d.format).toBe('zugferd-1');
    expect(d.hybrid).toMatchObject({ flavour: 'zugferd-1', profile: 'EN 16931', xmpIssues: [] });
    expect(d.parsed.canonical.number).toBe('471102');
  });

  it('no attachment → 400 naming the missing invoice XML', async () => {
    await expect(ingestAuto(await zf1Pdf(undefined))).rejects.toMatchObject({ code: 'INVALID_REQUEST', details: [{ field: 'file.content', rule: 'hybrid-embedded-xml' }] });
  });

  it('an attachment that is not XML → 400 naming it', async () => {
    const err = (await ingestAuto(await zf1Pdf({ name: 'ZUGFeRD-invoice.xml', bytes: Buffer.from('\x89PNG\r\n\x1a\n not an invoice', 'latin1') })).catch((e: unknown) => e)) as MappingError;
    expect(err).toBeInstanceOf(MappingError);
    expect(err).toMatchObject({ code: 'INVALID_REQUEST', details: [{ rule: 'hybrid-embedded-xml' }] });
    expect(err.message).toContain('ZUGFeRD-invoice.xml is not XML');
  });

  it('truncated XML inside → 400 (not well-formed), the same as bare', async () => {
    const xml = read(COMFORT);
    await expect(ingestAuto(await zf1Pdf({ name: 'ZUGFeRD-invoice.xml', bytes: xml.subarray(0, xml.length - 200) }))).rejects.toMatchObject({ code: 'INVALID_REQUEST', details: [{ rule: 'well-formed' }] });
  });

  it('missing facts inside → 400 naming each', async () => {
    const xml = read(COMFORT).toString('utf8').replace('<ram:ID>471102</ram:ID>', '');
    await expect(ingestAuto(await zf1Pdf({ name: 'ZUGFeRD-invoice.xml', bytes: Buffer.from(xml) }))).rejects.toMatchObject({ code: 'MISSING_FIELD', details: [{ rule: 'BT-1' }] });
  });

  it('a ZUGFeRD 1.0 XMP over a CII attachment is an XMP issue; the CII is read as CII', async () => {
    const cii = readFileSync(join(CORPUS, 'eInvoicing-EN16931/cii/examples/CII_example1.xml'));
    const d = await ingestAuto(await zf1Pdf({ name: 'ZUGFeRD-invoice.xml', bytes: cii }));
    expect(d.format).toBe('cii-xml');
    expect(d.hybrid?.xmpIssues).toEqual([expect.stringContaining('the XMP declares ZUGFeRD 1.0')]);
  });
});
