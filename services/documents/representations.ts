/**
 * A document's representations: the original bytes as sent (with their media type and file name),
 * the structured XML, the normalised JSON and the PDF of a hybrid invoice.
 */
import type { Context } from 'moleculer';
import { emOf } from '../../mixins/orm.mixin.ts';
import { principalOf } from '../shared/auth.ts';
import { DomainError } from '../shared/errors.ts';
import { findDocument } from './access.ts';
import type { Document } from './document.entity.ts';
import { pdfCopyOf } from './pdf-copy.ts';
import { originalOf } from './originals.ts';
import { partBytes } from './receipts.ts';
import { STAMP_TASKS, type Stamped } from './stamp.tasks.ts';
import type { DocsThis } from './service-state.ts';

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

/**
 * The document's PDF: a hybrid's own, else the PDF copy it carries. A cleared document's carries the
 * QR code its authority requires (drawn on a document worker; the stored bytes stay as they came).
 */
export async function pdf(this: DocsThis, ctx: Context<{ id: string }>): Promise<Buffer> {
  const doc = await load(ctx);
  const meta = ctx.meta as ResponseMeta;
  const copy = doc.hasPdf ? null : doc.pdfCopy ? pdfCopyOf(doc.normalized) : null;
  const bytes = doc.hasPdf ? (await originalOf(ctx.broker, doc)) ?? Buffer.alloc(0) : copy?.content;
  if (!bytes) throw new DomainError('RESOURCE_NOT_FOUND', `Document '${doc.id}' has no PDF`);
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
