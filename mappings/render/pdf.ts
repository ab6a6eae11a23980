/**
 * The readable PDF of an invoice, drawn with pdf-lib from the same view as the HTML preview: A4,
 * header facts, parties, the lines table (repeated header on every page it runs over), allowances
 * and charges, VAT breakdown, totals, payment, notes, and "page n of N" on each page.
 *
 * Fonts: DejaVu Sans, regular and bold, embedded as subsets (fonts.ts): Latin with its extensions,
 * Greek, Cyrillic and more draw as themselves, and the file carries every font it uses (PDF/A).
 * A character the fonts lack (CJK …) or that we do not lay out (right-to-left scripts) is drawn as
 * "?" and, when one is, every page says so in its footer, pointing to the HTML preview and the XML,
 * which show the text in full. It never throws on text.
 *
 * Deterministic: no clock, no random id; the PDF's dates are the invoice's issue date.
 * Pure (bytes out).
 */
import { PDFDocument, rgb, type PDFPage } from 'pdf-lib';
import type { CanonicalInvoice } from '../canonical/model.ts';
import { embedInvoiceFonts, type InvoiceFont, type InvoiceFonts } from './fonts.ts';
import { invoiceView, type Fact, type InvoiceView } from './view.ts';

const PAGE_WIDTH = 595.28;
const PAGE_HEIGHT = 841.89;
const MARGIN = 40;
const FOOTER_HEIGHT = 28;
const BODY = 9;
const SMALL = 7.5;
const LEADING = 1.25;
/** Lines one table cell shows at most (a cell never outgrows a page). */
const MAX_CELL_LINES = 40;
const GREY = rgb(0.35, 0.35, 0.35);
const RULE = rgb(0.8, 0.8, 0.8);

/** The marker a character outside the fonts becomes. */
export const MISSING_GLYPH = '?';
/** The footer line of a page where some character could not be drawn. */
export const DEGRADED_NOTICE = '"?" marks characters this PDF\'s font cannot show; the HTML preview (/preview) and the XML show them.';

export interface RenderedPdfDocument {
  pdf: PDFDocument;
  /** Some text had characters outside the fonts (drawn as {@link MISSING_GLYPH}). */
  degraded: boolean;
}

interface Column { title: string; width: number; align: 'left' | 'right' }

const LINE_COLUMNS: readonly Column[] = [
  { title: '#', width: 28, align: 'left' },
  { title: 'Item', width: 190, align: 'left' },
  { title: 'Quantity', width: 52, align: 'right' },
  { title: 'Unit', width: 32, align: 'left' },
  { title: 'Net price', width: 80, align: 'right' },
  { title: 'VAT', width: 48, align: 'left' },
  { title: 'Net amount', width: 85.28, align: 'right' },
];
const VAT_COLUMNS: readonly Column[] = [
  { title: 'Category', width: 150, align: 'left' },
  { title: 'Rate', width: 50, align: 'right' },
  { title: 'Taxable amount', width: 95, align: 'right' },
  { title: 'VAT amount', width: 95, align: 'right' },
  { title: 'Exemption', width: 125.28, align: 'left' },
];
const AC_COLUMNS: readonly Column[] = [
  { title: '', width: 70, align: 'left' },
  { title: 'Reason', width: 250, align: 'left' },
  { title: 'VAT', width: 80, align: 'left' },
  { title: 'Amount', width: 115.28, align: 'right' },
];

/** Draws the view page by page; one instance per document. */
class Layout {
  readonly pages: PDFPage[] = [];
  /** Some character was replaced: every page's footer says so. */
  degraded = false;
  private page!: PDFPage;
  private y = 0;
  private readonly charset: ReadonlySet<number>;
  private readonly pdf: PDFDocument;
  private readonly font: InvoiceFont;
  private readonly bold: InvoiceFont;

  constructor(pdf: PDFDocument, fonts: InvoiceFonts) {
    this.pdf = pdf;
    this.font = fonts.regular;
    this.bold = fonts.bold;
    this.charset = fonts.characters;
    this.newPage();
  }

