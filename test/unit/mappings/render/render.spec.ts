/**
 * The readable renderings read back: the HTML preview parsed as a DOM, the PDF's text extracted with
 * PDF.js. For a UBL, a CII and a FatturaPA invoice of the corpus, each shows the seller, the buyer,
 * every line (item and net amount), the VAT breakdown and the totals with their currency. Long
 * invoices paginate with the table header repeated; Latin with its extensions, Greek and Cyrillic
 * read back as themselves, and text outside the PDF fonts (CJK) degrades visibly and never throws;
 * hostile text stays text; the same invoice gives the same PDF bytes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { DOMParser } from '@xmldom/xmldom';
import {
  ublToCanonical, ciiToCanonical, fatturaPaToCanonical, canonicalToHtml, canonicalToPdf, PREVIEW_CSP, MISSING_GLYPH, DEGRADED_NOTICE,
  MAX_RENDERED_LINES, MappingError, type CanonicalInvoice,
} from '../../../../mappings/index.ts';
import { formatAmount, formatRate } from '../../../../mappings/render/format.ts';
import { corpusDir } from '../../../support/corpus.ts';
import { pdfPagesText } from '../../../support/pdf-text.ts';

const CORPUS = corpusDir();
const read = (p: string): Buffer => readFileSync(join(CORPUS, p));

const SOURCES: Array<[syntax: string, load: () => CanonicalInvoice]> = [
  ['UBL 2.1', () => ublToCanonical(read('eInvoicing-EN16931/ubl/examples/ubl-tc434-example2.xml')).canonical],
  ['CII D16B', () => ciiToCanonical(read('eInvoicing-EN16931/cii/examples/CII_example2.xml')).canonical],
  ['FatturaPA 1.2.2', () => fatturaPaToCanonical(read('ph-fatturapa/docs/1.2.2/examples/IT01234567890_FPR02.xml')).canonical],
];

type Doc = ReturnType<DOMParser['parseFromString']>;
type El = ReturnType<Doc['getElementsByTagName']>[number];

const collapse = (text: string | null | undefined): string => (text ?? '').replace(/\s+/g, ' ').trim();
const parseHtml = (html: string): Doc => new DOMParser({ errorHandler: { warning: () => undefined, error: (msg: string) => { throw new Error(msg); }, fatalError: (msg: string) => { throw new Error(msg); } } }).parseFromString(html, 'text/html');
const all = (root: Doc | El, tag: string): El[] => Array.from(root.getElementsByTagName(tag));
const byId = (doc: Doc, id: string): El => all(doc, 'section').find((s) => s.getAttribute('id') === id) ?? (() => { throw new Error(`no section ${id}`); })();
const rowsOf = (el: El): string[][] => all(all(el, 'tbody')[0] ?? el, 'tr').map((tr) => all(tr, 'td').map((td) => collapse(td.textContent)));

describe.each(SOURCES)('%s invoice', (_syntax, load) => {
  const c = load();
  const money = (v: string | undefined): string => formatAmount(v, c.currency);

  it('the HTML preview shows seller, buyer, each line, the VAT breakdown and the totals', () => {
    const doc = parseHtml(canonicalToHtml(c));
    expect(all(doc, 'script')).toHaveLength(0);
    expect(collapse(all(doc, 'h1')[0]!.textContent)).toContain(c.number);

    const parties = all(doc, 'div').filter((d) => d.getAttribute('class') === 'party');
    const party = (role: string): string => collapse(parties.find((p) => p.getAttribute('data-role') === role)?.textContent);
    expect(party('Seller')).toContain(collapse(c.seller.name));
    expect(party('Buyer')).toContain(collapse(c.buyer.name));
    if (c.seller.vatId) expect(party('Seller')).toContain(c.seller.vatId);

    const lines = rowsOf(byId(doc, 'lines'));
    expect(lines).toHaveLength(c.lines.length);
    c.lines.forEach((line, i) => {
      expect(lines[i]![1]).toContain(collapse(line.item.name));
      expect(lines[i]![6]).toBe(money(line.netAmount));
    });

    const vat = rowsOf(byId(doc, 'vat'));
    expect(vat).toHaveLength(c.vatBreakdown.length);
    c.vatBreakdown.forEach((b, i) => {
      expect(vat[i]![0]).toMatch(new RegExp(`^${b.category}\\b`));
      expect(vat[i]!.slice(1, 4)).toEqual([formatRate(b.rate), money(b.taxableAmount), money(b.taxAmount)]);
    });

    const totals = all(byId(doc, 'totals'), 'tr').map((tr) => [collapse(all(tr, 'th')[0]!.textContent), collapse(all(tr, 'td')[0]!.textContent)]);
    expect(totals).toEqual(expect.arrayContaining([['Total without VAT', money(c.totals.taxExclusive)], ['Total with VAT', money(c.totals.taxInclusive)], ['Amount due', money(c.totals.payable)]]));
    expect(totals.at(-1)).toEqual(['Amount due', money(c.totals.payable)]);
  });

  it('the PDF shows the same, read back with PDF.js', async () => {
    const pages = await pdfPagesText(await canonicalToPdf(c));
    const text = collapse(pages.join('\n'));
    expect(text).toContain(collapse(c.seller.name));
    expect(text).toContain(collapse(c.buyer.name));
    expect(text).toContain(`${c.number}`);
    for (const line of c.lines) {
      expect(text).toContain(collapse(line.item.name));
      expect(text).toContain(money(line.netAmount));
    }
    for (const b of c.vatBreakdown) expect(text).toContain(`${formatRate(b.rate)} ${money(b.taxableAmount)} ${money(b.taxAmount)}`);
    expect(text).toContain(`Total without VAT ${money(c.totals.taxExclusive)}`);
    expect(text).toContain(`Total with VAT ${money(c.totals.taxInclusive)}`);
    expect(text).toContain(`Amount due ${money(c.totals.payable)}`);
    expect(text).not.toContain(DEGRADED_NOTICE);
  });
});

describe('what the renderings state, in the corpus documents\' own values', () => {
  it('UBL example 2 (TOSL108, NOK): dates, amounts with the currency, payment terms and means', async () => {
    const c = SOURCES[0]![1]();
    const doc = parseHtml(canonicalToHtml(c));
    // Label and value pairs of the HTML (dt/dd), one line each, as the PDF writes them.
    const pairs = all(doc, 'dt').map((dt) => `${collapse(dt.textContent)} ${collapse((dt.nextSibling as El | null)?.textContent)}`);
    const totals = all(byId(doc, 'totals'), 'tr').map((tr) => collapse(all(tr, 'th')[0]!.textContent) + ' ' + collapse(all(tr, 'td')[0]!.textContent));
    const html = [...pairs, ...totals].join('\n');
    const pdf = collapse((await pdfPagesText(await canonicalToPdf(c))).join('\n'));
    for (const text of [html, pdf]) {
      for (const expected of [
        'Issue date 2013-06-30', 'Due date 2013-07-20', 'Invoicing period 2013-06-01 to 2013-06-30', 'Currency NOK',
        'Total without VAT NOK 1,436.50', 'VAT NOK 365.28', 'Total with VAT NOK 1,801.78', 'Paid NOK 1,000.00', 'Amount due NOK 801.78',
        'Payment terms 2 % discount if paid within 2 days', 'Payment means Credit transfer', 'Account NO9386011117947, BIC DNBANOKK',
      ]) expect(collapse(text)).toContain(expected);
    }
    // A negative line amount keeps its sign; an exempt bucket shows its reason.
    expect(pdf).toContain('-NOK 25.00');
    expect(pdf).toContain('Exempt New Means of Transport');
  });

  it('formats a decimal string exactly, with the currency code', () => {
    expect(formatAmount('1234567.5', 'EUR')).toBe('EUR 1,234,567.50');
    expect(formatAmount('0.125', 'EUR')).toBe('EUR 0.125');
    expect(formatAmount('-3', 'JPY')).toBe('-JPY 3.00');
    expect(formatAmount('12345678901234567.89', 'EUR')).toBe('EUR 12,345,678,901,234,567.89');
    expect(formatAmount('10', 'X1')).toBe('10.00 X1');
  });
});

/** A one-line invoice with the given item names, as many lines as names. */
function withLines(names: string[]): CanonicalInvoice {
  const c = SOURCES[1]![1]();
  const line = c.lines[0]!;
  return { ...c, lines: names.map((name, i) => ({ ...line, id: `L${i + 1}`, item: { ...line.item, name }, netAmount: `${i + 1}.00` })) };
}

