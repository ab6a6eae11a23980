/**
 * Every font dictionary of a PDF and whether its program is in the file, read with pdf-lib's
 * low-level objects: what PDF/A clause 6.2.11.4 ("all fonts embedded") asks. All indirect
 * objects are walked, not only the pages' resources, so a font used by a form or an annotation is
 * not missed. A composite (Type0) font's program is on its descendant CIDFont's descriptor.
 */
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFRawStream, type PDFObject } from 'pdf-lib';

export interface PdfFont {
  /** The font's BaseFont. */
  name: string;
  /** Type0, TrueType, Type1 …, and the descendant's (CIDFontType2 …) for a Type0 font. */
  subtype: string;
  /** Which of FontFile / FontFile2 / FontFile3 holds the program, and its encoded length; undefined when none. */
  program?: { key: 'FontFile' | 'FontFile2' | 'FontFile3'; bytes: number };
}

const FONT_FILES = ['FontFile', 'FontFile2', 'FontFile3'] as const;

function programOf(descriptor: PDFObject | undefined): PdfFont['program'] {
  if (!(descriptor instanceof PDFDict)) return undefined;
  for (const key of FONT_FILES) {
    const file = descriptor.lookup(PDFName.of(key));
    if (file instanceof PDFRawStream) return { key, bytes: file.contents.length };
  }
  return undefined;
}

/** The fonts of `bytes`, top-level font dictionaries only (a Type0's descendant is reported on it). */
export async function pdfFonts(bytes: Uint8Array): Promise<PdfFont[]> {
  const pdf = await PDFDocument.load(bytes, { updateMetadata: false });
  const fonts: PdfFont[] = [];
  for (const [, object] of pdf.context.enumerateIndirectObjects()) {
    const dict = object instanceof PDFDict ? object : undefined;
    if (!dict || dict.get(PDFName.of('Type')) !== PDFName.of('Font')) continue;
    const subtype = dict.get(PDFName.of('Subtype'))?.toString() ?? '';
    if (subtype === '/CIDFontType0' || subtype === '/CIDFontType2') continue; // a descendant: seen from its Type0
    const name = dict.get(PDFName.of('BaseFont'))?.toString().replace(/^\//, '') ?? '';
    if (subtype === '/Type0') {
      const descendant = dict.lookup(PDFName.of('DescendantFonts'), PDFArray).lookup(0, PDFDict);
      const program = programOf(descendant.lookup(PDFName.of('FontDescriptor')));
      fonts.push({ name, subtype: `Type0/${descendant.get(PDFName.of('Subtype'))?.toString().slice(1)}`, ...(program ? { program } : {}) });
    } else {
      const program = programOf(dict.lookup(PDFName.of('FontDescriptor')));
      fonts.push({ name, subtype: subtype.slice(1), ...(program ? { program } : {}) });
    }
  }
  return fonts;
}
