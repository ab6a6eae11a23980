/**
 * Factur-X out: what we write is what our own hybrid reader (extractHybridPdf, the intake of
 * format=auto) accepts without an issue, validates as EN 16931 CII, and re-ingests as the same
 * invoice; its PDF/A-3 parts are where the standard puts them (associated file with its
 * relationship, XMP with the PDF/A id and the Factur-X extension schema, an sRGB output intent, a
 * trailer /ID); the visual is the readable PDF; the bytes are the same for the same document.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFRawStream, decodePDFRawStream } from 'pdf-lib';
import {
  canonicalToFacturX, canonicalToCii, ciiToCanonical, extractHybridPdf, fatturaPaToCanonical, ingestAuto, ublToCanonical, FACTUR_X_FILENAME, FACTUR_X_XMP_NS,
  MappingError, type CanonicalInvoice,
} from '../../../../mappings/index.ts';
import { srgbIccProfile } from '../../../../mappings/factur-x/srgb-icc.ts';
import { validateInput } from '../../../../services/validation/validation.tasks.ts';
import { configurePdfLimits, DEFAULT_PDF_LIMITS } from '../../../../mappings/factur-x/limits.ts';
import { formatAmount } from '../../../../mappings/render/format.ts';
import { corpusDir } from '../../../support/corpus.ts';
import { pdfPagesText } from '../../../support/pdf-text.ts';

const CORPUS = corpusDir();
const read = (p: string): Buffer => readFileSync(join(CORPUS, p));

/** The FatturaPA example rounds per line (BR-S-08, BR-CO-13 fail on its amounts in any syntax): it is read back, not validated. */
const SOURCES: Array<[syntax: string, load: () => CanonicalInvoice]> = [
  ['CII D16B', () => ciiToCanonical(read('eInvoicing-EN16931/cii/examples/CII_example2.xml')).canonical],
  ['UBL 2.1', () => ublToCanonical(read('eInvoicing-EN16931/ubl/examples/ubl-tc434-example2.xml')).canonical],
  ['UBL 2.1 credit note', () => ublToCanonical(read('eInvoicing-EN16931/ubl/examples/ubl-tc434-creditnote1.xml')).canonical],
  ['FatturaPA 1.2.2', () => fatturaPaToCanonical(read('ph-fatturapa/docs/1.2.2/examples/IT01234567890_FPR02.xml')).canonical],
];

function stream(o: unknown): PDFRawStream {
  if (!(o instanceof PDFRawStream)) throw new Error(`not a stream: ${String(o)}`);
  return o;
}

/** The catalog entries of a PDF, read with pdf-lib. */
async function partsOf(bytes: Uint8Array) {
  const pdf = await PDFDocument.load(bytes, { updateMetadata: false });
  const catalog = pdf.catalog;
  const metadata = stream(catalog.lookup(PDFName.of('Metadata')));
  const af = catalog.lookup(PDFName.of('AF'), PDFArray);
  const intents = catalog.lookup(PDFName.of('OutputIntents'), PDFArray);
  const intent = intents.lookup(0, PDFDict);
  const profile = stream(intent.lookup(PDFName.of('DestOutputProfile')));
  return {
    pdf,
    xmp: Buffer.from(metadata.getContents()).toString('utf8'),
    metadataFilter: metadata.dict.get(PDFName.of('Filter')),
    af,
    intent,
    icc: Buffer.from(decodePDFRawStream(profile).decode()),
    id: pdf.context.trailerInfo.ID?.toString(),
  };
}

