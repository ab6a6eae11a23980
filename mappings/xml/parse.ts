/**
 * Hardened XML parsing with libxmljs2: no entity expansion, no DTD loading, no network, no
 * "huge" documents. Every XML reader in mappings/ goes through here.
 */
import libxml from 'libxmljs2';
import type { Document, Element, ParserOptions } from 'libxmljs2';
import { MappingError } from '../errors.ts';
import { assertXmlWithinLimits } from './limits.ts';

export const HARDENED_PARSE_OPTIONS: ParserOptions = {
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
};

export function parseXmlHardened(xml: string | Buffer, what = 'XML document'): Document {
  // Shape caps first: libxml2 is super-linear on some shapes (thousands of attributes on one element).
  assertXmlWithinLimits(xml);
  try {
    // A Buffer goes in as bytes so libxml2 honours the declared encoding (ISO-8859-1, UTF-16 …).
    return libxml.parseXml(xml as string, HARDENED_PARSE_OPTIONS);
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
