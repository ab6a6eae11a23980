/**
 * The XPath 2.0 runtime the generated rule modules call (`rt`). Sequences are JS arrays of nodes,
 * strings, numbers and booleans; a node atomizes to its string value as xs:untypedAtomic, cast as
 * XPath 2.0 casts it in comparisons and arithmetic. A dynamic error throws XPathDynamicError: the
 * engine then gives the whole pack to saxon-js, which reports it the way it always did.
 */
import { attributesOf, type ElNode, type XNode } from './tree.ts';

export class XPathDynamicError extends Error {
  override name = 'XPathDynamicError';
}

type Item = XNode | string | number | boolean;
type Seq = Item[];
type NameTest = [string, string] | null;

const isNode = (x: Item): x is XNode => typeof x === 'object';
const fail = (m: string): never => { throw new XPathDynamicError(m); };

export function stringValue(n: XNode): string {
  if (n.kind === 'attr') return n.value;
  if (n.kind === 'doc') return n.kids.map(stringValue).join('');
  if (n.sv !== undefined) return n.sv;
  n.sv = n.kids.length === 0 ? n.text : n.text + n.kids.map(stringValue).join('');
  return n.sv;
}

function numToString(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? 'INF' : '-INF';
  if (Object.is(x, -0)) return '-0';
  return String(x);
}

export function stringOf(x: Item): string {
  if (isNode(x)) return stringValue(x);
  if (typeof x === 'number') return numToString(x);
  if (typeof x === 'boolean') return x ? 'true' : 'false';
  return x;
}

const DOUBLE = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/;
function toDouble(s: string): number {
  if (DOUBLE.test(s)) return Number(s);
  const t = s.trim();
  if (t === 'NaN') return NaN;
  if (t === 'INF' || t === '+INF') return Infinity;
  if (t === '-INF') return -Infinity;
  return fail(`FORG0001: cannot cast "${s}" to xs:double`);
}

/** An untyped value (from a node) and its string. */
class U { readonly s: string; constructor(s: string) { this.s = s; } }
type Atom = U | string | number | boolean;
function atomize(seq: Seq): Atom[] {
  return seq.map((x) => (isNode(x) ? new U(stringValue(x)) : x));
}
function single(seq: Seq, what: string): Atom | undefined {
  if (seq.length > 1) fail(`XPTY0004: a sequence of more than one item is not allowed as ${what}`);
  return seq.length ? atomize(seq)[0] : undefined;
}

function cmp(op: string, a: number | string | boolean, b: number | string | boolean): boolean {
  switch (op) {
    case '=': case 'eq': return a === b;
    case '!=': case 'ne': return a !== b;
    case '<': case 'lt': return a < b;
    case '<=': case 'le': return a <= b;
    case '>': case 'gt': return a > b;
    default: return a >= b;
  }
}

function generalPair(op: string, x: Atom, y: Atom): boolean {
  if (x instanceof U && y instanceof U) return cmp(op, x.s, y.s);
  if (x instanceof U) return generalPair(op, castLike(x, y), y);
  if (y instanceof U) return generalPair(op, x, castLike(y, x));
  if (typeof x !== typeof y) fail(`XPTY0004: cannot compare ${typeof x} with ${typeof y}`);
  return cmp(op, x as string, y as string);
}
function castLike(u: U, other: Atom): Atom {
  if (typeof other === 'number') return toDouble(u.s);
  if (typeof other === 'boolean') {
    const t = u.s.trim();
    if (t === 'true' || t === '1') return true;
    if (t === 'false' || t === '0') return false;
    return fail('FORG0001: not a boolean');
  }
  return u.s;
}

function ebv(seq: Seq): boolean {
  if (seq.length === 0) return false;
  const f = seq[0]!;
  if (isNode(f)) return true;
  if (seq.length > 1) return fail('FORG0006: effective boolean value of a sequence of atomic values');
  if (typeof f === 'boolean') return f;
  if (typeof f === 'string') return f.length > 0;
  return f !== 0 && !Number.isNaN(f);
}

function docOrder(seq: Seq): Seq {
  if (seq.length < 2) return seq;
  const nodes = seq as XNode[];
  nodes.sort((a, b) => a.order - b.order);
  const out: XNode[] = [nodes[0]!];
  for (let i = 1; i < nodes.length; i++) if (nodes[i] !== nodes[i - 1]) out.push(nodes[i]!);
  return out;
}

const matches = (n: XNode, t: NameTest): boolean => t === null || (n.kind !== 'doc' && n.name === t[1] && n.ns === t[0]);

function descendants(n: XNode, t: NameTest, out: XNode[]): void {
  for (const k of n.kind === 'attr' ? [] : n.kids) {
    if (matches(k, t)) out.push(k);
    descendants(k, t, out);
  }
}

function atomString(a: Atom | undefined): string {
  if (a === undefined) return '';
  if (a instanceof U) return a.s;
  return stringOf(a);
}
const str1 = (seq: Seq, what: string): string => atomString(single(seq, what));
const normalize = (s: string): string => s.replace(/[ \t\n\r]+/g, ' ').trim();

