/**
 * A document's representations: the original bytes as sent (with their media type and file name),
 * the structured XML, the normalised JSON, the PDF (a hybrid's own, the copy an invoice carries, the
 * Factur-X it was delivered as, else one drawn from the invoice), the readable HTML preview and
 * the Factur-X.
 */
import type { Context } from 'moleculer';
import { emOf } from '../../mixins/orm.mixin.ts';
import { PREVIEW_CSP, type CanonicalInvoice, type FacturX } from '../../mappings/index.ts';
import { principalOf } from '../shared/auth.ts';
import { DomainError, rethrowAsDomainError } from '../shared/errors.ts';
import { findDocument } from './access.ts';
import type { Document } from './document.entity.ts';
import { BILLING_TYPES } from './lifecycle.ts';
import { pdfCopyOf } from './pdf-copy.ts';
import { RENDER_TASKS } from './render.tasks.ts';
import { deliveredFormOf, originalOf } from './originals.ts';
import { partBytes } from './receipts.ts';
import { STAMP_TASKS, type Stamped } from './stamp.tasks.ts';
import type { DocsThis } from './service-state.ts';
import type { WorkerPool } from '../shared/worker-pool.ts';

type ResponseMeta = { $responseType?: string; $responseHeaders?: Record<string, string> };

const load = (ctx: Context<{ id: string }>): Promise<Document> => findDocument(emOf(ctx), principalOf(ctx), ctx.params.id);

export async function original(ctx: Context<{ id: string }>): Promise<Buffer> {
  const doc = await load(ctx);
  const bytes = await originalOf(ctx.broker, doc);
  const meta = ctx.meta as ResponseMeta;
  meta.$responseType = doc.originalContentType ?? 'application/octet-stream';
  if (doc.originalFilename) meta.$responseHeaders = { 'Content-Disposition': `attachment; filename="${doc.originalFilename.replace(/["\\\r\n]/g, '_')}"` };
  return bytes ?? Buffer.alloc(0);
}

export async function xml(ctx: Context<{ id: string }>): Promise<string> {
  const doc = await load(ctx);
  if (!doc.xml) throw new DomainError('RESOURCE_NOT_FOUND', `Document '${doc.id}' has no structured XML (format ${doc.format})`);
  (ctx.meta as ResponseMeta).$responseType = 'application/xml; charset=utf-8';
  return doc.xml;
}

export async function json(ctx: Context<{ id: string }>): Promise<Record<string, unknown>> {
  const doc = await load(ctx);
  if (!doc.normalized) throw new DomainError('RESOURCE_NOT_FOUND', `Document '${doc.id}' has no normalised JSON (format ${doc.format})`);
  return doc.normalized;
}

export async function clearancePart(ctx: Context<{ id: string; part: 'receipt' | 'original' }>): Promise<Buffer> {
  const doc = await load(ctx);
  const part = ctx.params.part === 'receipt' ? doc.clearance?.receipt : doc.clearance?.legalOriginal;
  if (!part) throw new DomainError('RESOURCE_NOT_FOUND', `Document '${doc.id}' has no clearance ${ctx.params.part}`);
  const meta = ctx.meta as ResponseMeta;
  meta.$responseType = part.contentType;
  if (part.filename) meta.$responseHeaders = { 'Content-Disposition': `attachment; filename="${part.filename.replace(/["\\\r\n]/g, '_')}"` };
  return partBytes(ctx.broker, doc, part.content);
}

/** The invoice a document states, for the renderings: a billing document with its canonical model. */
function canonicalOf(doc: Document): CanonicalInvoice {
  const normalized = doc.normalized as Partial<CanonicalInvoice> | null | undefined;
  if (!BILLING_TYPES.has(doc.type) || !normalized || !Array.isArray(normalized.lines)) {
    throw new DomainError('RESOURCE_NOT_FOUND', `Document '${doc.id}' has no structured invoice to render (type ${doc.type}, format ${doc.format})`);
  }
  return normalized as CanonicalInvoice;
}

/** What a rendering costs, for the inline-or-worker choice: drawing a line takes about what parsing 4 KB does. */
const renderSize = (c: CanonicalInvoice): number => 4_000 + c.lines.length * 4_000;

/**
 * A rendering on the document workers. An invoice past a rendering cap is a 422 (the request itself
 * was fine; the stored document is too large to draw), not a 413.
 */
async function render<T>(workers: WorkerPool, fn: 'renderHtml' | 'renderPdf' | 'renderFacturX', args: unknown[], size: number): Promise<T> {
  try {
    return await workers.run<T>(RENDER_TASKS, fn, args, size);
  } catch (err) {
    const e = err as { code?: unknown; message?: string; details?: unknown };
    if (e?.code === 'PAYLOAD_TOO_LARGE') throw new DomainError('DOCUMENT_TOO_COMPLEX', e.message ?? 'The document is too large to render', { details: Array.isArray(e.details) ? e.details : [] });
    return rethrowAsDomainError(err);
  }
}

