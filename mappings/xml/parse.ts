/**
 * Hardened XML parsing with libxmljs2: no entity expansion, no DTD loading, no network, no
 * "huge" documents. Every XML reader in mappings/ goes through here.
 */
import libxml from 'libxmljs2';
import type { Document, Element } from 'libxmljs2';
import { MappingError } from '../errors.ts';

export const HARDENED_PARSE_OPTIONS = {
  noent: false,
  nonet: true,
  dtdload: false,
  dtdattr: false,
  dtdvalid: false,
  doctype: false,
  huge: false,
  noblanks: false,
  nocdata: false,
  recover: false,
} as const;

export function parseXmlHardened(xml: string | Buffer, what = 'XML document'): Document {
  try {
    return libxml.parseXml(typeof xml === 'string' ? xml : xml.toString('utf8'), HARDENED_PARSE_OPTIONS as unknown as Parameters<typeof libxml.parseXml>[1]);
  } catch (err) {
    throw new MappingError('INVALID_REQUEST', `${what} is not well-formed XML: ${(err as Error).message.trim()}`, [
      { field: 'xml', rule: 'well-formed', message: (err as Error).message.trim() },
    ]);
  }
}

/** Namespace-aware child lookups without XPath compilation per call (fast on large documents). */
export function childElements(el: Element, localName?: string, ns?: string): Element[] {
  const out: Element[] = [];
  for (const n of el.childNodes()) {
    if (n.type() !== 'element') continue;
    const e = n as Element;
    if (localName !== undefined && e.name() !== localName) continue;
    if (ns !== undefined && e.namespace()?.href() !== ns) continue;
    out.push(e);
  }
  return out;
}
