/**
 * The work on whole business documents an exchange needs, run in the platform's document workers
 * (host.workers) so a 10 MB invoice never stalls the event loop: outbound, the SBD around the
 * invoice, gzipped; inbound, the payload decompressed under its cap, the SBD read and checked, its
 * document translated to the canonical model. Pure; failures come back as values (only a message
 * would survive a throw across the worker boundary).
 */
import { detectUblOrder, ublToCanonical, ublToPurchaseOrder } from '../../mappings/index.ts';
import { buildSbd, readSbd, sbdhFor, SbdhError, type SbdhHeader } from '../../mappings/peppol/sbdh.ts';
import { As4Error } from '../peppol-kit/as4/ebms.ts';
import { gunzipPayload, gzipPayload } from '../peppol-kit/as4/payload.ts';

export type Outcome<T> = ({ ok: true } & T) | { ok: false; code: string; message: string };

export interface EnvelopeInput {
  documentXml: string;
  sender: string;
  receiver: string;
  documentTypeId: string;
  processId: string;
  /**
   * COUNTRY_C1: the sender's country when the caller knows it; else read from the document (the
   * seller of an invoice, the buyer of an order). Never this access point's own country: that is
   * C1 only of the messages it originates itself, and those always name it here.
   */
  countryC1?: string;
  instanceIdentifier: string;
  /** ISO 8601: the SBDH CreationDateAndTime. */
  now: string;
}

/** The gzip of the Standard Business Document wrapping the invoice; SBDH_ERROR when no valid header can be made. */
export function envelopeForPeppol(input: EnvelopeInput): Outcome<{ compressedSbd: Uint8Array }> {
  let country = input.countryC1;
  if (!country) {
    try {
      country = detectUblOrder(input.documentXml)
        ? ublToPurchaseOrder(input.documentXml).buyer.address?.country
        : ublToCanonical(input.documentXml).canonical.seller.address?.country;
    } catch { /* unreadable: no country, said below */ }
  }
  if (!country) {
    return { ok: false, code: 'SBDH_ERROR', message: 'the SBDH needs COUNTRY_C1, the sender\'s country, and the document names none: give the seller\'s postal address a country (BT-40; the buyer\'s of an order)' };
  }
  try {
    const header = sbdhFor({
      documentXml: input.documentXml, sender: input.sender, receiver: input.receiver, documentTypeId: input.documentTypeId, processId: input.processId,
      countryC1: country.toUpperCase(), now: new Date(input.now), instanceIdentifier: input.instanceIdentifier,
    });
    return { ok: true, compressedSbd: gzipPayload(Buffer.from(buildSbd(header, input.documentXml))) };
  } catch (err) {
    if (err instanceof SbdhError) return { ok: false, code: 'SBDH_ERROR', message: err.message };
    return { ok: false, code: 'SBDH_ERROR', message: `the document cannot be wrapped for Peppol: ${(err as Error).message}` };
  }
}

export interface ReceivedDocument {
  header: SbdhHeader;
  /** The business document, as its own XML text. */
  document: string;
  number: string | null;
  /** The sender's name: the seller of an invoice, the buyer of a purchase order. */
  sellerName: string | null;
  normalized?: Record<string, unknown>;
}

/** The received payload opened: EBMS:0303 when it does not decompress within the cap, EBMS:0004 when its SBDH is invalid. */
export function readPeppolPayload(compressedSbd: Uint8Array, maxBytes: number): Outcome<ReceivedDocument> {
  let sbd: Buffer;
  try {
    sbd = gunzipPayload(Buffer.from(compressedSbd.buffer, compressedSbd.byteOffset, compressedSbd.byteLength), maxBytes);
  } catch (err) {
    return { ok: false, code: err instanceof As4Error ? err.code : 'EBMS:0303', message: (err as Error).message };
  }
  let read: ReturnType<typeof readSbd>;
  try {
    read = readSbd(sbd);
  } catch (err) {
    return { ok: false, code: 'EBMS:0004', message: err instanceof SbdhError ? `the SBDH is invalid (${err.code}): ${err.message}` : `the SBDH cannot be read: ${(err as Error).message}` };
  }
  try {
    if (detectUblOrder(read.document)) {
      // A purchase order (BIS Order 3.0) reads as the API's purchase order; its sender is the buyer.
      const order = ublToPurchaseOrder(read.document);
      return { ok: true, header: read.header, document: read.document, number: order.number || null, sellerName: order.buyer.name || null, normalized: order as unknown as Record<string, unknown> };
    }
    const { canonical } = ublToCanonical(read.document);
    return { ok: true, header: read.header, document: read.document, number: canonical.number ?? null, sellerName: canonical.seller.name ?? null, normalized: canonical as unknown as Record<string, unknown> };
  } catch {
    // Stored as it came: the platform's validation of received documents says what is wrong with it.
    return { ok: true, header: read.header, document: read.document, number: null, sellerName: null };
  }
}
