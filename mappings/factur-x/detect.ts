/** Is this a PDF (a candidate hybrid invoice)? The header may follow up to 1024 bytes of junk. */
import { pdfHeaderOffset } from '../detect/sniff.ts';

export function detectPdf(bytes: Uint8Array): boolean {
  return pdfHeaderOffset(bytes) >= 0;
}
