/**
 * The fonts of the drawn PDF and the Factur-X: DejaVu Sans, regular and bold (package
 * `dejavu-fonts-ttf`, Bitstream Vera licence with DejaVu changes in the public domain; see
 * README.md), embedded as TrueType subsets through pdf-lib's companion `@pdf-lib/fontkit`.
 *
 * Why embedded: PDF/A (clause 6.2.11.4) wants every font's program in the file, and a standard
 * font such as Helvetica has none; and DejaVu Sans covers Latin with its extensions (Polish, Czech,
 * Turkish, Romanian …), Greek, Cyrillic and more, where Helvetica's WinAnsi stops at Western Europe.
 * Subset: a document carries the glyphs it draws (a few KB), not the 700 KB fonts.
 *
 * Cost: the TTFs are read and parsed once per process, on the first PDF, and kept (bytes, parsed
 * font, glyph widths); a document then pays for the glyphs it draws and its two subsets.
 *
 * Deterministic: each font gets a fixed subset name (tag + PostScript name, the PDF form of a
 * subset's name) instead of pdf-lib's generated suffix, and text layout applies no OpenType
 * feature, so the same text always gives the same glyphs.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import fontkit from '@pdf-lib/fontkit';
import type { PDFDocument, PDFFont } from 'pdf-lib';

/** One weight as read once per process: its TTF bytes, the font fontkit parsed from them, its glyph widths. */
interface Weight {
  bytes: Uint8Array;
  font: fontkit.Font;
  /** The advance width of a code point's glyph, in thousandths of the font size (cached per code point). */
  advance(cp: number): number;
}

interface LoadedFonts {
  regular: Weight;
  bold: Weight;
  /** Code points both weights draw, minus the ones we do not lay out ({@link isUnlaidScript}). */
  characters: ReadonlySet<number>;
}

/** A font embedded into one document, with a width measure that needs no text layout. */
export interface InvoiceFont {
  pdf: PDFFont;
  /**
   * The width of `text` at `size`: the sum of its glyphs' advance widths, which is what pdf-lib
   * draws (one glyph per character, no positioning). The same figure as `pdf.widthOfTextAtSize`,
   * without a fontkit layout per call, which the line wrapping makes thousands of per page.
   */
  widthOfTextAtSize(text: string, size: number): number;
}

export interface InvoiceFonts {
  regular: InvoiceFont;
  bold: InvoiceFont;
  /** Code points the two fonts draw as themselves; any other is the renderer's to replace. */
  characters: ReadonlySet<number>;
}

/**
 * OpenType features, all off: one glyph per character, as pdf-lib draws it. pdf-lib writes no
 * glyph positions, so kerning would make measured widths differ from drawn ones, and a ligature
 * (DejaVu's "ffi") would read back from the PDF as one unknown character.
 */
const NO_FEATURES = {
  ccmp: false, locl: false, rlig: false, mark: false, mkmk: false, calt: false, clig: false, liga: false, rclt: false, curs: false, kern: false,
} as const;

/**
 * Right-to-left scripts (Hebrew, Arabic, Syriac, Thaana, N'Ko, Samaritan, Mandaic and their
 * presentation forms): DejaVu has glyphs for some, but the renderer draws left to right without
 * shaping, which would show them reversed and unjoined. They stay replaced, like text DejaVu lacks.
 */
function isUnlaidScript(cp: number): boolean {
  return (cp >= 0x0590 && cp <= 0x08ff) || (cp >= 0xfb1d && cp <= 0xfdff) || (cp >= 0xfe70 && cp <= 0xfeff);
}

/** Reads one weight's TTF from the package and parses it (for its character set and widths). */
function readWeight(file: string): { weight: Weight; characterSet: number[] } {
  const bytes = readFileSync(createRequire(import.meta.url).resolve(`dejavu-fonts-ttf/ttf/${file}`));
  const font = fontkit.create(bytes);
  const scale = 1000 / font.unitsPerEm;
  const widths = new Map<number, number>();
  const advance = (cp: number): number => {
    let w = widths.get(cp);
    if (w === undefined) widths.set(cp, w = font.glyphForCodePoint(cp).advanceWidth * scale);
    return w;
  };
  return { weight: { bytes, font, advance }, characterSet: font.characterSet };
}

let loaded: LoadedFonts | undefined;

/** The two weights and their shared character set, read on first use and kept for the process. */
function loadedFonts(): LoadedFonts {
  if (loaded) return loaded;
  const regular = readWeight('DejaVuSans.ttf');
  const bold = readWeight('DejaVuSans-Bold.ttf');
  const inBold = new Set(bold.characterSet);
  const characters = new Set(regular.characterSet.filter((cp) => inBold.has(cp) && !isUnlaidScript(cp)));
  loaded = { regular: regular.weight, bold: bold.weight, characters };
  return loaded;
}

async function embed(pdf: PDFDocument, weight: Weight, subsetName: string): Promise<InvoiceFont> {
  const font = await pdf.embedFont(weight.bytes, { subset: true, customName: subsetName, features: NO_FEATURES });
  return {
    pdf: font,
    widthOfTextAtSize(text, size) {
      let width = 0;
      for (const ch of text) width += weight.advance(ch.codePointAt(0)!);
      return (width * size) / 1000;
    },
  };
}

/**
 * The fontkit pdf-lib is given: `embedFont` asks it to parse the bytes of every font it embeds;
 * for our two weights it answers with the font parsed once for the process, which saves both
 * parses per document. Sharing is sound: a fontkit font only caches what it reads from its bytes,
 * and each document's subset is its own (`createSubset`, which copies the tables it changes).
 */
function sharedFontkit(fonts: LoadedFonts): { create(bytes: Uint8Array): fontkit.Font } {
  return { create: (bytes) => (bytes === fonts.regular.bytes ? fonts.regular.font : bytes === fonts.bold.bytes ? fonts.bold.font : fontkit.create(bytes)) };
}

/** Embeds the two DejaVu Sans weights into `pdf` as subsets (only the glyphs drawn end up in the file). */
/**
 * The regular weight alone, for a caption drawn onto a PDF this renderer did not make (the
 * clearance QR stamp): embedded and subset like the invoice's, so a stamped PDF/A stays one.
 */
export async function embedCaptionFont(pdf: PDFDocument): Promise<{ font: InvoiceFont; characters: ReadonlySet<number> }> {
  const fonts = loadedFonts();
  pdf.registerFontkit(sharedFontkit(fonts));
  return { font: await embed(pdf, fonts.regular, 'DJVSAN+DejaVuSans'), characters: fonts.characters };
}

export async function embedInvoiceFonts(pdf: PDFDocument): Promise<InvoiceFonts> {
  const fonts = loadedFonts();
  const { regular, bold, characters } = fonts;
  pdf.registerFontkit(sharedFontkit(fonts));
  return {
    regular: await embed(pdf, regular, 'DJVSAN+DejaVuSans'),
    bold: await embed(pdf, bold, 'DJVSAB+DejaVuSans-Bold'),
    characters,
  };
}
