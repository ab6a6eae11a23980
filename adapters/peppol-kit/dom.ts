/**
 * The DOM the Peppol kit reads signed XML with: @xmldom/xmldom, the DOM xml-crypto canonicalises.
 * Loaded untyped because the package's own declarations pull the browser DOM library into the
 * whole program; these are the parts we use. xmldom forgives what XML does not (an unclosed
 * element is closed for you), so libxml2 first decides whether the text is well formed, under
 * the hardened options and shape caps of every XML reader here; a DOCTYPE is refused outright (no
 * DTD, no entity can reach us through SOAP, SMP or SBDH).
 */
import { createRequire } from 'node:module';
import { parseXmlHardened } from '../../mappings/xml/parse.ts';

export interface DomNode {
  readonly nodeType: number;
  readonly parentNode: DomNode | null;
  readonly childNodes: ArrayLike<DomNode>;
  readonly textContent: string | null;
}
export interface DomAttr { readonly name: string; readonly localName: string; readonly prefix: string | null; readonly namespaceURI: string | null; readonly value: string }
export interface DomElement extends DomNode {
  readonly localName: string;
  readonly namespaceURI: string | null;
  readonly prefix: string | null;
  readonly tagName: string;
  readonly attributes: ArrayLike<DomAttr>;
  readonly ownerDocument: DomDocument;
  /** xmldom 0.8 answers '' for an absent attribute: ask hasAttribute when absence matters. */
  getAttribute(name: string): string | null;
  hasAttribute(name: string): boolean;
  getAttributeNS(ns: string | null, local: string): string | null;
  getElementsByTagNameNS(ns: string, local: string): ArrayLike<DomElement>;
}
export interface DomDocument extends DomNode { readonly documentElement: DomElement | null }

const ELEMENT_NODE = 1;
const { DOMParser } = createRequire(import.meta.url)('@xmldom/xmldom') as {
  DOMParser: new (options?: { errorHandler?: { warning?(m: string): void; error?(m: string): void; fatalError?(m: string): void } }) => { parseFromString(xml: string, type: string): DomDocument };
};

export class XmlSyntaxError extends Error {}

/** Parse XML text strictly; a DOCTYPE is refused before parsing. */
export function parseStrictXml(xml: string): DomDocument {
  if (/<!DOCTYPE/i.test(xml)) throw new XmlSyntaxError('a DOCTYPE is not allowed');
  try {
    parseXmlHardened(xml);
  } catch (err) {
    throw new XmlSyntaxError((err as Error).message);
  }
  const fail = (m: string) => { throw new XmlSyntaxError(m); };
  const doc = new DOMParser({ errorHandler: { warning: () => undefined, error: fail, fatalError: fail } }).parseFromString(xml, 'text/xml');
  if (!doc.documentElement) throw new XmlSyntaxError('no root element');
  return doc;
}

export const isElement = (n: DomNode): n is DomElement => n.nodeType === ELEMENT_NODE;

/** The element children of `parent` named ns:local (then the next step of `path`, and so on). */
export function children(parent: DomElement, path: Array<[string, string]>): DomElement[] {
  let level = [parent];
  for (const [ns, local] of path) {
    level = level.flatMap((p) => Array.from(p.childNodes).filter((c): c is DomElement => isElement(c) && c.localName === local && c.namespaceURI === ns));
  }
  return level;
}

export const child = (parent: DomElement, ns: string, local: string): DomElement | undefined => children(parent, [[ns, local]])[0];

export const elementChildren = (parent: DomElement): DomElement[] => Array.from(parent.childNodes).filter(isElement);

export const text = (n: DomNode | undefined): string => (n?.textContent ?? '').trim();

/** Every element of the tree, depth first (iterative: a deep document cannot exhaust the stack). */
export function* descendants(root: DomElement): Generator<DomElement> {
  const stack: DomElement[] = [root];
  while (stack.length) {
    const el = stack.pop()!;
    yield el;
    const kids = elementChildren(el);
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]!);
  }
}

/** The namespace declarations in scope at `el` from its ancestors (nearest wins), as xml-crypto wants them. */
export function ancestorNamespaces(el: DomElement): Array<{ prefix: string; namespaceURI: string }> {
  const seen = new Map<string, string>();
  for (let p = el.parentNode; p && isElement(p); p = p.parentNode) {
    for (const a of Array.from(p.attributes)) {
      if (a.prefix === 'xmlns' && !seen.has(a.localName)) seen.set(a.localName, a.value);
    }
  }
  return [...seen].map(([prefix, namespaceURI]) => ({ prefix, namespaceURI }));
}
