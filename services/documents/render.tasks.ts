/**
 * Readable renderings of a stored invoice, on a document worker (or inline when small): the HTML
 * preview, the PDF for a document that carries none, and the Factur-X of an outgoing French
 * invoice. Pure, plain data in and out (bytes cross back as a Uint8Array).
 */
import { canonicalToFacturX, canonicalToHtml, canonicalToPdf, type CanonicalInvoice, type FacturX, type FacturXOptions } from '../../mappings/index.ts';

export const RENDER_TASKS = import.meta.url;

export function renderHtml(canonical: CanonicalInvoice): string {
  return canonicalToHtml(canonical);
}

export function renderPdf(canonical: CanonicalInvoice): Promise<Uint8Array> {
  return canonicalToPdf(canonical);
}

export function renderFacturX(canonical: CanonicalInvoice, options: FacturXOptions): Promise<FacturX> {
  return canonicalToFacturX(canonical, options);
}