  newPage(): void {
    this.page = this.pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
    this.pages.push(this.page);
    this.y = PAGE_HEIGHT - MARGIN;
  }

  /** Room left above the footer. */
  private room(): number {
    return this.y - MARGIN - FOOTER_HEIGHT;
  }

  ensure(height: number): boolean {
    if (this.room() >= height) return false;
    this.newPage();
    return true;
  }

  /**
   * The text in the fonts' character set: composed (NFC, so a letter and its combining accent
   * become the one glyph the font has), whitespace runs one space, other characters outside it
   * {@link MISSING_GLYPH}.
   */
  drawable(text: string): string {
    let out = '';
    let replaced = false;
    for (const ch of text.normalize('NFC').replace(/\s+/g, ' ')) {
      const cp = ch.codePointAt(0)!;
      if (this.charset.has(cp)) out += ch;
      else { out += MISSING_GLYPH; replaced = true; }
    }
    if (replaced) this.degraded = true;
    return out;
  }

  /** Words wrapped to `width`; a word wider than the column is cut. */
  wrap(text: string, font: InvoiceFont, size: number, width: number): string[] {
    const lines: string[] = [];
    let current = '';
    for (const word of text.split(' ')) {
      let w = word;
      while (font.widthOfTextAtSize(w, size) > width && w.length > 1) {
        // Cut the longest head that fits.
        let cut = w.length - 1;
        while (cut > 1 && font.widthOfTextAtSize(w.slice(0, cut), size) > width) cut = Math.floor(cut * 0.8);
        if (current) { lines.push(current); current = ''; }
        lines.push(w.slice(0, cut));
        w = w.slice(cut);
      }
      const candidate = current ? `${current} ${w}` : w;
      if (font.widthOfTextAtSize(candidate, size) <= width) current = candidate;
      else { if (current) lines.push(current); current = w; }
    }
    if (current) lines.push(current);
    return lines.length ? lines : [''];
  }

  text(text: string, x: number, y: number, size: number, font: InvoiceFont = this.font, color = rgb(0, 0, 0)): void {
    this.page.drawText(text, { x, y, size, font: font.pdf, color });
  }

  heading(title: string): void {
    this.ensure(BODY * 6);
    this.y -= 10;
    this.text(this.drawable(title), MARGIN, this.y - 11, 11, this.bold);
    this.y -= 15;
    this.page.drawLine({ start: { x: MARGIN, y: this.y }, end: { x: PAGE_WIDTH - MARGIN, y: this.y }, thickness: 0.5, color: RULE });
    this.y -= 4;
  }

  /** Label/value pairs, two columns of text. */
  facts(facts: readonly Fact[], labelWidth = 130): void {
    for (const [label, value] of facts) {
      const lines = this.wrap(this.drawable(value), this.font, BODY, PAGE_WIDTH - 2 * MARGIN - labelWidth).slice(0, MAX_CELL_LINES);
      const height = lines.length * BODY * LEADING;
      this.ensure(height);
      this.text(this.drawable(label), MARGIN, this.y - BODY, BODY, this.font, GREY);
      lines.forEach((line, i) => this.text(line, MARGIN + labelWidth, this.y - BODY - i * BODY * LEADING, BODY));
      this.y -= height + 1;
    }
  }

  private tableHeader(columns: readonly Column[]): void {
    let x = MARGIN;
    for (const col of columns) {
      const w = this.bold.widthOfTextAtSize(col.title, SMALL);
      this.text(col.title, col.align === 'right' ? x + col.width - 3 - w : x + 3, this.y - SMALL - 2, SMALL, this.bold, GREY);
      x += col.width;
    }
    this.y -= SMALL * LEADING + 4;
    this.page.drawLine({ start: { x: MARGIN, y: this.y }, end: { x: PAGE_WIDTH - MARGIN, y: this.y }, thickness: 0.5, color: RULE });
  }