function num1(seq: Seq): number | undefined {
  const a = single(seq, 'an operand');
  if (a === undefined) return undefined;
  if (a instanceof U) return toDouble(a.s);
  if (typeof a === 'number') return a;
  return fail('XPTY0004: arithmetic on a non-number');
}

export const rt = {
  ebv,
  ebvPred(seq: Seq): boolean {
    if (seq.length === 1 && typeof seq[0] === 'number') fail('positional predicate in a pattern');
    return ebv(seq);
  },
  normalize,
  joinValues(seq: Seq): string { return seq.map(stringOf).join(' '); },
  seq(...parts: Seq[]): Seq { return parts.flat(); },
  root(c: Item): Seq {
    if (!isNode(c)) return fail('XPDY0050: the context item is not a node');
    let n: XNode = c;
    while (n.parent) n = n.parent;
    return [n];
  },
  isEl(n: XNode): boolean { return n.kind === 'el'; },
  isAttr(n: XNode): boolean { return n.kind === 'attr'; },
  isDocChild(n: XNode): boolean { return n.parent !== null && n.parent.kind === 'doc'; },
  someAncestor(n: XNode, f: (n: XNode) => boolean): boolean {
    for (let p = n.parent; p; p = p.parent) if (f(p)) return true;
    return false;
  },
  descOrSelf(seq: Seq): Seq {
    const out: XNode[] = [];
    for (const x of seq) {
      if (!isNode(x)) fail('XPTY0019: path step on an atomic value');
      const n = x as XNode;
      out.push(n);
      descendants(n, null, out);
    }
    return docOrder(out);
  },
  axis(c: Item, axis: string, t: NameTest): Seq {
    if (!isNode(c)) return fail('XPTY0020: axis step on an atomic value');
    switch (axis) {
      case 'child': {
        if (c.kind === 'attr') return [];
        if (t === null) return c.kids;
        const out: XNode[] = [];
        for (const k of c.kids) if (k.name === t[1] && k.ns === t[0]) out.push(k);
        return out;
      }
      case 'attribute': {
        if (c.kind !== 'el') return [];
        const as = attributesOf(c);
        return t === null ? as : as.filter((a) => a.name === t[1] && t[0] === '');
      }
      case 'parent': return c.parent && matches(c.parent, t) ? [c.parent] : [];
      case 'self': return matches(c, t) ? [c] : [];
      case 'descendant': { const out: XNode[] = []; descendants(c, t, out); return out; }
      case 'descendant-or-self': { const out: XNode[] = matches(c, t) ? [c] : []; descendants(c, t, out); return out; }
      case 'ancestor': case 'ancestor-or-self': {
        const out: XNode[] = [];
        for (let p: XNode | null = axis === 'ancestor' ? c.parent : c; p; p = p.parent) if (matches(p, t)) out.push(p);
        return out.reverse();
      }
      case 'preceding-sibling': case 'following-sibling': {
        if (c.kind !== 'el') return [];
        const sibs = c.parent.kids as ElNode[];
        const i = sibs.indexOf(c);
        const part = axis === 'preceding-sibling' ? sibs.slice(0, i) : sibs.slice(i + 1);
        return part.filter((s) => matches(s, t));
      }
      default: return fail(`axis ${axis}`);
    }
  },
  path(from: Seq, f: (c: Item, p: number, z: number) => Seq): Seq {
    const out: Item[] = [];
    let nodes = 0;
    for (let i = 0; i < from.length; i++) {
      const x = from[i]!;
      if (!isNode(x)) fail('XPTY0019: path step on an atomic value');
      for (const r of f(x, i + 1, from.length)) { out.push(r); if (isNode(r)) nodes++; }
    }
    if (nodes === out.length) return docOrder(out);
    if (nodes > 0) fail('XPTY0018: a path mixes nodes and atomic values');
    return out;
  },
  filter(seq: Seq, pred: (c: Item, p: number, z: number) => Seq): Seq {
    const out: Item[] = [];
    for (let i = 0; i < seq.length; i++) {
      const r = pred(seq[i]!, i + 1, seq.length);
      if (r.length === 1 && typeof r[0] === 'number' ? r[0] === i + 1 : ebv(r)) out.push(seq[i]!);
    }
    return out;
  },
  union(a: Seq, b: Seq): Seq {
    if (!a.every(isNode) || !b.every(isNode)) fail('XPTY0004: union of non-nodes');
    return docOrder([...a, ...b]);
  },
  some(seq: Seq, f: (x: Seq) => boolean): boolean { return seq.some((x) => f([x])); },
  every(seq: Seq, f: (x: Seq) => boolean): boolean { return seq.every((x) => f([x])); },
  forEach(seq: Seq, f: (x: Seq) => Seq): Seq { return seq.flatMap((x) => f([x])); },
  gcmp(op: string, a: Seq, b: Seq): boolean {
    const xa = atomize(a); const xb = atomize(b);
    for (const x of xa) for (const y of xb) if (generalPair(op, x, y)) return true;
    return false;
  },
  vcmp(op: string, a: Seq, b: Seq): Seq {
    const x = single(a, 'a value comparison operand'); const y = single(b, 'a value comparison operand');
    if (x === undefined || y === undefined) return [];
    const xs = x instanceof U ? x.s : x; const ys = y instanceof U ? y.s : y;
    if (typeof xs !== typeof ys) fail('XPTY0004: value comparison of different types');
    return [cmp(op, xs, ys)];
  },
  arith(op: string, a: Seq, b: Seq): Seq {
    const x = num1(a); const y = num1(b);
    if (x === undefined || y === undefined) return [];
    switch (op) {
      case '+': return [x + y];
      case '-': return [x - y];
      case '*': return [x * y];
      case 'div': return [x / y];
      case 'mod': return [x % y];
      default: return fail('idiv');
    }
  },
  neg(a: Seq): Seq { const x = num1(a); return x === undefined ? [] : [-x]; },
  fn: {
    'not': (a: Seq): Seq => [!ebv(a)],
    'exists': (a: Seq): Seq => [a.length > 0],
    'empty': (a: Seq): Seq => [a.length === 0],
    'count': (a: Seq): Seq => [a.length],
    'boolean': (a: Seq): Seq => [ebv(a)],
    'true': (): Seq => [true],
    'false': (): Seq => [false],
    'string': (a: Seq): Seq => [str1(a, 'the argument of string()')],
    'normalize-space': (a: Seq): Seq => [normalize(str1(a, 'the argument of normalize-space()'))],
    'string-length': (a: Seq): Seq => [[...str1(a, 'the argument of string-length()')].length],
    'upper-case': (a: Seq): Seq => [str1(a, 'the argument of upper-case()').toUpperCase()],
    'lower-case': (a: Seq): Seq => [str1(a, 'the argument of lower-case()').toLowerCase()],
    'contains': (a: Seq, b: Seq): Seq => [str1(a, 'contains()').includes(str1(b, 'contains()'))],
    'starts-with': (a: Seq, b: Seq): Seq => [str1(a, 'starts-with()').startsWith(str1(b, 'starts-with()'))],
    'ends-with': (a: Seq, b: Seq): Seq => [str1(a, 'ends-with()').endsWith(str1(b, 'ends-with()'))],
    'substring-before': (a: Seq, b: Seq): Seq => { const s = str1(a, 'substring-before()'); const t = str1(b, 'substring-before()'); const i = s.indexOf(t); return [i < 0 ? '' : s.slice(0, i)]; },
    'substring-after': (a: Seq, b: Seq): Seq => { const s = str1(a, 'substring-after()'); const t = str1(b, 'substring-after()'); const i = s.indexOf(t); return [i < 0 ? '' : s.slice(i + t.length)]; },
    'concat': (...args: Seq[]): Seq => [args.map((x) => str1(x, 'an argument of concat()')).join('')],
    'string-join': (a: Seq, sep: Seq): Seq => [atomize(a).map(atomString).join(str1(sep, 'string-join()'))],
    'translate': (a: Seq, from: Seq, to: Seq): Seq => {
      const s = [...str1(a, 'translate()')]; const f = [...str1(from, 'translate()')]; const t = [...str1(to, 'translate()')];
      return [s.map((ch) => { const i = f.indexOf(ch); return i < 0 ? ch : (t[i] ?? ''); }).join('')];
    },
    'substring': (a: Seq, start: Seq, len?: Seq): Seq => {
      const s = [...str1(a, 'substring()')];
      const st = Math.round(num1(start) ?? NaN);
      const end = len ? st + Math.round(num1(len) ?? NaN) : Infinity;
      return [s.filter((_c, i) => i + 1 >= st && i + 1 < end).join('')];
    },
    'local-name': (a: Seq): Seq => {
      if (a.length > 1) fail('local-name() of several nodes');
      const n = a[0];
      if (n === undefined) return [''];
      if (!isNode(n)) return fail('local-name() of an atomic value');
      return [n.kind === 'doc' ? '' : n.name];
    },
    'number': (a: Seq): Seq => {
      const x = single(a, 'number()');
      if (x === undefined) return [NaN];
      if (typeof x === 'number') return [x];
      if (typeof x === 'boolean') return [x ? 1 : 0];
      const s = x instanceof U ? x.s : x;
      return [DOUBLE.test(s) ? Number(s) : NaN];
    },
    'distinct-values': (a: Seq): Seq => {
      const out: Item[] = []; const seen = new Set<string>();
      for (const x of atomize(a)) {
        const v = x instanceof U ? x.s : x;
        const key = `${typeof v}:${String(v)}`;
        if (!seen.has(key)) { seen.add(key); out.push(v); }
      }
      return out;
    },
  } as Record<string, (...args: Seq[]) => Seq>,
};
export type Runtime = typeof rt;
