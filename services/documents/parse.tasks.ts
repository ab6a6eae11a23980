/**
 * The send path's parsing, run on a document worker (services/shared/worker-pool.ts), or inline for
 * small inputs: the caller's document to the canonical model. Pure, plain data in and out (the
 * result crosses back as a structured clone, so it carries only what the send path keeps).
 */
import { jsonToCanonical, canonicalToUbl, ublToCanonical, ciiToCanonical, ingestAuto, type CanonicalInvoice } from '../../mappings/index.ts';

export const PARSE_TASKS = import.meta.url;

export interface ParsedForSend {
  canonical: CanonicalInvoice;
  syntax: 'ubl-2.1' | 'cii-d16b';
  /** format=auto with a hybrid PDF: the embedded CII (UTF-8 text), the record's XML. */
  hybridXml?: string;
}

export interface JsonEnvelope {
  type: string | undefined;
  documentSubtype: string | number | undefined;
  selfBilled: boolean | undefined;
  document: Record<string, unknown>;
}

export interface RenderedJson {
  canonical: CanonicalInvoice;
  /** The UBL 2.1 rendered from it: what is validated, delivered and kept as the record. */
  xml: string;
}

/** A JSON send, normalised once: the canonical invoice and its UBL (validation gets the UBL). */
export function renderJson(envelope: JsonEnvelope, today: string): RenderedJson {
  const canonical = jsonToCanonical(envelope, { today });
  return { canonical, xml: canonicalToUbl(canonical) };
}

export function canonicalFromXml(format: 'ubl-xml' | 'cii-xml', bytes: Uint8Array): ParsedForSend {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const parsed = format === 'ubl-xml' ? ublToCanonical(buf) : ciiToCanonical(buf);
  return { canonical: parsed.canonical, syntax: parsed.syntax };
}

export async function canonicalFromDeposit(bytes: Uint8Array): Promise<ParsedForSend> {
  const deposit = await ingestAuto(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  return {
    canonical: deposit.parsed.canonical,
    syntax: deposit.parsed.syntax,
    ...(deposit.hybrid ? { hybridXml: Buffer.from(deposit.hybrid.xml).toString('utf8') } : {}),
  };
}
