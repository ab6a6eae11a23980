import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { AFRelationship, PDFArray, PDFDict, PDFDocument, PDFName, PDFRawStream } from 'pdf-lib';
import { extractHybridPdf, ciiToCanonical, detectFormat, ingestAuto, MappingError } from '../../../../mappings/index.ts';
import { profileFromGuideline } from '../../../../mappings/factur-x/extract.ts';
import { CORPUS } from '../support/corpus.ts';

const MUSTANG = join(CORPUS, 'mustangproject');
const expectations = JSON.parse(readFileSync(join(MUSTANG, 'expected-results.json'), 'utf8')) as Array<{ file: string; asserted: string }>;
const pdfs = expectations.filter((e) => e.file.endsWith('.pdf')).map((e) => e.file);

/** Expected outcome per PDF, read from each file's XMP metadata and embedded file list. */
const EXPECTED: Record<string, { filename: string; profile?: string; flavour: string; syntax: string; level?: string } | 'broken'> = {
  'corrupt-factur-x-waytoosmall.pdf': 'broken',
  'EXTENDED_Fremdwaehrung_wdis_fx-pdfa4.pdf': { filename: 'factur-x.xml', profile: 'EXTENDED', flavour: 'factur-x', syntax: 'cii' },
  '103767-Invoice-2026-03-24-1.pdf': { filename: 'factur-x.xml', profile: 'EN 16931', flavour: 'factur-x', syntax: 'cii' },
  'Facture_F20180027.pdf': { filename: 'factur-x.xml', profile: 'EN 16931', flavour: 'factur-x', syntax: 'cii' },
  'ORDER-X_EX01_ORDER_FULL_DATA-COMFORT.pdf': { filename: 'order-x.xml', profile: 'EN 16931', flavour: 'order-x', syntax: 'order-x', level: 'COMFORT' },
  'XMLinvalidV2PDF.pdf': { filename: 'factur-x.xml', profile: 'EXTENDED', flavour: 'factur-x', syntax: 'cii' },
  'attributeBasedXMP_zugferd_2p0_EN16931_Einfach.pdf': { filename: 'zugferd-invoice.xml', profile: 'EN 16931', flavour: 'zugferd-2', syntax: 'cii' },
  'corruptedV2PDF.pdf': { filename: 'factur-x.xml', profile: 'EN 16931', flavour: 'factur-x', syntax: 'cii' },
  'invalidXMP-ParseError.pdf': { filename: 'factur-x.xml', profile: 'EN 16931', flavour: 'factur-x', syntax: 'cii', level: 'no thing' },
  'invalidXMP.pdf': { filename: 'factur-x.xml', profile: 'EN 16931', flavour: 'factur-x', syntax: 'cii', level: 'no thing' },
  'invalidXRechnung.pdf': { filename: 'factur-x.xml', profile: 'XRECHNUNG', flavour: 'factur-x', syntax: 'cii' },
  'validAvoir_FR_type380_BASICWL.pdf': { filename: 'factur-x.xml', profile: 'BASIC WL', flavour: 'factur-x', syntax: 'cii' },
  'validV1WithAdditionalData.pdf': { filename: 'ZUGFeRD-invoice.xml', profile: 'EXTENDED', flavour: 'zugferd-1', syntax: 'zugferd-1' },
  'validV2PDF.pdf': { filename: 'factur-x.xml', profile: 'EN 16931', flavour: 'factur-x', syntax: 'cii' },
  'validXRechnung.pdf': { filename: 'factur-x.xml', profile: 'XRECHNUNG', flavour: 'factur-x', syntax: 'cii' },
  'zugferd_2p1_EXTENDED_PDFA-3A.pdf': { filename: 'factur-x.xml', profile: 'EXTENDED', flavour: 'factur-x', syntax: 'cii' },
};

/** Independent decoding: the raw embedded stream inflated with zlib (not pdf-lib's decoder). */
async function rawEmbedded(bytes: Buffer, filename: string): Promise<Buffer> {
  const doc = await PDFDocument.load(bytes, { updateMetadata: false, throwOnInvalidObject: false });
  const specs: PDFDict[] = [];
  const tree = doc.catalog.lookupMaybe(PDFName.of('Names'), PDFDict)?.lookupMaybe(PDFName.of('EmbeddedFiles'), PDFDict);
  const names = tree?.lookupMaybe(PDFName.of('Names'), PDFArray);
  if (names) for (let i = 1; i < names.size(); i += 2) specs.push(names.lookup(i, PDFDict));
  const af = doc.catalog.lookupMaybe(PDFName.of('AF'), PDFArray);
  if (af) for (let i = 0; i < af.size(); i++) specs.push(af.lookup(i, PDFDict));
  for (const spec of specs) {
    const f = spec.lookup(PDFName.of('UF')) ?? spec.lookup(PDFName.of('F'));
    const name = (f as unknown as { decodeText(): string }).decodeText();
    if (name !== filename) continue;
    const stream = spec.lookup(PDFName.of('EF'), PDFDict).lookup(PDFName.of('F')) as PDFRawStream;
    const filter = stream.dict.lookup(PDFName.of('Filter'));
    return filter === PDFName.of('FlateDecode') ? inflateSync(Buffer.from(stream.contents)) : Buffer.from(stream.contents);
  }
  throw new Error(`no embedded ${filename}`);
}

