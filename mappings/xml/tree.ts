/**
 * A light, immutable element tree read once from the libxmljs2 DOM. Translators walk it with
 * plain property access (local names, direct children), which keeps their cost linear and free of
 * per-query XPath compilation.
 */
import type { Element } from 'libxmljs2';
import { parseXmlHardened } from './parse.ts';

export interface XEl {
  /** Local name (no prefix). */
  name: string;
  /** Namespace URI, '' when none. */
  ns: string;
  /** The prefix as written ('' when none): name() in the rules reports the document's own QName. */
  prefix?: string;
  /** Attributes by local name. */
  attrs: Record<string, string>;
  kids: XEl[];
  /** Concatenated direct text and CDATA content. */
  text: string;
}

function convert(el: Element): XEl {
  const attrs: Record<string, string> = {};
  for (const a of el.attrs()) attrs[a.name()] = a.value();
  const kids: XEl[] = [];
  let text = '';
  for (const n of el.childNodes()) {
    const t: string = n.type(); // 'cdata' is returned at runtime though absent from the typings
    if (t === 'element') kids.push(convert(n as Element));
    else if (t === 'text' || t === 'cdata') text += (n as unknown as { text(): string }).text();
  }
  return { name: el.name(), ns: el.namespace()?.href() ?? '', prefix: el.namespace()?.prefix() ?? '', attrs, kids, text };
}

/** Shared empties: most elements are leaves without attributes, so they allocate neither. */
const NO_ATTRS: Record<string, string> = Object.freeze({}) as Record<string, string>;
const NO_KIDS: XEl[] = Object.freeze([]) as unknown as XEl[];

const PREDEFINED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|amp|lt|gt|quot|apos);/g, (_m, e: string) => {
    if (e.startsWith('#x')) return String.fromCodePoint(parseInt(e.slice(2), 16));
    if (e.startsWith('#')) return String.fromCodePoint(parseInt(e.slice(1), 10));
    return PREDEFINED[e]!;
  });
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0d;
}

function isNameEnd(c: number): boolean {
  return isSpace(c) || c === 0x2f /* / */ || c === 0x3e /* > */ || c === 0x3d /* = */;
}

/**
 * Builds the tree straight from the text of a document libxml2 has already checked well-formed.
 * Crossing into the native DOM once per node costs more than the whole parse and grows with the
 * heap; one linear pass over the string does not. Only used for UTF-8 documents without a DOCTYPE
 * (the only entities left are the predefined ones and character references).
 */
function scanTree(input: string): XEl {
  const s = input.includes('\r') ? input.replace(/\r\n?/g, '\n') : input;
  const n = s.length;
  const stack: XEl[] = [];
  const scopes: Array<Record<string, string>> = [{ xml: 'http://www.w3.org/XML/1998/namespace' }];
  let root: XEl | undefined;
  let i = s.charCodeAt(0) === 0xfeff ? 1 : 0;
  while (i < n) {
    const lt = s.indexOf('<', i);
    const top = stack[stack.length - 1];
    if (lt < 0) break;
    if (lt > i && top) top.text += decodeEntities(s.slice(i, lt));
    i = lt;
    if (s.startsWith('<?', i)) { i = s.indexOf('?>', i + 2) + 2; continue; }
    if (s.startsWith('<!--', i)) { i = s.indexOf('-->', i + 4) + 3; continue; }
    if (s.startsWith('<![CDATA[', i)) {
      const end = s.indexOf(']]>', i + 9);
      if (top) top.text += s.slice(i + 9, end);
      i = end + 3;
      continue;
    }
    if (s.charCodeAt(i + 1) === 0x2f /* / */) {
      stack.pop();
      scopes.pop();
      i = s.indexOf('>', i + 2) + 1;
      continue;
    }
    // Start tag: name, then attributes until '>' or '/>'.
    let j = i + 1;
    while (j < n && !isNameEnd(s.charCodeAt(j))) j++;
    const qname = s.slice(i + 1, j);
    const rawAttrs: Array<[string, string]> = [];
    // Scopes are shared until an element declares a namespace (copy on write).
    let scope = scopes[scopes.length - 1]!;
    let ownScope = false;
    let selfClosing = false;
    for (;;) {
      while (j < n && isSpace(s.charCodeAt(j))) j++;
      const ch = s.charCodeAt(j);
      if (ch === 0x3e /* > */ || j >= n) { j++; break; }
      if (ch === 0x2f /* / */) { selfClosing = true; j = s.indexOf('>', j) + 1; break; }
      let k = j;
      while (k < n && s.charCodeAt(k) !== 0x3d && !isSpace(s.charCodeAt(k))) k++;
      const aname = s.slice(j, k);
      while (k < n && s.charCodeAt(k) !== 0x22 && s.charCodeAt(k) !== 0x27) k++;
      const quote = s[k]!;
      const end = s.indexOf(quote, k + 1);
      const raw = s.slice(k + 1, end);
      const value = decodeEntities(raw.includes('\t') || raw.includes('\n') ? raw.replace(/[\t\n]/g, ' ') : raw);
      j = end + 1;
      if (aname === 'xmlns' || aname.startsWith('xmlns:')) {
        if (!ownScope) { scope = { ...scope }; ownScope = true; }
        scope[aname === 'xmlns' ? '' : aname.slice(6)] = value;
      } else rawAttrs.push([aname, value]);
    }
    const colon = qname.indexOf(':');
    const prefix = colon < 0 ? '' : qname.slice(0, colon);
    let attrs = NO_ATTRS;
    if (rawAttrs.length) {
      attrs = {};
      for (const [aname, value] of rawAttrs) {
        const c = aname.indexOf(':');
        attrs[c < 0 ? aname : aname.slice(c + 1)] = value;
      }
    }
    const el: XEl = { name: colon < 0 ? qname : qname.slice(colon + 1), ns: scope[prefix] ?? '', prefix, attrs, kids: NO_KIDS, text: '' };
    if (top) {
      if (top.kids === NO_KIDS) top.kids = [el];
      else top.kids.push(el);
    } else root ??= el;
    if (!selfClosing) {
      stack.push(el);
      scopes.push(scope);
    }
    i = j;
  }
  if (!root) throw new Error('document has no root element');
  return root;
}

