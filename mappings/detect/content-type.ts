/**
 * Content-type correction of deposits (spec, Format handling): the declared type is corrected from
 * the bytes when they are an unambiguous binary container. A declaration more specific than the
 * bytes survives, as do vendor-tree types and a matching structured suffix (`+zip` on a zip); a
 * declaration naming no type falls back to the bytes.
 */
import { sniffBinary, sniffXmlRoot } from './sniff.ts';

/** Declarations that name no type. */
const NO_TYPE = new Set(['', '*/*', 'application/octet-stream', 'binary/octet-stream', 'application/unknown', 'application/binary', 'unknown/unknown']);

/** Types that are the same container under another (legacy) name. */
const ALIASES: Readonly<Record<string, readonly string[]>> = {
  'application/pdf': ['application/x-pdf', 'application/acrobat'],
  'application/zip': ['application/x-zip', 'application/x-zip-compressed', 'application/zip-compressed'],
  'application/gzip': ['application/x-gzip', 'application/gzip-compressed'],
  'image/jpeg': ['image/jpg', 'image/pjpeg'],
  'application/x-7z-compressed': [],
  'application/x-cfb': [],
};

/** Declarations that refine the container the bytes are (more specific than the bytes). */
const REFINEMENTS: Readonly<Record<string, readonly string[]>> = {
  'application/zip': ['application/java-archive', 'application/x-java-archive', 'application/x-xpinstall', 'application/x-jar'],
  'application/gzip': ['application/x-tar+gzip', 'application/x-compressed-tar', 'application/x-gtar'],
  'application/x-cfb': ['application/msword', 'application/x-msi', 'application/x-ole-storage'],
  'image/tiff': ['image/tiff-fx'],
};

/** Lower-cased `type/subtype` without parameters. */
export function essence(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

function isVendorTree(type: string): boolean {
  return /^[a-z]+\/vnd\./.test(type);
}

function looksLikeText(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, 4096);
  for (let i = 0; i < n; i++) {
    const b = bytes[i]!;
    if (b === 0) return false;
  }
  return true;
}

/** The media type of bytes nobody declared. */
export function mediaTypeOfBytes(bytes: Uint8Array): string {
  const bin = sniffBinary(bytes);
  if (bin) return bin.mediaType;
  if (sniffXmlRoot(bytes)) return 'application/xml';
  if (bytes.length > 0 && looksLikeText(bytes)) return 'text/plain';
  return 'application/octet-stream';
}

/** The content type a deposit is stored and served under. */
export function correctContentType(declared: string | undefined | null, bytes: Uint8Array): string {
  const type = essence(declared ?? undefined);
  if (NO_TYPE.has(type) || !type.includes('/')) return mediaTypeOfBytes(bytes);
  const bin = sniffBinary(bytes);
  // Text formats (XML, JSON, CSV …) are not unambiguous from bytes: the declaration stands.
  if (!bin) return declared!.trim();
  if (type === bin.mediaType || ALIASES[bin.mediaType]?.includes(type)) return declared!.trim();
  if (isVendorTree(type)) return declared!.trim();
  if (bin.suffix && type.endsWith(`+${bin.suffix}`)) return declared!.trim();
  if (REFINEMENTS[bin.mediaType]?.includes(type)) return declared!.trim();
  return bin.mediaType;
}
