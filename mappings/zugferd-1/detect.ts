/** Is this a ZUGFeRD 1.0 CrossIndustryDocument? Read from the root element only (no parse). */
import { sniffXmlRoot } from '../detect/sniff.ts';
import { ZF1_RSM_NS } from './namespaces.ts';

export function detectZugferd1(bytes: Uint8Array | string): boolean {
  const root = sniffXmlRoot(typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes);
  return root?.localName === 'CrossIndustryDocument' && root.namespace === ZF1_RSM_NS;
}