/** UTF-8 (declared or implied) and no DOCTYPE: the fast scanner applies. */
function scannable(text: string): boolean {
  const decl = /^\uFEFF?<\?xml[^>]*encoding\s*=\s*["']([^"']+)["']/.exec(text);
  if (decl && !/^utf-?8$/i.test(decl[1]!)) return false;
  return !/<!DOCTYPE/i.test(text.slice(0, 4096)) && !text.includes('<!ENTITY');
}

export function readTree(xml: string | Buffer, what?: string): XEl {
  // libxml2 (hardened) is the judge of well-formedness and of the encoding.
  const doc = parseXmlHardened(xml, what);
  const text = typeof xml === 'string' ? xml : xml.toString('utf8');
  // A Buffer starting with a UTF-16 BOM is not UTF-8 text: the DOM path decodes it.
  const utf16 = typeof xml !== 'string' && xml.length >= 2 && ((xml[0] === 0xff && xml[1] === 0xfe) || (xml[0] === 0xfe && xml[1] === 0xff));
  if (!utf16 && scannable(text)) return scanTree(text);
  const root = doc.root();
  if (!root) throw new Error('document has no root element');
  return convert(root);
}

/** First direct child with this local name. */
export function kid(el: XEl | undefined, name: string): XEl | undefined {
  if (!el) return undefined;
  for (const k of el.kids) if (k.name === name) return k;
  return undefined;
}

/** All direct children with this local name. */
export function kids(el: XEl | undefined, name: string): XEl[] {
  if (!el) return [];
  return el.kids.filter((k) => k.name === name);
}

/** Follows a path of local names through first children. */
export function at(el: XEl | undefined, ...path: string[]): XEl | undefined {
  let cur = el;
  for (const p of path) cur = kid(cur, p);
  return cur;
}

/** Trimmed text at a path, undefined when absent or empty. */
export function txt(el: XEl | undefined, ...path: string[]): string | undefined {
  const n = at(el, ...path);
  if (!n) return undefined;
  const t = n.text.trim();
  return t === '' ? undefined : t;
}

export function attr(el: XEl | undefined, name: string): string | undefined {
  const v = el?.attrs[name];
  return v === undefined || v === '' ? undefined : v;
}

/** The tree of a document libxml2 has already parsed (and so judged well-formed) from this text. */
export function treeOfParsed(doc: import('libxmljs2').Document, text: string): XEl {
  if (scannable(text)) return scanTree(text);
  const root = doc.root();
  if (!root) throw new Error('document has no root element');
  return convert(root);
}

/** The same tree built through the libxml2 DOM (the reference the fast scanner is tested against). */
export function readTreeViaDom(xml: string | Buffer, what?: string): XEl {
  const root = parseXmlHardened(xml, what).root();
  if (!root) throw new Error('document has no root element');
  return convert(root);
}
