/** The clearance QR stamp on a PDF: the QR drawn, the caption in the invoices' embedded font, so a stamped PDF/A keeps every font embedded. */
import { PDFDocument } from 'pdf-lib';
import { stampClearanceQr } from '../../../../services/documents/stamp.tasks.ts';
import { pdfFonts } from '../../../support/pdf-fonts.ts';
import { pdfPagesText } from '../../../support/pdf-text.ts';

async function blankPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.addPage([595, 842]);
  return doc.save();
}

it('draws the caption in an embedded font, Polish letters as themselves', async () => {
  const stamped = await stampClearanceQr(await blankPdf(), 'https://ksef.example/qr/123', 'KSeF 5265877635-20260101-ABCDEF Łódź');
  if (!stamped.ok) throw new Error(stamped.message);
  const fonts = await pdfFonts(stamped.pdf);
  expect(fonts.length).toBeGreaterThan(0);
  expect(fonts.filter((f) => !f.program)).toEqual([]);
  expect((await pdfPagesText(stamped.pdf))[0]).toContain('Łódź');
});

it('draws what the font lacks as ?, and says why a PDF cannot be stamped', async () => {
  const stamped = await stampClearanceQr(await blankPdf(), 'qr', '請求書 0001');
  if (!stamped.ok) throw new Error(stamped.message);
  expect((await pdfPagesText(stamped.pdf))[0]).toContain('??? 0001');
  expect(await stampClearanceQr(new TextEncoder().encode('not a pdf'), 'qr', 'x')).toMatchObject({ ok: false, message: expect.stringContaining('cannot be opened') });
});
