/** Is this a UBL 2.1 Invoice or CreditNote? Read from the root element only (no parse). */
import { sniffXmlRoot } from '../detect/sniff.ts';
import { UBL_CREDIT_NOTE_NS, UBL_INVOICE_NS } from './namespaces.ts';

export function detectUbl(bytes: Uint8Array | string): 'Invoice' | 'CreditNote' | undefined {
  const root = sniffXmlRoot(typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes);
  if (root?.localName === 'Invoice' && root.namespace === UBL_INVOICE_NS) return 'Invoice';
  if (root?.localName === 'CreditNote' && root.namespace === UBL_CREDIT_NOTE_NS) return 'CreditNote';
  return undefined;
}