describe('long, foreign and hostile invoices', () => {
  it('a long invoice paginates: every line on some page, the table header on each page it runs over, page n of N', async () => {
    const names = Array.from({ length: 180 }, (_, i) => `Article number ${i + 1} with a long descriptive name that wraps within its column`);
    const pages = await pdfPagesText(await canonicalToPdf(withLines(names)));
    expect(pages.length).toBeGreaterThan(3);
    pages.forEach((page, i) => expect(page).toContain(`Page ${i + 1} of ${pages.length}`));
    const text = collapse(pages.join('\n'));
    for (const name of names) expect(text).toContain(name);
    // Every page holding lines starts them under the header again.
    const withLinesOnPage = pages.filter((p) => /Article number \d+/.test(p));
    expect(withLinesOnPage.length).toBeGreaterThan(3);
    for (const page of withLinesOnPage) expect(page).toMatch(/Net price[\s\S]*VAT[\s\S]*Net amount/);
    // The totals come after the last line.
    expect(text.lastIndexOf('Amount due')).toBeGreaterThan(text.lastIndexOf('Article number 180'));
  });

  it('Polish, Czech, Turkish, Romanian, Greek and Cyrillic text is drawn as itself, with no notice', async () => {
    const names = [
      'Żółć gęślą jaźń', 'Příliš žluťoučký kůň úpěl ďábelské ódy', 'Pijamalı hasta yağız şoföre İstanbul', 'Țară, ţară și şi: Înfăţişare',
      'Ελληνικά τιμολόγιο', 'Счёт-фактура № 15', 'Café crème €5',
    ];
    const c = withLines(names);
    c.seller = { ...c.seller, name: 'Przedsiębiorstwo Łódź Sp. z o.o.' };
    c.notes = [{ text: 'Оплата по счёту — Πληρωμή εντός 30 ημερών' }];
    const text = collapse((await pdfPagesText(await canonicalToPdf(c))).join('\n'));
    for (const expected of [...names, 'Przedsiębiorstwo Łódź Sp. z o.o.', 'Оплата по счёту — Πληρωμή εντός 30 ημερών']) expect(text).toContain(expected);
    expect(text).not.toContain(MISSING_GLYPH);
    expect(text).not.toContain(collapse(DEGRADED_NOTICE));
  });

  it('a letter written with a combining accent is drawn composed', async () => {
    const text = collapse((await pdfPagesText(await canonicalToPdf(withLines(['Cafe\u0301 s\u030Cpi\u0301na'])))).join('\n'));
    expect(text).toContain('Café špína');
  });

  it('characters the fonts lack (CJK) or we do not lay out (right to left) are drawn as "?" with a notice, never a crash; the HTML keeps them', async () => {
    const names = ['中文发票 项目', 'فاتورة', 'Ελληνικά'];
    const c = withLines(names);
    c.seller = { ...c.seller, name: 'Przedsiębiorstwo Łódź 株式会社' };
    const pages = await pdfPagesText(await canonicalToPdf(c));
    const text = collapse(pages.join('\n'));
    expect(text).toContain('Przedsiębiorstwo Łódź ????');
    expect(text).toContain('???? ??');
    expect(text).toContain('??????');
    expect(text).toContain('Ελληνικά');
    for (const page of pages) expect(collapse(page)).toContain(collapse(DEGRADED_NOTICE));
    const html = collapse(parseHtml(canonicalToHtml(c)).documentElement!.textContent);
    for (const name of [...names, 'Przedsiębiorstwo Łódź 株式会社']) expect(html).toContain(name);
  });

  it('hostile text stays text in the HTML: no element, no attribute, no script', () => {
    const evil = '<script>alert(1)</script><img src=x onerror=alert(2)>"\'&';
    const c = withLines([evil]);
    c.seller = { ...c.seller, name: evil };
    c.notes = [{ text: '</style><style>body{display:none}</style>' }];
    const html = canonicalToHtml(c);
    const doc = parseHtml(html);
    expect(all(doc, 'script')).toHaveLength(0);
    expect(all(doc, 'img')).toHaveLength(0);
    expect(all(doc, 'style')).toHaveLength(1);
    expect(collapse(byId(doc, 'lines').textContent)).toContain(evil);
    expect(all(byId(doc, 'notes'), 'p').map((e) => e.textContent)).toEqual(['</style><style>body{display:none}</style>']);
  });

  it('the page is allowed nothing but its own style sheet (by hash)', () => {
    const doc = parseHtml(canonicalToHtml(SOURCES[0]![1]()));
    const style = all(doc, 'style')[0]!.textContent ?? '';
    expect(PREVIEW_CSP).toContain("default-src 'none'");
    expect(PREVIEW_CSP).toContain(`style-src 'sha256-${createHash('sha256').update(style).digest('base64')}'`);
    expect(PREVIEW_CSP).not.toContain('unsafe-inline');
    for (const tag of ['link', 'img', 'iframe', 'object', 'script']) expect(all(doc, tag)).toHaveLength(0);
  });

  it('the same invoice gives the same PDF bytes (no clock, no random id)', async () => {
    const c = SOURCES[2]![1]();
    const [a, b] = [await canonicalToPdf(c), await canonicalToPdf(structuredClone(c))];
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(true);
    expect(Buffer.from(a).toString('latin1')).toContain(`D:${c.issueDate.replace(/-/g, '')}000000Z`);
  });

  it(`refuses more than ${MAX_RENDERED_LINES} lines with PAYLOAD_TOO_LARGE before drawing anything`, async () => {
    const c = SOURCES[1]![1]();
    const big = { ...c, lines: Array.from({ length: MAX_RENDERED_LINES + 1 }, () => c.lines[0]!) };
    const started = performance.now();
    const err = await canonicalToPdf(big).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(MappingError);
    expect(err).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: [{ field: 'lines', rule: 'max-rendered-lines' }] });
    expect(() => canonicalToHtml(big)).toThrow(MappingError);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
