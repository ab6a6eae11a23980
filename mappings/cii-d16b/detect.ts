/** Is this a UN/CEFACT CII CrossIndustryInvoice? Read from the root element only (no parse). */
import { sniffXmlRoot } from '../detect/sniff.ts';
import { CII_RSM_NS } from './namespaces.ts';

export function detectCii(bytes: Uint8Array | string): boolean {
  const root = sniffXmlRoot(typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes);
  return root?.localName === 'CrossIndustryInvoice' && (root.namespace === CII_RSM_NS || root.namespace === '');
}