describe('hybrid PDFs of the mustangproject corpus', () => {
  // pdf-lib reports each damaged object it recovers from on console.warn; the tests assert the outcome.
  const warn = console.warn;
  beforeAll(() => { console.warn = () => undefined; });
  afterAll(() => { console.warn = warn; });

  it('covers every PDF of expected-results.json', () => {
    expect(pdfs).toHaveLength(16);
    expect(pdfs.map((p) => p.split('/').pop()).sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each(pdfs.map((p) => [p.split('/').pop()!, p]))('%s', async (name, path) => {
    const bytes = readFileSync(join(MUSTANG, path));
    const expected = EXPECTED[name]!;
    if (expected === 'broken') {
      await expect(extractHybridPdf(bytes)).rejects.toBeInstanceOf(MappingError);
      await expect(extractHybridPdf(bytes)).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
      return;
    }
    expect(detectFormat(bytes).format).toBe('pdf');
    const r = await extractHybridPdf(bytes);
    expect({ filename: r.filename, profile: r.profile, flavour: r.flavour, syntax: r.syntax }).toEqual({
      filename: expected.filename, profile: expected.profile, flavour: expected.flavour, syntax: expected.syntax,
    });
    if (expected.level) expect(r.xmp?.conformanceLevel).toBe(expected.level);
    if (expected.level === 'no thing') {
      expect(r.profileSource).toBe('xml');
      expect(r.xmpIssues).toEqual(['unknown XMP ConformanceLevel "no thing"']);
    } else {
      expect(r.profileSource).toBe('xmp');
      expect(r.xmpIssues).toEqual([]);
    }
    // Byte-exact: identical to the stream decoded independently.
    expect(r.xml.equals(await rawEmbedded(bytes, r.filename))).toBe(true);
    expect(r.typeCode).toMatch(/^\d{3}$/);
    if (r.syntax === 'cii') {
      const c = ciiToCanonical(r.xml).canonical;
      expect(c.number).not.toBe('');
      expect(r.typeCode).toBe(c.typeCode);
      expect(r.guidelineId).toBe(c.customizationId);
    }
  });

  it('the XMP profile agrees with the embedded XML guideline (BT-24) wherever the XMP is valid', async () => {
    for (const path of pdfs) {
      const e = EXPECTED[path.split('/').pop()!]!;
      if (e === 'broken') continue;
      const r = await extractHybridPdf(readFileSync(join(MUSTANG, path)));
      const guideline = /GuidelineSpecifiedDocumentContextParameter>\s*<[^>]*>([^<]*)</.exec(r.xml.toString('utf8'))?.[1];
      expect(profileFromGuideline(guideline)).toBe(r.profile);
    }
  });

  it('a hybrid PDF deposit with format=auto is CII, the PDF bytes kept as the original', async () => {
    const bytes = readFileSync(join(MUSTANG, 'validator/src/test/resources/validV2PDF.pdf'));
    const d = await ingestAuto(bytes);
    expect(d.format).toBe('cii-xml');
    expect(d.original).toBe(bytes);
    expect(d.hybrid?.profile).toBe('EN 16931');
    expect(d.parsed.canonical.lines.length).toBeGreaterThan(0);
  });

  it.each([
    ['empty', Buffer.alloc(0)],
    ['not a PDF', Buffer.from('hello world')],
    ['header only', Buffer.from('%PDF-1.7\n')],
    ['truncated half', readFileSync(join(MUSTANG, 'validator/src/test/resources/validV2PDF.pdf')).subarray(0, 5000)],
    ['garbage after header', Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(4096, 0x41)])],
  ])('%s → clear MappingError, no crash', async (_n, bytes) => {
    const err = await extractHybridPdf(bytes).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MappingError);
    expect((err as MappingError).code).toBe('INVALID_REQUEST');
    expect((err as MappingError).details[0]?.field).toBe('file.content');
  });

  it('a plain PDF without embedded XML is refused as a hybrid deposit', async () => {
    const doc = await PDFDocument.create();
    doc.addPage();
    const bytes = Buffer.from(await doc.save());
    await expect(extractHybridPdf(bytes)).rejects.toMatchObject({ code: 'INVALID_REQUEST', details: [{ rule: 'hybrid-embedded-xml' }] });
  });

  it('an unreadable XMP stream is an issue, not a failure: the XML is still extracted', async () => {
    const doc = await PDFDocument.create();
    doc.addPage();
    const cii = readFileSync(join(CORPUS, 'eInvoicing-EN16931/cii/examples/CII_example1.xml'));
    await doc.attach(cii, 'factur-x.xml', { mimeType: 'text/xml', afRelationship: AFRelationship.Data });
    doc.catalog.set(PDFName.of('Metadata'), doc.context.register(doc.context.stream('not really compressed', { Type: 'Metadata', Subtype: 'XML', Filter: 'JBIG2Decode' })));
    const r = await extractHybridPdf(Buffer.from(await doc.save()));
    expect(r.xml.equals(cii)).toBe(true);
    expect(r.relationship).toBe('Data');
    expect(r.profile).toBe('EN 16931');
    expect(r.profileSource).toBe('xml');
    expect(r.xmpIssues).toEqual([expect.stringMatching(/^XMP metadata could not be read/)]);
  });

  it('a PDF embedding a UBL invoice is recognised and refused by format=auto (a hybrid deposit is CII)', async () => {
    const doc = await PDFDocument.create();
    doc.addPage();
    const ubl = readFileSync(join(CORPUS, 'peppol-bis-invoice-3/rules/examples/base-example.xml'));
    await doc.attach(ubl, 'xrechnung.xml', { mimeType: 'text/xml' });
    const bytes = Buffer.from(await doc.save());
    const r = await extractHybridPdf(bytes);
    expect(r.syntax).toBe('ubl');
    expect(r.xml.equals(ubl)).toBe(true);
    expect(r.xmpIssues[0]).toMatch(/no Factur-X/);
    await expect(ingestAuto(bytes)).rejects.toMatchObject({ code: 'INVALID_REQUEST', details: [{ rule: 'hybrid-cii' }] });
  });
});
