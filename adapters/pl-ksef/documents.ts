/**
 * The work on whole invoices the connector does, run in the platform's document workers
 * (host.workers) so a large invoice never stalls the event loop: outbound, the canonical invoice to
 * FA(3); inbound, an FA(3) fetched from KSeF read into the canonical model and the UBL it makes.
 * Pure; failures come back as values (only a message would survive a throw across the worker boundary).
 */
import { canonicalToFa3, canonicalToUbl, fa3ToCanonical, type CanonicalInvoice, type Fa3Options } from '../../mappings/index.ts';

export type Outcome<T> = ({ ok: true } & T) | { ok: false; code: string; message: string; details: Array<{ field: string; message: string }> };

/** FA(3) of a canonical invoice; a MappingError comes back with its code and paths. */
export function fa3Of(invoice: CanonicalInvoice, options: Fa3Options): Outcome<{ xml: string }> {
  try {
    return { ok: true, xml: canonicalToFa3(invoice, options) };
  } catch (err) {
    const e = err as Error & { code?: string; details?: Array<{ field: string; message: string }> };
    if (e.name !== 'MappingError') return { ok: false, code: 'KSEF_MAPPING_FAILED', message: e.message, details: [] };
    return { ok: false, code: e.code ?? 'INVALID_REQUEST', message: e.message, details: (e.details ?? []).map(({ field, message }) => ({ field, message })) };
  }
}

/**
 * A received FA(3) read: its canonical invoice and, when the canonical makes one, the UBL invoice the
 * platform validates and shows as the document's XML. Not readable: `ok: false` with the reason.
 */
export function readReceived(bytes: Uint8Array): Outcome<{ normalized: Record<string, unknown>; ubl?: string }> {
  let canonical: CanonicalInvoice;
  try {
    canonical = fa3ToCanonical(Buffer.from(bytes)).canonical;
  } catch (err) {
    return { ok: false, code: 'KSEF_UNREADABLE', message: (err as Error).message, details: [] };
  }
  let ubl: string | undefined;
  try { ubl = canonicalToUbl(canonical); } catch { ubl = undefined; }
  return { ok: true, normalized: canonical as unknown as Record<string, unknown>, ...(ubl ? { ubl } : {}) };
}
