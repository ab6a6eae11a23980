/**
 * The fonts of the drawn PDF and the Factur-X: every font dictionary in the file carries its
 * program (PDF/A 6.2.11.4), walked with pdf-lib's low-level objects; the programs are DejaVu Sans
 * subsets (a few KB, not the 700 KB fonts) under fixed names; the renderer's width measure is the
 * one pdf-lib draws with; the character set is DejaVu's minus what we do not lay out; the fonts
 * shared by the process leave no trace from one document in the next one's bytes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { canonicalToFacturX, canonicalToPdf, ciiToCanonical, type CanonicalInvoice } from '../../../../mappings/index.ts';
import { embedInvoiceFonts } from '../../../../mappings/render/fonts.ts';
import { corpusDir } from '../../../support/corpus.ts';
import { pdfFonts } from '../../../support/pdf-fonts.ts';

const SCRIPTS = ['Żółć gęślą jaźń', 'Příliš žluťoučký kůň', 'Ελληνικά', 'Счёт-фактура', 'Şoför İğne ığdır', 'Țară și ţară', 'Café crème €5'];

function invoice(): CanonicalInvoice {
  const c = ciiToCanonical(readFileSync(join(corpusDir(), 'eInvoicing-EN16931/cii/examples/CII_example2.xml'))).canonical;
  const line = c.lines[0]!;
  return { ...c, seller: { ...c.seller, name: 'Przedsiębiorstwo Łódź 株式会社' }, lines: SCRIPTS.map((name, i) => ({ ...line, id: `L${i + 1}`, item: { ...line.item, name } })) };
}

const EMBEDDED_DEJAVU = [
  { name: 'DJVSAN+DejaVuSans', subtype: 'Type0/CIDFontType2', program: { key: 'FontFile2', bytes: expect.any(Number) } },
  { name: 'DJVSAB+DejaVuSans-Bold', subtype: 'Type0/CIDFontType2', program: { key: 'FontFile2', bytes: expect.any(Number) } },
];

/** The process's first rendering, before any font is loaded or any glyph cached: compared with a later one below. */
let first: Uint8Array;
beforeAll(async () => { first = await canonicalToPdf(invoice()); });

describe('every font is embedded', () => {
  it('the check itself: a standard Helvetica, as the renderer drew before, is reported without a program', async () => {
    const pdf = await PDFDocument.create();
    pdf.addPage().drawText('Invoice', { font: await pdf.embedFont(StandardFonts.Helvetica) });
    expect(await pdfFonts(await pdf.save())).toEqual([{ name: 'Helvetica', subtype: 'Type1' }]);
  });

  it.each([
    ['the drawn PDF', (c: CanonicalInvoice) => canonicalToPdf(c)],
    ['the Factur-X', async (c: CanonicalInvoice) => (await canonicalToFacturX(c)).pdf],
  ])('%s: DejaVu Sans regular and bold, each with its TrueType program (FontFile2), subset', async (_what, render) => {
    const fonts = await pdfFonts(await render(invoice()));
    expect(fonts).toEqual(expect.arrayContaining(EMBEDDED_DEJAVU));
    expect(fonts).toHaveLength(2);
    for (const font of fonts) {
      expect(font.program).toBeDefined();
      // Subset: the glyphs drawn, far below the 705–757 KB of the full fonts.
      expect(font.program!.bytes).toBeLessThan(60_000);
    }
  });
});

describe('the fonts as the renderer uses them', () => {
  it('measures text as pdf-lib draws it (glyph advance widths, no layout per call)', async () => {
    const fonts = await embedInvoiceFonts(await PDFDocument.create());
    for (const font of [fonts.regular, fonts.bold]) {
      for (const text of [...SCRIPTS, 'Amount due NOK 1,801.78', 'office ffi AV To', '…']) {
        expect(font.widthOfTextAtSize(text, 9)).toBeCloseTo(font.pdf.widthOfTextAtSize(text, 9), 6);
      }
    }
  });

  it('draws Latin with its extensions, Greek and Cyrillic; not CJK (absent from DejaVu) nor right-to-left scripts (not laid out)', async () => {
    const { characters } = await embedInvoiceFonts(await PDFDocument.create());
    for (const ch of SCRIPTS.join('')) expect(characters.has(ch.codePointAt(0)!)).toBe(true);
    for (const ch of '株式会社中文' + 'فاتورة' + 'חשבונית') expect(characters.has(ch.codePointAt(0)!)).toBe(false);
  });
});

it('the first document of the process, fonts cold, and a later one, after other texts, are the same bytes', async () => {
  await canonicalToPdf({ ...invoice(), notes: [{ text: 'Ωμέγα Юникод ŁŻŚ ﬁ ß' }] });
  expect(Buffer.from(await canonicalToPdf(invoice())).equals(Buffer.from(first))).toBe(true);
});
