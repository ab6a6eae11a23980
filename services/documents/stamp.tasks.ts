/**
 * The visual mark a clearance authority requires on an invoice's PDF (the QR code of the KSeF
 * number, ZATCA's TLV, …): drawn on the first page of the document's PDF representation, with the
 * authority's name and id beside it, off the event loop on a document worker. Pure: bytes in, bytes
 * out; a PDF pdf-lib cannot open comes back as a value, not a throw.
 */
import { PDFDocument, rgb } from 'pdf-lib';
import QRCode from 'qrcode';
import { embedCaptionFont } from '../../mappings/index.ts';

export const STAMP_TASKS = import.meta.url;

/** Side of the QR code on the page, in points (about 25 mm: readable by a phone on a printed A4). */
const QR_SIDE = 72;
const MARGIN = 18;

export type Stamped = { ok: true; pdf: Uint8Array } | { ok: false; message: string };

export async function stampClearanceQr(pdfBytes: Uint8Array, qr: string, caption: string): Promise<Stamped> {
  let pdf: PDFDocument;
  try {
    pdf = await PDFDocument.load(pdfBytes, { updateMetadata: false });
  } catch (err) {
    return { ok: false, message: `the PDF cannot be opened to add the QR code: ${(err as Error).message}` };
  }
  const page = pdf.getPages()[0];
  if (!page) return { ok: false, message: 'the PDF has no page to add the QR code to' };
  const png = await QRCode.toBuffer(qr, { type: 'png', errorCorrectionLevel: 'M', margin: 1, width: 4 * QR_SIDE });
  const image = await pdf.embedPng(png);
  const { width } = page.getSize();
  const x = width - MARGIN - QR_SIDE;
  page.drawImage(image, { x, y: MARGIN + 10, width: QR_SIDE, height: QR_SIDE });
  // The invoices' embedded font (a stamped PDF/A keeps every font embedded); what it cannot draw is '?'.
  const { font, characters } = await embedCaptionFont(pdf);
  const text = [...caption.normalize('NFC')].map((c) => (characters.has(c.codePointAt(0)!) ? c : '?')).join('').slice(0, 60);
  page.drawText(text, { x: Math.max(MARGIN, x - 60), y: MARGIN, size: 6, font: font.pdf, color: rgb(0, 0, 0) });
  return { ok: true, pdf: await pdf.save() };
}
