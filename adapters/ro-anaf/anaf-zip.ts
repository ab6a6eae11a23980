/**
 * The archives ANAF's `descarcare` hands out, read with fflate: an accepted invoice is `<index>.xml`
 * (the invoice as uploaded) and `semnatura_<index>.xml` (ANAF's signature over it), together the legal
 * original; a refused one holds the error message (`mfp:anaf:dgti:efactura:mesajEroriFactuta:v1`) and
 * its signature. Bounded before anything is inflated: the archive's size, its number of entries and
 * each entry's declared size.
 */
import { unzipSync } from 'fflate';

/** Largest archive we read (an e-Factura XML is capped at 10 MB by ANAF; the zip adds the signature). */
export const MAX_ARCHIVE_BYTES = 12 * 1024 * 1024;
const MAX_ENTRY_BYTES = 12 * 1024 * 1024;
const MAX_ENTRIES = 4;

export interface AnafArchive {
  /** The invoice (or error message) file: its name and bytes. */
  document: { name: string; bytes: Buffer };
  /** ANAF's signature file. */
  signature: { name: string; bytes: Buffer };
}

export class AnafArchiveError extends Error {}

/** Reads an ANAF result archive; throws AnafArchiveError when it is not one. */
export function readAnafArchive(zip: Uint8Array): AnafArchive {
  if (zip.length === 0 || zip.length > MAX_ARCHIVE_BYTES) throw new AnafArchiveError(`the archive is ${zip.length} bytes (at most ${MAX_ARCHIVE_BYTES})`);
  let entries: Record<string, Uint8Array>;
  let seen = 0;
  try {
    entries = unzipSync(zip, {
      filter: (file) => {
        seen++;
        if (seen > MAX_ENTRIES) throw new AnafArchiveError(`the archive has more than ${MAX_ENTRIES} entries`);
        if (file.originalSize > MAX_ENTRY_BYTES) throw new AnafArchiveError(`${file.name} inflates to ${file.originalSize} bytes`);
        return /\.xml$/i.test(file.name);
      },
    });
  } catch (err) {
    if (err instanceof AnafArchiveError) throw err;
    throw new AnafArchiveError(`not a zip archive: ${(err as Error).message}`);
  }
  const names = Object.keys(entries);
  const signatureName = names.find((n) => /^semnatura_/i.test(n.split('/').pop() ?? ''));
  const documentName = names.find((n) => n !== signatureName);
  if (!signatureName || !documentName) throw new AnafArchiveError(`the archive should hold the document and ANAF's signature, it holds ${names.join(', ') || 'no XML file'}`);
  return {
    document: { name: documentName, bytes: Buffer.from(entries[documentName]!) },
    signature: { name: signatureName, bytes: Buffer.from(entries[signatureName]!) },
  };
}
