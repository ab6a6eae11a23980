/**
 * The text of a PDF as a reader gets it, page by page (pdfjs-dist, the PDF.js engine): what the
 * renderer tests compare with the invoice. Items on one line are joined by a space; lines end with
 * a newline.
 */
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { join } from 'node:path';
import { REPO_ROOT } from './corpus.ts';

const STANDARD_FONTS = `${join(REPO_ROOT, 'node_modules/pdfjs-dist/standard_fonts')}/`;

export async function pdfPagesText(bytes: Uint8Array): Promise<string[]> {
  // pdf.js takes ownership of (detaches) the buffer it is given: hand it a copy.
  const task = getDocument({ data: new Uint8Array(bytes), standardFontDataUrl: STANDARD_FONTS, verbosity: 0 });
  const doc = await task.promise;
  try {
    const pages: string[] = [];
    for (let n = 1; n <= doc.numPages; n++) {
      const content = await (await doc.getPage(n)).getTextContent();
      let text = '';
      for (const item of content.items) {
        if (!('str' in item)) continue;
        text += item.str + (item.hasEOL ? '\n' : ' ');
      }
      pages.push(text.replace(/[ \t]+/g, ' '));
    }
    return pages;
  } finally {
    await task.destroy();
  }
}
