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
  return { name: el.name(), ns: el.namespace()?.href() ?? '', attrs, kids, text };
}

export function readTree(xml: string | Buffer, what?: string): XEl {
  const doc = parseXmlHardened(xml, what);
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