describe.each(SOURCES)('a %s invoice as Factur-X', (_syntax, load) => {
  const c = load();

  it('is read by our hybrid intake as Factur-X EN 16931 with no issue, and re-ingests as the same invoice', async () => {
    const fx = await canonicalToFacturX(c, { documentId: 'doc_01TEST' });
    expect(fx.profile).toBe('EN 16931');
    const hybrid = await extractHybridPdf(fx.pdf);
    expect(hybrid).toMatchObject({ flavour: 'factur-x', profile: 'EN 16931', profileSource: 'xmp', relationship: 'Alternative', filename: FACTUR_X_FILENAME, syntax: 'cii', guidelineId: 'urn:cen.eu:en16931:2017', xmpIssues: [] });
    expect(hybrid.xmp).toEqual({ namespace: FACTUR_X_XMP_NS, documentType: 'INVOICE', documentFileName: FACTUR_X_FILENAME, version: '1.0', conformanceLevel: 'EN 16931' });
    expect(hybrid.attachments.map((a) => a.name)).toEqual([FACTUR_X_FILENAME]);
    expect(hybrid.xml.toString('utf8')).toBe(fx.xml);

    // Detection (format=auto) reads it as the CII it carries, BT-24 being Factur-X's EN 16931 one:
    // exactly the invoice's CII form (nothing lost in the PDF) …
    const deposit = await ingestAuto(Buffer.from(fx.pdf));
    expect(deposit.format).toBe('cii-xml');
    expect(deposit.hybrid).toBeDefined();
    const back = deposit.parsed.canonical;
    expect(back.customizationId).toBe('urn:cen.eu:en16931:2017');
    expect(back).toEqual(ciiToCanonical(canonicalToCii({ ...c, customizationId: back.customizationId })).canonical);
    // … which is the invoice itself, but for what CII cannot say: a UBL price discount without its
    // gross price gets one (CII writes the gross price with the discount), FatturaPA's regime fiscale (no EN 16931 term).
    const cannotSay = (x: CanonicalInvoice): CanonicalInvoice => ({
      ...x, customizationId: '', extensions: undefined,
      lines: x.lines.map((l) => ({ ...l, price: { ...l.price, grossPrice: l.price.discount !== undefined ? undefined : l.price.grossPrice } })),
    });
    expect(cannotSay(back)).toEqual(cannotSay(c));
    if (_syntax === 'CII D16B') expect(back).toEqual(c);
  });

  it('shows the invoice: seller, buyer and the amount due', async () => {
    const text = (await pdfPagesText((await canonicalToFacturX(c)).pdf)).join('\n').replace(/\s+/g, ' ');
    expect(text).toContain(c.seller.name.replace(/\s+/g, ' ').trim());
    expect(text).toContain(c.buyer.name.replace(/\s+/g, ' ').trim());
    expect(text).toContain(`Amount due ${formatAmount(c.totals.payable, c.currency)}`);
  });
});

describe.each(SOURCES.slice(0, 3))('a %s invoice as Factur-X, validated', (_syntax, load) => {
  it('passes the XSD and EN 16931 rules as a format=auto deposit', async () => {
    const fx = await canonicalToFacturX(load());
    const result = await validateInput({ format: 'auto', base64: Buffer.from(fx.pdf).toString('base64') }, {});
    expect(result.findings.filter((f) => f.severity === 'fatal')).toEqual([]);
    expect(result.valid).toBe(true);
    expect(result.syntax).toBe('cii');
  });
});