const asBuffer = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
const safeFilename = (name: string): string => name.replace(/[^\w.-]+/g, '_').slice(0, 120) || 'invoice';

/**
 * The readable HTML of the invoice: self-contained, escaped, served under a Content-Security-Policy
 * that lets nothing load or run (its one style sheet is allowed by hash).
 */
export async function preview(this: DocsThis, ctx: Context<{ id: string }>): Promise<string> {
  const doc = await load(ctx);
  const canonical = canonicalOf(doc);
  const html = await render<string>(this.workers, 'renderHtml', [canonical], renderSize(canonical));
  const meta = ctx.meta as ResponseMeta;
  meta.$responseType = 'text/html; charset=utf-8';
  meta.$responseHeaders = { 'Content-Security-Policy': PREVIEW_CSP, 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer' };
  return html;
}

/**
 * The Factur-X of the invoice (PDF/A-3 with its CII as factur-x.xml): the one it was delivered as,
 * else built from the record (its CII kept as it is, or the invoice written as EN 16931 CII), the
 * same bytes on every call. A hybrid original is rebuilt too: it may be ZUGFeRD 1.0, whose CII
 * record is derived, and the visual is then the same as for every other document.
 */
export async function facturx(this: DocsThis, ctx: Context<{ id: string }>): Promise<Buffer> {
  const doc = await load(ctx);
  const meta = ctx.meta as ResponseMeta;
  const canonical = canonicalOf(doc);
  meta.$responseType = 'application/pdf';
  meta.$responseHeaders = { 'Content-Disposition': `inline; filename="${safeFilename(`factur-x-${doc.number ?? doc.id}`)}.pdf"` };
  const delivered = doc.outputFormat === 'factur-x' ? await deliveredFormOf(ctx.broker, doc) : null;
  if (delivered) return delivered;
  const cii = doc.xmlSyntax?.startsWith('cii') && doc.xml ? doc.xml : undefined;
  const built = await render<FacturX>(this.workers, 'renderFacturX', [canonical, { documentId: doc.id, ...(cii ? { cii } : {}) }], renderSize(canonical));
  return asBuffer(built.pdf);
}

/**
 * The document's PDF: a hybrid's own, the PDF copy it carries, the Factur-X it was delivered as, else
 * one drawn from the invoice. A cleared document's carries the QR code its authority requires (drawn
 * on a document worker; the stored bytes stay as they came).
 */
export async function pdf(this: DocsThis, ctx: Context<{ id: string }>): Promise<Buffer> {
  const doc = await load(ctx);
  const meta = ctx.meta as ResponseMeta;
  const delivered = (doc.outputFormat === 'factur-x' ? await deliveredFormOf(ctx.broker, doc) : null) ?? undefined;
  const copy = doc.hasPdf || delivered ? null : doc.pdfCopy ? pdfCopyOf(doc.normalized) : null;
  let bytes = doc.hasPdf ? (await originalOf(ctx.broker, doc)) ?? Buffer.alloc(0) : delivered ?? copy?.content;
  if (!bytes) {
    // Nothing carries a PDF: the invoice drawn (404 when the document is no structured invoice).
    const canonical = canonicalOf(doc);
    bytes = asBuffer(await render<Uint8Array>(this.workers, 'renderPdf', [canonical], renderSize(canonical)));
    meta.$responseHeaders = { 'Content-Disposition': `inline; filename="${safeFilename(doc.number ?? doc.id)}.pdf"` };
  }
  meta.$responseType = 'application/pdf';
  if (copy) meta.$responseHeaders = { 'Content-Disposition': `inline; filename="${copy.filename.replace(/["\\\r\n]/g, '_')}"` };
  const qr = doc.clearanceStatus === 'cleared' || doc.clearanceStatus === 'reported' ? doc.clearance?.qr : undefined;
  if (!qr) return bytes;
  const caption = `${doc.clearance!.authority} ${doc.clearance!.authorityId ?? ''}`.trim();
  const stamped = await this.workers.run<Stamped>(STAMP_TASKS, 'stampClearanceQr', [bytes, qr, caption], bytes.length * 4);
  if (stamped.ok) return Buffer.from(stamped.pdf.buffer, stamped.pdf.byteOffset, stamped.pdf.byteLength);
  // The PDF as stored, and a header that says the mark is missing: the QR itself is in the document's clearance.
  this.logger.warn(`clearance QR not drawn on the PDF of ${doc.id}: ${stamped.message}`);
  meta.$responseHeaders = { ...meta.$responseHeaders, 'X-Clearance-Stamp': 'failed' };
  return bytes;
}