  /**
   * A table: each row is its cells' lines (the first line of a cell may be bold, the following
   * ones small detail); a row that does not fit starts a new page, under the header again.
   */
  table(columns: readonly Column[], rows: ReadonlyArray<ReadonlyArray<{ main: string; details?: readonly string[]; bold?: boolean }>>): void {
    this.ensure(SMALL * 6);
    this.tableHeader(columns);
    for (const row of rows) {
      const cells = row.map((cell, i) => {
        const width = columns[i]!.width - 6;
        const main = this.wrap(this.drawable(cell.main), cell.bold ? this.bold : this.font, BODY, width).map((t) => ({ t, size: BODY, bold: cell.bold === true }));
        const details = (cell.details ?? []).flatMap((d) => this.wrap(this.drawable(d), this.font, SMALL, width).map((t) => ({ t, size: SMALL, bold: false })));
        const all = [...main, ...details];
        return all.length > MAX_CELL_LINES ? [...all.slice(0, MAX_CELL_LINES - 1), { t: '…', size: SMALL, bold: false }] : all;
      });
      const height = Math.max(...cells.map((c) => c.reduce((h, l) => h + l.size * LEADING, 0))) + 5;
      if (this.ensure(height)) this.tableHeader(columns);
      let x = MARGIN;
      cells.forEach((lines, i) => {
        const col = columns[i]!;
        let y = this.y - 3;
        for (const l of lines) {
          const font = l.bold ? this.bold : this.font;
          y -= l.size;
          const text = l.t;
          const w = font.widthOfTextAtSize(text, l.size);
          this.text(text, col.align === 'right' ? x + col.width - 3 - w : x + 3, y, l.size, font, l.size === SMALL ? GREY : rgb(0, 0, 0));
          y -= l.size * (LEADING - 1);
        }
        x += col.width;
      });
      this.y -= height;
      this.page.drawLine({ start: { x: MARGIN, y: this.y }, end: { x: PAGE_WIDTH - MARGIN, y: this.y }, thickness: 0.3, color: RULE });
    }
  }

  /** Parties side by side, two per band. */
  parties(view: InvoiceView): void {
    const columnWidth = (PAGE_WIDTH - 2 * MARGIN - 20) / 2;
    for (let i = 0; i < view.parties.length; i += 2) {
      const band = view.parties.slice(i, i + 2).map((p) => [
        { t: this.drawable(p.role), size: SMALL, font: this.bold, color: GREY },
        ...this.wrap(this.drawable(p.name), this.bold, BODY + 1, columnWidth).map((t) => ({ t, size: BODY + 1, font: this.bold, color: rgb(0, 0, 0) })),
        ...p.details.flatMap((d) => this.wrap(this.drawable(d), this.font, BODY, columnWidth).map((t) => ({ t, size: BODY, font: this.font, color: rgb(0, 0, 0) }))),
      ].slice(0, MAX_CELL_LINES));
      const height = Math.max(...band.map((lines) => lines.reduce((h, l) => h + l.size * LEADING, 0))) + 8;
      this.ensure(height);
      band.forEach((lines, column) => {
        let y = this.y - 4;
        for (const l of lines) {
          y -= l.size;
          this.text(l.t, MARGIN + column * (columnWidth + 20), y, l.size, l.font, l.color);
          y -= l.size * (LEADING - 1);
        }
      });
      this.y -= height;
    }
  }

  /** Totals as a right-aligned block, the amount due in bold. */
  totals(totals: readonly Fact[]): void {
    const right = PAGE_WIDTH - MARGIN;
    totals.forEach(([label, value], i) => {
      const last = i === totals.length - 1;
      const font = last ? this.bold : this.font;
      this.ensure(BODY * LEADING + 2);
      const v = this.drawable(value);
      this.text(this.drawable(label), right - 260, this.y - BODY, BODY, font, last ? rgb(0, 0, 0) : GREY);
      this.text(v, right - 3 - font.widthOfTextAtSize(v, BODY), this.y - BODY, BODY, font);
      this.y -= BODY * LEADING + 2;
    });
  }

  paragraphs(texts: readonly string[]): void {
    for (const t of texts) {
      for (const line of this.wrap(this.drawable(t), this.font, BODY, PAGE_WIDTH - 2 * MARGIN).slice(0, MAX_CELL_LINES)) {
        this.ensure(BODY * LEADING);
        this.text(line, MARGIN, this.y - BODY, BODY);
        this.y -= BODY * LEADING;
      }
      this.y -= 3;
    }
  }

