import { deflateSync } from 'node:zlib';
import { PDFDocument } from 'pdf-lib';
import { extractHybridPdf } from '../../../../mappings/factur-x/extract.ts';
import { configurePdfLimits, DEFAULT_PDF_LIMITS, type PdfLimits } from '../../../../mappings/factur-x/limits.ts';
import { pdfInflateBomb } from '../../../support/hostile-inputs.ts';

const CII = '<?xml version="1.0"?><rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"/>';

async function refusal(pdf: Uint8Array): Promise<{ code: string; rule: string; message: string }> {
  const err = await extractHybridPdf(pdf).then(() => undefined, (e: unknown) => e) as { code: string; message: string; details: Array<{ rule: string }> } | undefined;
  if (!err) throw new Error('the PDF was accepted');
  return { code: err.code, rule: err.details[0]!.rule, message: err.message };
}

function withLimits(limits: Partial<PdfLimits>): void {
  configurePdfLimits({ ...DEFAULT_PDF_LIMITS, ...limits });
}

afterEach(() => configurePdfLimits(DEFAULT_PDF_LIMITS));

describe('PDF input caps', () => {
  it('stops inflating an embedded file at the cap: 1 GB of zeros costs at most a few cap-sized buffers', async () => {
    const bomb = await pdfInflateBomb(1024 ** 3);
    const rss = process.memoryUsage().rss;
    // How long the refusal takes is measured by bench/hostile-pdf.bench.ts, not asserted here.
    expect(await refusal(bomb)).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', rule: 'max-inflated-bytes', message: expect.stringContaining('factur-x.xml') });
    expect((process.memoryUsage().rss - rss) / 1024 ** 2).toBeLessThan(4 * DEFAULT_PDF_LIMITS.maxInflatedBytes / 1024 ** 2);
  }, 30_000);

  it('accepts an embedded file at the cap and refuses one byte more', async () => {
    const doc = await PDFDocument.create();
    await doc.attach(Buffer.from(CII), 'factur-x.xml', { mimeType: 'text/xml' });
    const pdf = await doc.save({ useObjectStreams: false });
    withLimits({ maxInflatedBytes: CII.length });
    await expect(extractHybridPdf(pdf)).resolves.toMatchObject({ filename: 'factur-x.xml', syntax: 'cii' });
    withLimits({ maxInflatedBytes: CII.length - 1 });
    expect(await refusal(pdf)).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', rule: 'max-inflated-bytes' });
  });

  it('bounds an object stream pdf-lib would decode whole while loading (its loader would swallow the error)', async () => {
    const compressed = deflateSync(Buffer.alloc(8 * 1024 * 1024));
    const pdf = Buffer.concat([
      Buffer.from('%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\n'),
      Buffer.from(`3 0 obj\n<< /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode /Length ${compressed.length} >>\nstream\n`), compressed,
      Buffer.from('\nendstream\nendobj\ntrailer\n<< /Root 1 0 R /Size 4 >>\n%%EOF\n'),
    ]);
    withLimits({ maxInflatedBytes: 1024 * 1024 });
    expect(await refusal(pdf)).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', rule: 'max-inflated-bytes', message: expect.stringContaining('object stream') });
  });

  it('caps the number of embedded files and of objects', async () => {
    const doc = await PDFDocument.create();
    for (const name of ['a.xml', 'b.xml', 'factur-x.xml']) await doc.attach(Buffer.from(CII), name, { mimeType: 'text/xml' });
    const pdf = await doc.save({ useObjectStreams: false });
    withLimits({ maxEmbeddedFiles: 2 });
    expect(await refusal(pdf)).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', rule: 'max-embedded-files' });
    withLimits({ maxObjects: 5 });
    expect(await refusal(pdf)).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', rule: 'max-objects' });
    withLimits({});
    await expect(extractHybridPdf(pdf)).resolves.toMatchObject({ filename: 'factur-x.xml' });
  });
});
