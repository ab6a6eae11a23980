/**
 * Byte sniffing: magic numbers of the binary containers we meet in deposits, and the root element
 * of an XML document read without building a DOM (a few hundred bytes are enough).
 */

export interface BinaryKind {
  /** The media type the bytes unambiguously are. */
  mediaType: string;
  /** Structured-syntax suffix a more specific declaration may carry (RFC 6839), e.g. `zip`. */
  suffix?: string;
  /** Our short name for the container. */
  name: 'pdf' | 'zip' | 'gzip' | 'png' | 'jpeg' | 'gif' | 'tiff' | '7z' | 'rar' | 'cfb' | 'bzip2' | 'xz';
}

function startsWith(bytes: Uint8Array, sig: number[], offset = 0): boolean {
  if (bytes.length < offset + sig.length) return false;
  for (let i = 0; i < sig.length; i++) if (bytes[offset + i] !== sig[i]) return false;
  return true;
}

/** Offset of `%PDF-` within the first 1024 bytes (the PDF header may follow some garbage), or -1. */
export function pdfHeaderOffset(bytes: Uint8Array): number {
  const limit = Math.min(bytes.length - 5, 1024);
  for (let i = 0; i <= limit; i++) {
    if (bytes[i] === 0x25 && bytes[i + 1] === 0x50 && bytes[i + 2] === 0x44 && bytes[i + 3] === 0x46 && bytes[i + 4] === 0x2d) return i;
  }
  return -1;
}

/** The binary container the bytes are, when the magic number says so unambiguously. */
export function sniffBinary(bytes: Uint8Array): BinaryKind | undefined {
  const pdfAt = pdfHeaderOffset(bytes);
  // A header after leading junk counts only when the bytes are not an XML document that merely
  // mentions "%PDF-" near its start.
  if (pdfAt === 0 || (pdfAt > 0 && !sniffXmlRoot(bytes))) return { name: 'pdf', mediaType: 'application/pdf' };
  if (startsWith(bytes, [0x50, 0x4b, 0x03, 0x04]) || startsWith(bytes, [0x50, 0x4b, 0x05, 0x06]) || startsWith(bytes, [0x50, 0x4b, 0x07, 0x08])) {
    return { name: 'zip', mediaType: 'application/zip', suffix: 'zip' };
  }
  if (startsWith(bytes, [0x1f, 0x8b])) return { name: 'gzip', mediaType: 'application/gzip', suffix: 'gzip' };
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return { name: 'png', mediaType: 'image/png' };
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return { name: 'jpeg', mediaType: 'image/jpeg' };
  if (startsWith(bytes, [0x47, 0x49, 0x46, 0x38]) && (bytes[4] === 0x37 || bytes[4] === 0x39) && bytes[5] === 0x61) return { name: 'gif', mediaType: 'image/gif' };
  if (startsWith(bytes, [0x49, 0x49, 0x2a, 0x00]) || startsWith(bytes, [0x4d, 0x4d, 0x00, 0x2a])) return { name: 'tiff', mediaType: 'image/tiff' };
  if (startsWith(bytes, [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c])) return { name: '7z', mediaType: 'application/x-7z-compressed' };
  if (startsWith(bytes, [0x52, 0x61, 0x72, 0x21, 0x1a, 0x07])) return { name: 'rar', mediaType: 'application/vnd.rar' };
  if (startsWith(bytes, [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])) return { name: 'cfb', mediaType: 'application/x-cfb' };
  if (startsWith(bytes, [0x42, 0x5a, 0x68])) return { name: 'bzip2', mediaType: 'application/x-bzip2' };
  if (startsWith(bytes, [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00])) return { name: 'xz', mediaType: 'application/x-xz' };
  return undefined;
}

export interface XmlRoot {
  /** Prefix as written, '' for none. */
  prefix: string;
  localName: string;
  /** Namespace URI bound to the root's prefix on the root element itself, '' when none is declared there. */
  namespace: string;
}

/** Decodes the head of a document for sniffing: UTF-8 (with or without BOM) or UTF-16 with BOM. */
function head(bytes: Uint8Array, max = 64 * 1024): string {
  const slice = bytes.subarray(0, Math.min(bytes.length, max));
  const even = (from: number): Buffer => Buffer.from(slice.subarray(from, from + ((slice.length - from) & ~1)));
  if (startsWith(slice, [0xff, 0xfe])) return even(2).toString('utf16le');
  if (startsWith(slice, [0xfe, 0xff])) return even(2).swap16().toString('utf16le');
  const s = Buffer.from(slice).toString('utf8');
  return s.charCodeAt(0) === 0xfeff ? s.slice(1) : s;
}

/**
 * The root element of an XML document: skips the declaration, processing instructions, comments
 * and a DOCTYPE; returns undefined when the bytes do not start like XML.
 */
export function sniffXmlRoot(bytes: Uint8Array): XmlRoot | undefined {
  const s = head(bytes);
  let i = 0;
  const n = s.length;
  for (;;) {
    while (i < n && /\s/.test(s[i]!)) i++;
    if (i >= n || s[i] !== '<') return undefined;
    if (s.startsWith('<?', i)) {
      const end = s.indexOf('?>', i + 2);
      if (end < 0) return undefined;
      i = end + 2;
    } else if (s.startsWith('<!--', i)) {
      const end = s.indexOf('-->', i + 4);
      if (end < 0) return undefined;
      i = end + 3;
    } else if (s.startsWith('<!DOCTYPE', i)) {
      // Skip an internal subset in brackets, then the closing '>'.
      let j = i + 9;
      let depth = 0;
      for (; j < n; j++) {
        if (s[j] === '[') depth++;
        else if (s[j] === ']') depth--;
        else if (s[j] === '>' && depth <= 0) break;
      }
      i = j + 1;
    } else break;
  }
  const m = /^<([A-Za-z_][\w.-]*)(?::([A-Za-z_][\w.-]*))?/.exec(s.slice(i, i + 256));
  if (!m?.[1]) return undefined;
  const prefix = m[2] ? m[1] : '';
  const localName = m[2] ?? m[1];
  const tagEnd = s.indexOf('>', i);
  const tag = s.slice(i, tagEnd < 0 ? n : tagEnd);
  const nsRe = prefix ? new RegExp(`xmlns:${prefix.replace(/[.-]/g, '\\$&')}\\s*=\\s*(["'])(.*?)\\1`) : /xmlns\s*=\s*(["'])(.*?)\1/;
  const ns = nsRe.exec(tag);
  return { prefix, localName, namespace: ns?.[2] ?? '' };
}