  title(view: InvoiceView): void {
    const title = this.drawable(`${view.title} ${view.number}`);
    for (const line of this.wrap(title, this.bold, 18, PAGE_WIDTH - 2 * MARGIN).slice(0, 3)) {
      this.text(line, MARGIN, this.y - 18, 18, this.bold);
      this.y -= 22;
    }
    this.y -= 4;
  }

  footers(view: InvoiceView): void {
    const label = this.drawable(`${view.title} ${view.number}`).slice(0, 80);
    this.pages.forEach((page, i) => {
      const pageNo = `Page ${i + 1} of ${this.pages.length}`;
      page.drawText(label, { x: MARGIN, y: MARGIN - 10, size: SMALL, font: this.font.pdf, color: GREY });
      page.drawText(pageNo, { x: PAGE_WIDTH - MARGIN - this.font.widthOfTextAtSize(pageNo, SMALL), y: MARGIN - 10, size: SMALL, font: this.font.pdf, color: GREY });
      if (this.degraded) page.drawText(DEGRADED_NOTICE, { x: MARGIN, y: MARGIN + 2, size: SMALL, font: this.font.pdf, color: rgb(0.6, 0, 0) });
    });
  }
}

/** The PDF's dates: the issue date at midnight UTC (a date the document states, never the clock). */
export function documentDate(c: Pick<CanonicalInvoice, 'issueDate'>): Date {
  const d = /^\d{4}-\d{2}-\d{2}$/.test(c.issueDate ?? '') ? new Date(`${c.issueDate}T00:00:00Z`) : new Date(0);
  return Number.isNaN(d.getTime()) ? new Date(0) : d;
}

/** The invoice drawn into a new pdf-lib document, not yet saved (Factur-X adds its parts before saving). */
export async function invoicePdfDocument(c: CanonicalInvoice): Promise<RenderedPdfDocument> {
  const view = invoiceView(c);
  const pdf = await PDFDocument.create({ updateMetadata: false });
  const layout = new Layout(pdf, await embedInvoiceFonts(pdf));

  layout.title(view);
  layout.facts(view.facts);
  layout.heading('Parties');
  layout.parties(view);
  layout.heading('Lines');
  layout.table(LINE_COLUMNS, view.lines.map((l) => [
    { main: l.id }, { main: l.name, details: l.details, bold: true }, { main: l.quantity }, { main: l.unit }, { main: l.price }, { main: l.vat }, { main: l.net },
  ]));
  if (view.allowanceCharges.length) {
    layout.heading('Allowances and charges');
    layout.table(AC_COLUMNS, view.allowanceCharges.map((a) => [{ main: a.kind }, { main: a.reason }, { main: a.vat }, { main: a.amount }]));
  }
  layout.heading('VAT breakdown');
  layout.table(VAT_COLUMNS, view.vat.map((r) => [{ main: r.category }, { main: r.rate }, { main: r.taxable }, { main: r.tax }, { main: r.exemption }]));
  layout.heading('Totals');
  layout.totals(view.totals);
  if (view.payment.length) {
    layout.heading('Payment');
    layout.facts(view.payment);
  }
  if (view.notes.length) {
    layout.heading('Notes');
    layout.paragraphs(view.notes);
  }
  layout.footers(view);

  const date = documentDate(c);
  const title = `${view.title} ${view.number}`;
  pdf.setTitle(title);
  pdf.setSubject(title);
  pdf.setAuthor(c.seller?.name ?? '');
  pdf.setCreator('einvoicing-exchange');
  pdf.setProducer('einvoicing-exchange (pdf-lib)');
  pdf.setCreationDate(date);
  pdf.setModificationDate(date);
  pdf.setLanguage('en');
  return { pdf, degraded: layout.degraded };
}

/** The readable PDF of a canonical invoice. */
export async function canonicalToPdf(c: CanonicalInvoice): Promise<Uint8Array> {
  const { pdf } = await invoicePdfDocument(c);
  return pdf.save({ useObjectStreams: false });
}
