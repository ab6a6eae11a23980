/** Is this a FatturaPA 1.2 document (`FatturaElettronica` in its namespace)? Read from the root element only (no parse). */
import { sniffXmlRoot } from '../detect/sniff.ts';
import { FATTURAPA_NS } from './codes.ts';

export function detectFatturaPa(bytes: Uint8Array | string): boolean {
  const root = sniffXmlRoot(typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes);
  return root?.localName === 'FatturaElettronica' && root.namespace === FATTURAPA_NS;
}
