/**
 * The readable HTML of an invoice: one self-contained page (no script, no external resource, one
 * style sheet whose hash is in {@link PREVIEW_CSP}), every text from the document escaped. It can
 * be served under `default-src 'none'`, so a hostile invoice can neither run code nor call out.
 * Pure.
 */
import { createHash } from 'node:crypto';
import type { CanonicalInvoice } from '../canonical/model.ts';
import { invoiceView, type Fact, type InvoiceView } from './view.ts';

const STYLE = [
  'body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif;color:#111;margin:2rem auto;max-width:60rem;padding:0 1rem;line-height:1.4}',
  'h1{font-size:1.6rem;margin:0 0 .25rem}h2{font-size:1.1rem;margin:1.5rem 0 .5rem;border-bottom:1px solid #ccc}',
  'table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.3rem .4rem;vertical-align:top;border-bottom:1px solid #eee}',
  'td.n,th.n{text-align:right;white-space:nowrap}td.v{white-space:nowrap}.parties{display:flex;flex-wrap:wrap;gap:1rem}.party{flex:1 1 16rem}',
  '.party p,.detail{margin:0;color:#444;font-size:.9rem}dl{display:grid;grid-template-columns:max-content auto;gap:.2rem 1rem;margin:0}dt{color:#555}dd{margin:0}',
  '.totals{margin-left:auto;width:auto}.totals tr:last-child{font-weight:bold}',
].join('');

/** The CSP source that allows the preview's one style sheet (a page showing the preview in a blob: frame adds it to its own policy). */
export const PREVIEW_STYLE_SOURCE = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

/**
 * The Content-Security-Policy the preview is served with: nothing may load or run; the page's own
 * style sheet is allowed by its hash, not by 'unsafe-inline'.
 */
export const PREVIEW_CSP = `default-src 'none'; style-src ${PREVIEW_STYLE_SOURCE}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for an HTML element or a quoted attribute. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ESCAPES[ch]!);
}

const e = escapeHtml;

function factList(facts: readonly Fact[]): string {
  return `<dl>${facts.map(([label, value]) => `<dt>${e(label)}</dt><dd>${e(value)}</dd>`).join('')}</dl>`;
}

function section(id: string, title: string, body: string): string {
  return `<section id="${id}"><h2>${e(title)}</h2>${body}</section>`;
}

/** The page for a view (the view is what {@link canonicalToHtml} draws; exported for tests). */
export function viewToHtml(v: InvoiceView): string {
  const parties = v.parties.map((p) => `<div class="party" data-role="${e(p.role)}"><h3>${e(p.role)}</h3><p class="name"><strong>${e(p.name)}</strong></p>${p.details.map((d) => `<p>${e(d)}</p>`).join('')}</div>`).join('');
  const lineRows = v.lines.map((l) => `<tr><td>${e(l.id)}</td><td><span class="item">${e(l.name)}</span>${l.details.map((d) => `<div class="detail">${e(d)}</div>`).join('')}</td><td class="n">${e(l.quantity)}</td><td>${e(l.unit)}</td><td class="n">${e(l.price)}</td><td class="v">${e(l.vat)}</td><td class="n">${e(l.net)}</td></tr>`).join('');
  const lines = `<table><thead><tr><th>#</th><th>Item</th><th class="n">Quantity</th><th>Unit</th><th class="n">Net price</th><th>VAT</th><th class="n">Net amount</th></tr></thead><tbody>${lineRows}</tbody></table>`;
  const acRows = v.allowanceCharges.map((a) => `<tr><td>${e(a.kind)}</td><td>${e(a.reason)}</td><td>${e(a.vat)}</td><td class="n">${e(a.amount)}</td></tr>`).join('');
  const vatRows = v.vat.map((r) => `<tr><td>${e(r.category)}</td><td class="n">${e(r.rate)}</td><td class="n">${e(r.taxable)}</td><td class="n">${e(r.tax)}</td><td>${e(r.exemption)}</td></tr>`).join('');
  const totals = `<table class="totals">${v.totals.map(([label, value]) => `<tr><th>${e(label)}</th><td class="n">${e(value)}</td></tr>`).join('')}</table>`;
  return [
    '<!DOCTYPE html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta name="viewport" content="width=device-width, initial-scale=1"><title>${e(`${v.title} ${v.number}`)}</title>`,
    `<style>${STYLE}</style></head><body>`,
    `<header><h1>${e(v.title)} <span class="number">${e(v.number)}</span></h1>${factList(v.facts)}</header>`,
    section('parties', 'Parties', `<div class="parties">${parties}</div>`),
    section('lines', 'Lines', lines),
    v.allowanceCharges.length ? section('allowances-charges', 'Allowances and charges', `<table><thead><tr><th></th><th>Reason</th><th>VAT</th><th class="n">Amount</th></tr></thead><tbody>${acRows}</tbody></table>`) : '',
    section('vat', 'VAT breakdown', `<table><thead><tr><th>Category</th><th class="n">Rate</th><th class="n">Taxable amount</th><th class="n">VAT amount</th><th>Exemption</th></tr></thead><tbody>${vatRows}</tbody></table>`),
    section('totals', 'Totals', totals),
    v.payment.length ? section('payment', 'Payment', factList(v.payment)) : '',
    v.notes.length ? section('notes', 'Notes', v.notes.map((n) => `<p>${e(n)}</p>`).join('')) : '',
    '</body></html>',
  ].join('\n');
}

/** The readable HTML page of a canonical invoice (UTF-8 text). */
export function canonicalToHtml(c: CanonicalInvoice): string {
  return viewToHtml(invoiceView(c));
}
