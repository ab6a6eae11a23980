/**
 * Deposits (`format=auto` and `raw`): auto-detection routes UBL, CII, ZUGFeRD 1.0 and hybrid PDFs
 * (Factur-X / ZUGFeRD 2 embed CII, ZUGFeRD 1.0 its own CrossIndustryDocument) to their readers; a
 * raw deposit is stored exactly as received, a gzip body stays gzip.
 */
import type { ParsedDocument } from '../ubl-2.1/to-canonical.ts';
import { ublToCanonical } from '../ubl-2.1/to-canonical.ts';
import { ciiToCanonical } from '../cii-d16b/to-canonical.ts';
import { zugferd1ToCanonical } from '../zugferd-1/to-canonical.ts';
import { extractHybridPdf } from '../factur-x/extract.ts';
import type { HybridPdf } from '../factur-x/extract.ts';
import { MappingError } from '../errors.ts';
import { correctContentType } from './content-type.ts';
import { detectFormat } from './format.ts';
import type { DetectedFormat } from './format.ts';

export interface AutoDeposit {
  detected: DetectedFormat;
  /**
   * What the deposit is read as: a hybrid PDF is its embedded XML's (CII, or ZUGFeRD 1.0, which is
   * delivered in a derived EN 16931 form: zugferd-1/delivery.ts).
   */
  format: 'ubl-xml' | 'cii-xml' | 'zugferd-1';
  parsed: ParsedDocument;
  /** The caller's bytes, untouched (the PDF itself for a hybrid deposit). */
  original: Uint8Array;
  hybrid?: HybridPdf;
}

/** `format=auto`: detect, extract when hybrid, parse to canonical; the original bytes are kept. */
export async function ingestAuto(bytes: Uint8Array): Promise<AutoDeposit> {
  const detected = detectFormat(bytes);
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (detected.format === 'ubl') return { detected, format: 'ubl-xml', parsed: ublToCanonical(buf), original: bytes };
  if (detected.format === 'cii') return { detected, format: 'cii-xml', parsed: ciiToCanonical(buf), original: bytes };
  if (detected.format === 'zugferd-1') return { detected, format: 'zugferd-1', parsed: zugferd1ToCanonical(buf), original: bytes };
  if (detected.format === 'pdf') {
    const hybrid = await extractHybridPdf(bytes);
    if (hybrid.syntax === 'zugferd-1') return { detected, format: 'zugferd-1', parsed: zugferd1ToCanonical(hybrid.xml), original: bytes, hybrid };
    if (hybrid.syntax !== 'cii') {
      throw new MappingError('INVALID_REQUEST', `The PDF embeds ${hybrid.syntax} XML (${hybrid.filename}), not a CII or ZUGFeRD 1.0 invoice`, [
        { field: 'file.content', rule: 'hybrid-cii', message: 'a hybrid PDF deposit must embed a CII CrossIndustryInvoice or a ZUGFeRD 1.0 CrossIndustryDocument' },
      ]);
    }
    return { detected, format: 'cii-xml', parsed: ciiToCanonical(hybrid.xml), original: bytes, hybrid };
  }
  throw new MappingError('INVALID_REQUEST', `format=auto could not recognise the deposit (${detected.format}); send it with format=raw`, [
    { field: 'file.content', rule: 'auto-detect', message: 'expected UBL Invoice/CreditNote, CII CrossIndustryInvoice, ZUGFeRD 1.0 CrossIndustryDocument or a PDF' },
  ]);
}

export interface RawDeposit {
  /** The bytes as received (same object). */
  bytes: Uint8Array;
  /** `gzip` for a gzip payload (kept compressed), else the detected container or `raw`. */
  storedFormat: 'gzip' | 'zip' | 'pdf' | 'xml' | 'raw';
  contentType: string;
}

/** `format=raw`: stored as is, no routing, no structured validation. */
export function rawDeposit(bytes: Uint8Array, declaredContentType?: string): RawDeposit {
  const detected = detectFormat(bytes);
  const storedFormat = detected.format === 'gzip' ? 'gzip'
    : detected.format === 'zip' ? 'zip'
      : detected.format === 'pdf' ? 'pdf'
        : detected.format === 'ubl' || detected.format === 'cii' || detected.format === 'zugferd-1' || detected.format === 'xml' ? 'xml'
          : 'raw';
  return { bytes, storedFormat, contentType: correctContentType(declaredContentType, bytes) };
}
