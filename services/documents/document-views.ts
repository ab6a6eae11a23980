/** Pure presenters of a document: the API view and its representation links. */
import type { Document } from './document.entity.ts';
import { BILLING_TYPES } from './lifecycle.ts';
import type { ClearanceView, DocumentView } from './documents.contract.ts';

/**
 * What a document is recorded as: the syntax `auto` detected (a hybrid PDF is its embedded CII),
 * so both sides see `ubl-xml` or `cii-xml` rather than how the caller asked us to look.
 */
export function recordedFormat(requested: string, xmlSyntax: string | null): string {
  if (requested !== 'auto' || !xmlSyntax) return requested;
  return xmlSyntax.startsWith('cii') ? 'cii-xml' : 'ubl-xml';
}

function iso(d: Date | null | undefined): string | null {
  return d ? new Date(d).toISOString() : null;
}

/** Which representations exist (list queries read flags instead of the heavy columns). */
export interface Representations { original: boolean; xml: boolean; json: boolean; clearanceReceipt: boolean; clearanceOriginal: boolean }

function linksOf(doc: Document, has?: Representations): Record<string, string> {
  const base = `/v1/documents/${doc.id}`;
  const links: Record<string, string> = { self: base, lifecycle: `${base}/lifecycle` };
  if (has ? has.original : doc.originalSha256 != null || doc.originalContent != null) links.original = `${base}/original`;
  if (has ? has.xml : !!doc.xml) links.xml = `${base}/xml`;
  if (has ? has.json : !!doc.normalized) links.json = `${base}/json`;
  // A structured invoice is drawn when it carries no PDF (representations.ts).
  const rendered = BILLING_TYPES.has(doc.type) && (has ? has.json : !!doc.normalized);
  if (doc.hasPdf || doc.pdfCopy || rendered) links.pdf = `${base}/pdf`;
  if (rendered) {
    links.preview = `${base}/preview`;
    links.facturx = `${base}/facturx`;
  }
  if (has ? has.clearanceReceipt : doc.clearance?.receipt) links.clearanceReceipt = `${base}/clearance/receipt`;
  if (has ? has.clearanceOriginal : doc.clearance?.legalOriginal) links.clearanceOriginal = `${base}/clearance/original`;
  return links;
}

function clearanceView(doc: Document): ClearanceView | null {
  const c = doc.clearance;
  if (!doc.clearanceStatus) return null;
  return {
    authority: c?.authority ?? doc.connectorId ?? 'unknown', status: doc.clearanceStatus as ClearanceView['status'],
    authorityId: c?.authorityId ?? null, at: c?.at ?? null, qr: c?.qr ?? null, details: c?.details ?? {},
  };
}

export function documentView(doc: Document, has?: Representations): DocumentView {
  const view: DocumentView = {
    id: doc.id,
    type: doc.type,
    documentSubtype: doc.documentSubtype ?? null,
    direction: doc.direction,
    format: doc.format,
    status: doc.status,
    lifecycleCode: doc.lifecycleCode ?? null,
    deliveryStatus: doc.deliveryStatus,
    companyId: doc.companyId,
    number: doc.number ?? null,
    issueDate: doc.issueDate ?? null,
    dueDate: doc.dueDate ?? null,
    currency: doc.currency ?? null,
    totalAmount: doc.totalAmount === null || doc.totalAmount === undefined ? null : Number(doc.totalAmount),
    from: { peppolId: doc.senderPeppolId ?? null, name: doc.senderName ?? null },
    to: { ...(doc.recipient ?? {}) },
    errorCode: doc.errorCode ?? null,
    errorMessage: doc.errorMessage ?? null,
    sentAt: iso(doc.sentAt),
    deliveredAt: iso(doc.deliveredAt),
    read: doc.readAt != null,
    archived: doc.archivedAt != null,
    notes: doc.notes ?? [],
    relatedDocumentIds: doc.relatedDocumentIds ?? [],
    duplicateOf: doc.duplicateOf ?? null,
    validation: doc.validation ?? null,
    clearance: clearanceView(doc),
    metadata: doc.metadata ?? null,
    links: linksOf(doc, has),
    createdAt: iso(doc.createdAt)!,
    updatedAt: iso(doc.updatedAt)!,
  };
  if (doc.originalContentType) view.originalContentType = doc.originalContentType;
  if (doc.fileId) {
    view.fileId = doc.fileId;
    view.storedFormat = doc.storedFormat ?? 'raw';
  }
  return view;
}
