/**
 * Caps on what a PDF deposit may make us inflate and hold. pdf-lib decodes a stream whole
 * (`decode()`), so a 1 MB PDF whose embedded file is deflate of 1 GB of zeros grew the process by
 * gigabytes. Every stream we decode goes through `decodeCapped`, which pulls decoded bytes
 * incrementally from pdf-lib's decoder and stops one byte past the cap; object and cross-reference
 * streams, which pdf-lib decodes while loading, are probed the same way first (see
 * `guardParserStreams`).
 */
import { PDFName, PDFNumber, PDFObjectStreamParser, PDFRawStream, PDFXRefStreamParser, decodePDFRawStream } from 'pdf-lib';
import type { PDFContext } from 'pdf-lib';
import { MappingError } from '../errors.ts';

export interface PdfLimits {
  /** Decoded size of one stream (embedded file, XMP metadata, object stream), in bytes. */
  maxInflatedBytes: number;
  /** Embedded files (file specifications) in one PDF. */
  maxEmbeddedFiles: number;
  /** Indirect objects in one PDF, counted before pdf-lib parses them and again inside object streams. */
  maxObjects: number;
}

export const DEFAULT_PDF_LIMITS: PdfLimits = Object.freeze({
  maxInflatedBytes: 32 * 1024 * 1024,
  maxEmbeddedFiles: 64,
  maxObjects: 100_000,
});

let active: PdfLimits = DEFAULT_PDF_LIMITS;

/** Sets the caps every PDF intake of this process applies (from loadConfig(), once at start). */
export function configurePdfLimits(limits: PdfLimits): void {
  active = Object.freeze({ ...limits });
}

export function pdfLimits(): PdfLimits {
  return active;
}

export function pdfTooLarge(rule: string, message: string): MappingError {
  return new MappingError('PAYLOAD_TOO_LARGE', message, [{ field: 'file.content', rule, message }]);
}

/** Decoded bytes are pulled in blocks of this size (pdf-lib sizes its buffer to what is asked). */
const BLOCK = 64 * 1024;

/** The decoded bytes of a raw stream, or PAYLOAD_TOO_LARGE as soon as they pass the cap. */
export function decodeCapped(stream: PDFRawStream, what: string, limits: PdfLimits = active): Uint8Array {
  const cap = limits.maxInflatedBytes;
  const decoder = decodePDFRawStream(stream);
  const blocks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const got = decoder.getBytes(BLOCK);
    const block = got instanceof Uint8Array ? got : new Uint8Array(got.buffer, got.byteOffset, got.length);
    total += block.length;
    if (total > cap) throw pdfTooLarge('max-inflated-bytes', `${what} inflates to more than ${cap} bytes`);
    if (block.length > 0) blocks.push(block);
    if (block.length < BLOCK) break;
  }
  return blocks.length === 1 ? blocks[0]! : Buffer.concat(blocks, total);
}

const WHITESPACE = new Set([0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]);

/** Counts `N G obj` headers in the raw bytes (linear): a cheap bound before pdf-lib builds objects. */
export function assertObjectCount(bytes: Uint8Array, limits: PdfLimits = active): void {
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let count = 0;
  for (let i = buf.indexOf('obj'); i >= 0; i = buf.indexOf('obj', i + 3)) {
    if (i > 0 && WHITESPACE.has(buf[i - 1]!) && ++count > limits.maxObjects) {
      throw pdfTooLarge('max-objects', `The PDF has more than ${limits.maxObjects} objects`);
    }
  }
}

type ObjectStreamFactory = typeof PDFObjectStreamParser.forStream;
type XRefStreamFactory = typeof PDFXRefStreamParser.forStream;
let guarded = false;
/** pdf-lib's loader swallows errors of one object (it skips it as invalid): a cap hit is kept here per document. */
const capHits = new WeakMap<PDFContext, MappingError>();

/** The cap a stream of this document hit while pdf-lib loaded it, if any. */
export function capHitWhileLoading(context: PDFContext): MappingError | undefined {
  return capHits.get(context);
}

function probe(raw: PDFRawStream, what: string): void {
  try {
    decodeCapped(raw, what);
    const n = raw.dict.lookup(PDFName.of('N'));
    if (n instanceof PDFNumber && n.asNumber() > active.maxObjects) {
      throw pdfTooLarge('max-objects', `An object stream declares more than ${active.maxObjects} objects`);
    }
  } catch (err) {
    if (err instanceof MappingError && !capHits.has(raw.dict.context)) capHits.set(raw.dict.context, err);
    throw err;
  }
}

/**
 * pdf-lib decodes object streams and cross-reference streams whole while it loads a document,
 * with no hook to bound them. Their factories are wrapped once per process: the stream is first
 * decoded through `decodeCapped` (bounded), and an object stream may not declare more objects
 * than the cap. pdf-lib itself is unchanged otherwise.
 */
export function guardParserStreams(): void {
  if (guarded) return;
  guarded = true;
  const objectStream: ObjectStreamFactory = PDFObjectStreamParser.forStream;
  const xrefStream: XRefStreamFactory = PDFXRefStreamParser.forStream;
  (PDFObjectStreamParser as { forStream: ObjectStreamFactory }).forStream = (raw, shouldWaitForTick) => {
    probe(raw, 'An object stream');
    return objectStream(raw, shouldWaitForTick);
  };
  (PDFXRefStreamParser as { forStream: XRefStreamFactory }).forStream = (raw) => {
    probe(raw, 'A cross-reference stream');
    return xrefStream(raw);
  };
}
