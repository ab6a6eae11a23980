/**
 * The PDF copy a structured invoice may carry of itself: an attachment (BG-24, BT-125) whose MIME
 * code is application/pdf — what Peppol BIS Billing 3.0.20 allows a seller to add. It is the
 * document's PDF representation when the original itself is no PDF (a hybrid's is). Pure.
 */
import type { Attachment } from '../../mappings/index.ts';

const PDF = 'application/pdf';

/** The first PDF attachment of a normalised invoice, or null. */
export function pdfCopyOf(normalized: Record<string, unknown> | null | undefined): { content: Buffer; filename: string } | null {
  const attachments = (normalized as { attachments?: Attachment[] } | null | undefined)?.attachments;
  const found = Array.isArray(attachments) ? attachments.find((a) => a?.content?.mimeCode?.toLowerCase() === PDF && a.content.base64) : undefined;
  if (!found?.content) return null;
  const content = Buffer.from(found.content.base64, 'base64');
  // A copy that is not a PDF at all (a mislabelled attachment) is no representation of the invoice.
  if (content.subarray(0, 5).toString('latin1') !== '%PDF-') return null;
  return { content, filename: found.content.filename || `${found.id || 'invoice'}.pdf` };
}
