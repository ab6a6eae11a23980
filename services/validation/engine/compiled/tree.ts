/**
 * The indexed document the compiled rules run over: the one-pass tree (mappings/xml/tree.ts) wrapped
 * once with parent links, document order and an index of elements by local name, so a rule context
 * is found by index lookup instead of a walk. Same-name ordinals (for location paths) are computed
 * only for the parents of nodes that have findings, once per parent.
 */
import type { XEl } from '../../../../mappings/xml/tree.ts';

export interface DocNode { kind: 'doc'; parent: null; kids: ElNode[]; order: -1 }
export interface ElNode {
  kind: 'el'; name: string; ns: string; parent: ElNode | DocNode; kids: ElNode[]; text: string;
  /** document order among elements (0 = root) */
  order: number;
  /** 1-based position among preceding siblings with the same name and namespace (see ordinalOf) */
  ordinal?: number;
  raw: XEl;
  attrNodes?: AttrNode[];
  sv?: string;
}
export interface AttrNode { kind: 'attr'; name: string; ns: ''; value: string; parent: ElNode; order: number; kids: never[] }
export type XNode = DocNode | ElNode | AttrNode;

export interface IndexedDoc {
  doc: DocNode;
  elements: ElNode[];
  byName: Map<string, ElNode[]>;
  attrsByName?: Map<string, AttrNode[]>;
}

const NO_KIDS: ElNode[] = [];

export function indexTree(root: XEl): IndexedDoc {
  const doc: DocNode = { kind: 'doc', parent: null, kids: [], order: -1 };
  const elements: ElNode[] = [];
  const byName = new Map<string, ElNode[]>();
  const visit = (x: XEl, parent: ElNode | DocNode): ElNode => {
    const n: ElNode = { kind: 'el', name: x.name, ns: x.ns, parent, kids: NO_KIDS, text: x.text, order: elements.length, raw: x };
    elements.push(n);
    const list = byName.get(x.name);
    if (list) list.push(n); else byName.set(x.name, [n]);
    if (x.kids.length) {
      n.kids = new Array<ElNode>(x.kids.length);
      for (let i = 0; i < x.kids.length; i++) n.kids[i] = visit(x.kids[i]!, n);
    }
    return n;
  };
  doc.kids = [visit(root, doc)];
  doc.kids[0]!.ordinal = 1;
  return { doc, elements, byName };
}

export function attributesOf(n: ElNode): AttrNode[] {
  if (!n.attrNodes) {
    const names = Object.keys(n.raw.attrs);
    n.attrNodes = names.map((name, i) => ({ kind: 'attr', name, ns: '', value: n.raw.attrs[name]!, parent: n, order: n.order + (i + 1) / (names.length + 1), kids: [] }));
  }
  return n.attrNodes;
}

export function attributesByName(d: IndexedDoc): Map<string, AttrNode[]> {
  if (!d.attrsByName) {
    d.attrsByName = new Map();
    for (const e of d.elements) for (const a of attributesOf(e)) {
      const l = d.attrsByName.get(a.name);
      if (l) l.push(a); else d.attrsByName.set(a.name, [a]);
    }
  }
  return d.attrsByName;
}

/** The XPath location the saxon path reports (einv:path in the XSLT compiler): /p:name[n]… and /@attr. */
export function locationOf(n: XNode, prefixes: Record<string, string>): string {
  if (n.kind === 'doc') return '/';
  if (n.kind === 'attr') return `${locationOf(n.parent, prefixes)}/@${n.name}`;
  const p = prefixes[n.ns];
  const q = n.ns === '' ? n.name : p !== undefined ? `${p}:${n.name}` : `*:${n.name}`;
  return `${n.parent.kind === 'doc' ? '' : locationOf(n.parent, prefixes)}/${q}[${ordinalOf(n)}]`;
}

/** The element's same-name position among its siblings; numbers all its siblings at once. */
function ordinalOf(n: ElNode): number {
  if (n.ordinal === undefined) {
    const seen = new Map<string, number>();
    for (const k of n.parent.kids) {
      const key = `${k.ns} ${k.name}`;
      const o = (seen.get(key) ?? 0) + 1;
      seen.set(key, o);
      k.ordinal = o;
    }
  }
  return n.ordinal!;
}