describe('the PDF/A-3 parts', () => {
  const c = SOURCES[0]![1]();

  it('associated file in /AF and the EmbeddedFiles tree, XMP with the PDF/A-3B id and the Factur-X schema, sRGB output intent, trailer /ID', async () => {
    const fx = await canonicalToFacturX(c, { documentId: 'doc_01TEST' });
    const parts = await partsOf(fx.pdf);
    expect(parts.af.size()).toBe(1);
    const spec = parts.af.lookup(0, PDFDict);
    expect(spec.get(PDFName.of('AFRelationship'))).toBe(PDFName.of('Alternative'));
    expect(spec.get(PDFName.of('Type'))).toBe(PDFName.of('Filespec'));
    const file = stream(spec.lookup(PDFName.of('EF'), PDFDict).lookup(PDFName.of('F')));
    expect(file.dict.get(PDFName.of('Subtype'))).toBe(PDFName.of('text/xml'));
    expect(file.dict.lookup(PDFName.of('Params'), PDFDict).has(PDFName.of('ModDate'))).toBe(true);

    expect(parts.metadataFilter).toBeUndefined();
    for (const fragment of [
      '<pdfaid:part>3</pdfaid:part>', '<pdfaid:conformance>B</pdfaid:conformance>',
      `<pdfaSchema:namespaceURI>${FACTUR_X_XMP_NS}</pdfaSchema:namespaceURI>`, '<pdfaSchema:prefix>fx</pdfaSchema:prefix>',
      '<fx:ConformanceLevel>EN 16931</fx:ConformanceLevel>', '<fx:DocumentFileName>factur-x.xml</fx:DocumentFileName>',
      `<xmp:CreateDate>${c.issueDate}T00:00:00Z</xmp:CreateDate>`,
    ]) expect(parts.xmp).toContain(fragment);
    // The Info dictionary says what the XMP says (PDF/A 6.6.2.3).
    expect(parts.pdf.getTitle()).toBe(`Invoice ${c.number}`);
    expect(parts.xmp).toContain(`<rdf:li xml:lang="x-default">Invoice ${c.number}</rdf:li>`);
    expect(parts.pdf.getCreationDate()?.toISOString()).toBe(`${c.issueDate}T00:00:00.000Z`);
    expect(parts.pdf.getProducer()).toBe('einvoicing-exchange (pdf-lib)');
    expect(parts.xmp).toContain('<pdf:Producer>einvoicing-exchange (pdf-lib)</pdf:Producer>');

    expect(parts.intent.get(PDFName.of('S'))).toBe(PDFName.of('GTS_PDFA1'));
    expect(parts.icc.equals(srgbIccProfile())).toBe(true);
    expect(parts.id).toMatch(/^\[ <[0-9a-f]{32}> <[0-9a-f]{32}> \]$/);
  });

  it('the sRGB profile is an ICC v2 RGB display profile whose header states its size', () => {
    const icc = srgbIccProfile();
    expect(icc.readUInt32BE(0)).toBe(icc.length);
    expect(icc.subarray(36, 40).toString('latin1')).toBe('acsp');
    expect(icc.subarray(12, 24).toString('latin1')).toBe('mntrRGB XYZ ');
    expect(icc.readUInt32BE(8)).toBe(0x02100000);
    const tags = icc.readUInt32BE(128);
    const signatures = Array.from({ length: tags }, (_, i) => icc.subarray(132 + i * 12, 136 + i * 12).toString('latin1'));
    expect(signatures).toEqual(['desc', 'cprt', 'wtpt', 'rXYZ', 'gXYZ', 'bXYZ', 'rTRC', 'gTRC', 'bTRC']);
    for (let i = 0; i < tags; i++) {
      const [offset, size] = [icc.readUInt32BE(136 + i * 12), icc.readUInt32BE(140 + i * 12)];
      expect(offset % 4).toBe(0);
      expect(offset + size).toBeLessThanOrEqual(icc.length);
    }
  });

  it('is deterministic: the same document gives the same bytes; another document id another /ID', async () => {
    const [a, b, other] = [await canonicalToFacturX(c, { documentId: 'doc_A' }), await canonicalToFacturX(structuredClone(c), { documentId: 'doc_A' }), await canonicalToFacturX(c, { documentId: 'doc_B' })];
    expect(Buffer.from(a.pdf).equals(Buffer.from(b.pdf))).toBe(true);
    expect((await partsOf(other.pdf)).id).not.toBe((await partsOf(a.pdf)).id);
  });

  it('a CII record is embedded byte for byte, its own profile in the XMP', async () => {
    const cii = read('eInvoicing-EN16931/cii/examples/CII_example2.xml').toString('utf8');
    const fx = await canonicalToFacturX(ciiToCanonical(cii).canonical, { cii });
    const hybrid = await extractHybridPdf(fx.pdf);
    expect(hybrid.xml.toString('utf8')).toBe(cii);
    expect(hybrid.xmpIssues).toEqual([]);
    const extended = cii.replace('urn:cen.eu:en16931:2017', 'urn:cen.eu:en16931:2017#conformant#urn:factur-x.eu:1p0:extended');
    const ext = await extractHybridPdf((await canonicalToFacturX(ciiToCanonical(extended).canonical, { cii: extended })).pdf);
    expect(ext).toMatchObject({ profile: 'EXTENDED', relationship: 'Alternative', xmpIssues: [] });
  });

  it('a CII larger than our hybrid reader accepts is refused (PAYLOAD_TOO_LARGE), not written', async () => {
    configurePdfLimits({ ...DEFAULT_PDF_LIMITS, maxInflatedBytes: 4_096 });
    try {
      const err = await canonicalToFacturX(c).then(() => null, (e: unknown) => e);
      expect(err).toBeInstanceOf(MappingError);
      expect(err).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: [{ rule: 'max-embedded-bytes' }] });
    } finally {
      configurePdfLimits(DEFAULT_PDF_LIMITS);
    }
  });

  it('non-Latin text: the visual draws what its fonts have (Polish) and marks the rest (CJK); the CII keeps all of it', async () => {
    const polish = { ...c, seller: { ...c.seller, name: 'Przedsiębiorstwo Łódź 株式会社' } };
    const fx = await canonicalToFacturX(polish);
    expect((await pdfPagesText(fx.pdf)).join('\n')).toContain('Przedsiębiorstwo Łódź ????');
    const back = (await ingestAuto(Buffer.from(fx.pdf))).parsed.canonical;
    expect(back.seller.name).toBe('Przedsiębiorstwo Łódź 株式会社');
    expect(isDeepStrictEqual(back, { ...polish, customizationId: back.customizationId })).toBe(true);
  });
});
