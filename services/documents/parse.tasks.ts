/**
 * The send path's parsing, run on a document worker (services/shared/worker-pool.ts), or inline for
 * small inputs: the caller's document to the canonical model. Pure, plain data in and out (the
 * result crosses back as a structured clone, so it carries only what the send path keeps).
 */
import { jsonToCanonical, canonicalToUbl, ublToCanonical, ciiToCanonical, ingestAuto, zugferd1DeliveryForm, ublToPurchaseOrder, type CanonicalInvoice, type DeliveryTarget, type PurchaseOrder } from '../../mappings/index.ts';

export const PARSE_TASKS = import.meta.url;

export interface ParsedForSend {
  canonical: CanonicalInvoice;
  /** The syntax of the record's XML (what is delivered). */
  syntax: 'ubl-2.1' | 'cii-d16b';
  /**
   * format=auto, when the record's XML is not the deposit's bytes: a hybrid PDF's embedded CII
   * (UTF-8 text), or the EN 16931 form derived from a ZUGFeRD 1.0 document (PDF or XML).
   */
  xml?: string;
  /** The deposit is a PDF (a hybrid invoice). */
  pdf?: boolean;
  /** The deposit was ZUGFeRD 1.0: `xml` is derived from it for the destination (mappings/zugferd-1/delivery.ts). */
  derivedFrom?: 'zugferd-1';
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
  return { canonical: parsed.canonical, syntax: parsed.syntax === 'ubl-2.1' ? 'ubl-2.1' : 'cii-d16b' };
}

/** A purchase order sent as its UBL 2.1 Order (format=ubl-xml): the API's reading of it. */
export function purchaseOrderFromXml(bytes: Uint8Array): PurchaseOrder {
  return ublToPurchaseOrder(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
}

/**
 * format=auto. A ZUGFeRD 1.0 deposit travels in the EN 16931 form `target` names (UBL with the
 * routing's Peppol ids on a Peppol network, CII otherwise); its canonical view keeps what the
 * document itself states.
 */
export async function canonicalFromDeposit(bytes: Uint8Array, target: DeliveryTarget = { syntax: 'cii' }): Promise<ParsedForSend> {
  const deposit = await ingestAuto(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  const pdf = deposit.hybrid !== undefined;
  if (deposit.format === 'zugferd-1') {
    const form = zugferd1DeliveryForm(deposit.parsed.canonical, target);
    return { canonical: deposit.parsed.canonical, syntax: form.syntax, xml: form.xml, pdf, derivedFrom: 'zugferd-1' };
  }
  return {
    canonical: deposit.parsed.canonical,
    syntax: deposit.format === 'ubl-xml' ? 'ubl-2.1' : 'cii-d16b',
    ...(deposit.hybrid ? { xml: Buffer.from(deposit.hybrid.xml).toString('utf8'), pdf } : {}),
  };
}
