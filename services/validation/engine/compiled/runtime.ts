/**
 * The XPath 2.0 runtime the generated rule modules call (`rt`). Sequences are JS arrays of items:
 * nodes, and atomic values typed as XPath types them, because the rules' verdicts depend on it
 * (0.1 + 0.2 = 0.3 holds in xs:decimal and fails in xs:double):
 *
 *   xs:string → string, xs:untypedAtomic (a node's value) → U, xs:double → number,
 *   xs:integer → bigint, xs:decimal → XDecimal (decimal.js), xs:boolean → boolean, xs:date → XDate.
 *
 * Numeric promotion, casts and comparisons follow XPath 2.0: untyped values become xs:double in
 * arithmetic and numeric comparisons, strings in string comparisons; integer div integer is a
 * decimal (20 fraction digits, half up, as saxon-js computes it). A dynamic error throws
 * XPathDynamicError: the engine then gives the whole pack to saxon-js, which reports it the way it
 * always did, so only the common path needs to be exact here, and it is proven so by the
 * differential test over the corpus.
 */
import { Decimal } from 'decimal.js';
import { attributesOf, type DocNode, type ElNode, type XNode } from './tree.ts';

export class XPathDynamicError extends Error {
  override name = 'XPathDynamicError';
}

/** xs:decimal: exact; division keeps 20 fraction digits like saxon-js (big.js, DP 20, half up). */
const XDecimal = Decimal.clone({ precision: 80, rounding: Decimal.ROUND_HALF_UP, toExpNeg: -9e15, toExpPos: 9e15 });
type XDecimal = InstanceType<typeof XDecimal>;
const DIV_PLACES = 20;

/** xs:date: calendar day and optional timezone (minutes east of UTC). */
export class XDate {
  readonly y: number; readonly m: number; readonly d: number; readonly tz: number | null;
  constructor(y: number, m: number, d: number, tz: number | null) { this.y = y; this.m = m; this.d = d; this.tz = tz; }
  /** Minutes since the epoch at the start of the day, in the implicit timezone when it has none. */
  get key(): number {
    return Date.UTC(this.y, this.m - 1, this.d) / 60_000 - (this.tz ?? IMPLICIT_TZ);
  }
  toString(): string {
    const pad = (n: number, w: number) => String(Math.abs(n)).padStart(w, '0');
    const tz = this.tz === null ? '' : this.tz === 0 ? 'Z' : `${this.tz < 0 ? '-' : '+'}${pad(Math.trunc(Math.abs(this.tz) / 60), 2)}:${pad(Math.abs(this.tz) % 60, 2)}`;
    return `${this.y < 0 ? '-' : ''}${pad(this.y, 4)}-${pad(this.m, 2)}-${pad(this.d, 2)}${tz}`;
  }
}
/** saxon-js takes the implicit timezone from the process's clock, as we do. */
const IMPLICIT_TZ = -new Date().getTimezoneOffset();

/** An XPath 3.1 map with atomic keys (the packs build lookup tables with map:merge). */
class XMap {
  readonly entries = new Map<string, Seq>();
}
/** Keys equal under op:same-key: strings and untyped values by their text, numbers by value. */
function mapKey(a: Atom): string {
  if (typeof a === 'string') return `s:${a}`;
  if (a instanceof U) return `s:${a.s}`;
  if (isNumeric(a)) return `n:${toDouble(a)}`;
  return `${typeof a}:${String(a)}`;
}

/** A compiled xsl:key (generated module) and the indexes built from it, per document. */
interface KeyDef { names: string[] | null; match: (n: XNode, v: unknown) => boolean; use: (c: XNode, v: unknown) => Seq }
const keyIndexes = new WeakMap<XNode, Map<KeyDef, Map<string, XNode[]>>>();

/** An untyped value (a node's string value, atomized). */
class U { readonly s: string; constructor(s: string) { this.s = s; } }

type Atom = U | string | number | bigint | boolean | XDecimal | XDate;
type Item = XNode | Atom | XMap;
type Seq = Item[];
type NameTest = [string, string] | null;
type Numeric = number | bigint | XDecimal;

const isNode = (x: unknown): x is XNode => typeof x === 'object' && x !== null && 'kind' in x;
const isDec = (x: unknown): x is XDecimal => x instanceof XDecimal;
const isNumeric = (x: unknown): x is Numeric => typeof x === 'number' || typeof x === 'bigint' || isDec(x);
const fail = (m: string): never => { throw new XPathDynamicError(m); };

export function stringValue(n: XNode): string {
  if (n.kind === 'attr') return n.value;
  if (n.kind === 'doc') return n.kids.map(stringValue).join('');
  if (n.sv !== undefined) return n.sv;
  n.sv = n.kids.length === 0 ? n.text : n.text + n.kids.map(stringValue).join('');
  return n.sv;
}

/** xs:double → xs:string as XPath 2.0 writes it (1.0E7, 0.5, -0, INF). */
function doubleToString(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? 'INF' : '-INF';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const a = Math.abs(x);
  if (a >= 1e-6 && a < 1e6) return String(x);
  const [mant, exp] = x.toExponential().split('e') as [string, string];
  return `${mant.includes('.') ? mant : `${mant}.0`}E${exp.startsWith('+') ? exp.slice(1) : exp}`;
}

function decToString(x: XDecimal): string {
  return x.isZero() ? '0' : x.toFixed();
}

function atomToString(a: Atom): string {
  if (typeof a === 'string') return a;
  if (a instanceof U) return a.s;
  if (typeof a === 'number') return doubleToString(a);
  if (typeof a === 'bigint' || typeof a === 'boolean') return String(a);
  if (isDec(a)) return decToString(a);
  return a.toString();
}

/** An item's typed value: a node's string as untyped, an atom itself; a map has none. */
function atomOf(x: Item): Atom {
  if (isNode(x)) return new U(stringValue(x));
  if (x instanceof XMap) return fail('FOTY0013: a map has no typed value');
  return x;
}

export function stringOf(x: Item): string {
  return atomToString(atomOf(x));
}

function atomize(seq: Seq): Atom[] {
  return seq.map(atomOf);
}
function single(seq: Seq, what: string): Atom | undefined {
  if (seq.length > 1) fail(`XPTY0004: a sequence of more than one item is not allowed as ${what}`);
  return seq.length === 0 ? undefined : atomOf(seq[0]!);
}

// ---- casts ------------------------------------------------------------------------------------

const DOUBLE = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;
const INTEGER = /^[+-]?\d+$/;
const DATE = /^(-?\d{4,})-(\d{2})-(\d{2})(Z|[+-]\d{2}:\d{2})?$/;
/** XSD whitespace collapse, as every cast from a string to these types applies it. */
const trimXml = (s: string): string => s.replace(/^[ \t\n\r]+|[ \t\n\r]+$/g, '');

function lexical(a: Atom): string | undefined {
  return typeof a === 'string' ? a : a instanceof U ? a.s : undefined;
}

function toDouble(a: Atom): number {
  if (typeof a === 'number') return a;
  if (typeof a === 'bigint') return Number(a);
  if (isDec(a)) return a.toNumber();
  if (typeof a === 'boolean') return a ? 1 : 0;
  const s = lexical(a);
  if (s === undefined) return fail('XPTY0004: cannot cast a date to xs:double');
  const t = trimXml(s);
  if (DOUBLE.test(t)) return Number(t);
  if (t === 'NaN') return NaN;
  if (t === 'INF') return Infinity;
  if (t === '-INF') return -Infinity;
  return fail(`FORG0001: cannot cast "${s}" to xs:double`);
}

function toDecimal(a: Atom): XDecimal {
  if (isDec(a)) return a;
  if (typeof a === 'bigint') return new XDecimal(a.toString());
  if (typeof a === 'boolean') return new XDecimal(a ? 1 : 0);
  if (typeof a === 'number') {
    if (!Number.isFinite(a)) return fail('FOCA0002: NaN or INF cast to xs:decimal');
    return new XDecimal(a);
  }
  const s = lexical(a);
  if (s === undefined) return fail('XPTY0004: cannot cast a date to xs:decimal');
  const t = trimXml(s);
  if (!DECIMAL.test(t)) return fail(`FORG0001: cannot cast "${s}" to xs:decimal`);
  return new XDecimal(t);
}

function toInteger(a: Atom): bigint {
  if (typeof a === 'bigint') return a;
  if (typeof a === 'boolean') return a ? 1n : 0n;
  if (isDec(a)) return BigInt(a.trunc().toFixed());
  if (typeof a === 'number') {
    if (!Number.isFinite(a)) return fail('FOCA0002: NaN or INF cast to xs:integer');
    return BigInt(Math.trunc(a));
  }
  const s = lexical(a);
  if (s === undefined) return fail('XPTY0004: cannot cast a date to xs:integer');
  const t = trimXml(s);
  if (!INTEGER.test(t)) return fail(`FORG0001: cannot cast "${s}" to xs:integer`);
  return BigInt(t);
}

const daysIn = (y: number, m: number): number =>
  m === 2 ? ((y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28) : [4, 6, 9, 11].includes(m) ? 30 : 31;

function toDate(a: Atom): XDate {
  if (a instanceof XDate) return a;
  const s = lexical(a);
  if (s === undefined) return fail('XPTY0004: cannot cast to xs:date');
  const m = DATE.exec(trimXml(s));
  if (!m) return fail(`FORG0001: cannot cast "${s}" to xs:date`);
  const y = Number(m[1]); const mo = Number(m[2]); const d = Number(m[3]);
  if ((m[1]!.replace('-', '').length > 4 && m[1]!.replace('-', '').startsWith('0')) || mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo)) {
    return fail(`FORG0001: "${s}" is not a calendar date`);
  }
  let tz: number | null = null;
  if (m[4] === 'Z') tz = 0;
  else if (m[4]) {
    const h = Number(m[4].slice(1, 3)); const mi = Number(m[4].slice(4, 6));
    if (h > 14 || mi > 59 || (h === 14 && mi > 0)) return fail(`FORG0001: bad timezone in "${s}"`);
    tz = (m[4][0] === '-' ? -1 : 1) * (h * 60 + mi);
  }
  return new XDate(y, mo, d, tz);
}

function toBoolean(a: Atom): boolean {
  if (typeof a === 'boolean') return a;
  if (isNumeric(a)) return typeof a === 'number' ? a !== 0 && !Number.isNaN(a) : typeof a === 'bigint' ? a !== 0n : !a.isZero();
  const s = lexical(a);
  if (s === undefined) return fail('XPTY0004: cannot cast a date to xs:boolean');
  const t = trimXml(s);
  if (t === 'true' || t === '1') return true;
  if (t === 'false' || t === '0') return false;
  return fail(`FORG0001: cannot cast "${s}" to xs:boolean`);
}

/** The atomic types the compiler lets through `cast as`, `castable as` and constructor functions. */
export const CASTS: Record<string, (a: Atom) => Atom> = {
  'xs:string': atomToString,
  'xs:untypedAtomic': (a) => new U(atomToString(a)),
  'xs:double': toDouble,
  'xs:decimal': toDecimal,
  'xs:integer': toInteger,
  'xs:date': toDate,
  'xs:boolean': toBoolean,
};

function castSeq(seq: Seq, type: string, optional: boolean): Seq {
  const a = single(seq, `the operand of cast as ${type}`);
  if (a === undefined) return optional ? [] : fail(`XPTY0004: empty sequence cast as ${type}`);
  return [CASTS[type]!(a)];
}

/** Is the atom an instance of the atomic type (integer is a decimal)? */
function instanceOfAtomic(a: Atom, type: string): boolean {
  switch (type) {
    case 'xs:string': return typeof a === 'string';
    case 'xs:untypedAtomic': return a instanceof U;
    case 'xs:double': return typeof a === 'number';
    case 'xs:decimal': return typeof a === 'bigint' || isDec(a);
    case 'xs:integer': return typeof a === 'bigint';
    case 'xs:date': return a instanceof XDate;
    case 'xs:boolean': return typeof a === 'boolean';
    case 'xs:anyAtomicType': return true;
    default: return fail(`unknown type ${type}`);
  }
}

// ---- comparison and arithmetic -----------------------------------------------------------------

function numCmp(op: string, a: Numeric, b: Numeric): boolean {
  if (typeof a === 'bigint' && typeof b === 'bigint') return cmp(op, a, b);
  if (typeof a === 'number' || typeof b === 'number') return cmp(op, toDouble(a), toDouble(b));
  return cmp(op, toDecimal(a).cmp(toDecimal(b)), 0);
}

function cmp<T extends number | string | bigint | boolean>(op: string, a: T, b: T): boolean {
  switch (op) {
    case '=': case 'eq': return a === b;
    case '!=': case 'ne': return a !== b;
    case '<': case 'lt': return a < b;
    case '<=': case 'le': return a <= b;
    case '>': case 'gt': return a > b;
    default: return a >= b;
  }
}

/** A value comparison of two atoms (untyped already cast). */
function valueCmp(op: string, x: Atom, y: Atom): boolean {
  if (isNumeric(x) && isNumeric(y)) return numCmp(op, x, y);
  if (typeof x === 'string' && typeof y === 'string') return cmp(op, x, y);
  if (typeof x === 'boolean' && typeof y === 'boolean') return cmp(op, x, y);
  if (x instanceof XDate && y instanceof XDate) return cmp(op, x.key, y.key);
  return fail('XPTY0004: values of different types compared');
}

function generalPair(op: string, x: Atom, y: Atom): boolean {
  if (x instanceof U && y instanceof U) return cmp(op, x.s, y.s);
  if (x instanceof U) return valueCmp(op, castLike(x, y), y);
  if (y instanceof U) return valueCmp(op, x, castLike(y, x));
  return valueCmp(op, x, y);
}
function castLike(u: U, other: Atom): Atom {
  if (isNumeric(other)) return toDouble(u);
  if (typeof other === 'boolean') return toBoolean(u);
  if (other instanceof XDate) return toDate(u);
  return u.s;
}

function ebv(seq: Seq): boolean {
  if (seq.length === 0) return false;
  const f = seq[0]!;
  if (isNode(f)) return true;
  if (seq.length > 1) return fail('FORG0006: effective boolean value of a sequence of atomic values');
  if (typeof f === 'boolean') return f;
  if (typeof f === 'string') return f.length > 0;
  if (f instanceof U) return f.s.length > 0;
  if (f instanceof XDate || f instanceof XMap) return fail('FORG0006: effective boolean value of a date or map');
  return toBoolean(f);
}

/** One operand of arithmetic: empty, or a number (untyped → xs:double). */
function numericOperand(seq: Seq): Numeric | undefined {
  const a = single(seq, 'an arithmetic operand');
  if (a === undefined) return undefined;
  if (a instanceof U) return toDouble(a);
  if (isNumeric(a)) return a;
  return fail('XPTY0004: arithmetic on a non-number');
}

function arith(op: string, x: Numeric, y: Numeric): Numeric {
  if (typeof x === 'number' || typeof y === 'number') {
    const a = toDouble(x); const b = toDouble(y);
    switch (op) {
      case '+': return a + b;
      case '-': return a - b;
      case '*': return a * b;
      case 'div': return a / b;
      case 'mod': return a % b;
      default: {
        if (b === 0 || !Number.isFinite(a) || Number.isNaN(b)) return fail('FOAR0001/FOAR0002: idiv by zero or of INF/NaN');
        return BigInt(Math.trunc(a / b));
      }
    }
  }
  if (typeof x === 'bigint' && typeof y === 'bigint') {
    switch (op) {
      case '+': return x + y;
      case '-': return x - y;
      case '*': return x * y;
      case 'div': if (y === 0n) return fail('FOAR0001: division by zero'); break;
      default:
        if (y === 0n) return fail('FOAR0001: division by zero');
        return op === 'mod' ? x % y : x / y;
    }
  }
  const a = toDecimal(x); const b = toDecimal(y);
  switch (op) {
    case '+': return a.plus(b);
    case '-': return a.minus(b);
    case '*': return a.times(b);
    case 'div': if (b.isZero()) return fail('FOAR0001: division by zero'); return a.div(b).toDecimalPlaces(DIV_PLACES, XDecimal.ROUND_HALF_UP);
    case 'mod': if (b.isZero()) return fail('FOAR0001: division by zero'); return a.mod(b);
    default: if (b.isZero()) return fail('FOAR0001: division by zero'); return BigInt(a.div(b).trunc().toFixed());
  }
}

/** round / floor / ceiling / abs on any numeric type, keeping the type. */
function numericFn(seq: Seq, dbl: (x: number) => number, dec: (x: XDecimal) => XDecimal, int: (x: bigint) => bigint): Seq {
  const a = numericOperand(seq);
  if (a === undefined) return [];
  if (typeof a === 'number') return [dbl(a)];
  if (typeof a === 'bigint') return [int(a)];
  return [dec(a)];
}

// ---- sequences and nodes -----------------------------------------------------------------------

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

/**
 * Children by name for an element with many (the invoice root holds every line): a rule that runs
 * per line and reads a header field would otherwise scan all lines each time, quadratic in lines.
 */
const CHILD_INDEX_FROM = 16;
const childIndexes = new WeakMap<XNode, Map<string, XNode[]>>();
function childrenNamed(c: ElNode | DocNode, t: [string, string]): XNode[] {
  let index = childIndexes.get(c);
  if (!index) {
    index = new Map();
    for (const k of c.kids) {
      const key = `${k.ns} ${k.name}`;
      const list = index.get(key);
      if (list) list.push(k); else index.set(key, [k]);
    }
    childIndexes.set(c, index);
  }
  return index.get(`${t[0]} ${t[1]}`) ?? [];
}

const str1 = (seq: Seq, what: string): string => { const a = single(seq, what); return a === undefined ? '' : atomToString(a); };
const normalize = (s: string): string => s.replace(/[ \t\n\r]+/g, ' ').trim();
const int1 = (seq: Seq, what: string): number => {
  const a = numericOperand(seq);
  if (a === undefined) return fail(`XPTY0004: empty ${what}`);
  return Number(typeof a === 'number' ? a : typeof a === 'bigint' ? a : a.toNumber());
};

// ---- regular expressions (XSD/XPath flavour → JavaScript `v` mode) -----------------------------

const regexCache = new Map<string, RegExp>();

/**
 * XPath regular expressions in JavaScript: \d is any Unicode digit, \s only XML whitespace, \w
 * everything but punctuation, separators and others, `.` anything but CR and LF, and character
 * class subtraction ([a-z-[aeiou]]) is the `v` flag's `--`. \i, \c and Unicode blocks (\p{IsX})
 * throw, so such a pattern leaves its pack to saxon-js.
 */
export function xpathRegex(pattern: string, flags: string, global = false): RegExp {
  const key = `${flags}\0${global}\0${pattern}`;
  let re = regexCache.get(key);
  if (re) return re;
  if (/[^smixq]/.test(flags)) fail(`FORX0001: bad regex flags ${flags}`);
  let src: string;
  if (flags.includes('q')) src = pattern.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
  else src = translateRegex(flags.includes('x') ? pattern.replace(/[ \t\n\r]+(?![^[]*\])/g, '') : pattern);
  try {
    re = new RegExp(src, `v${flags.replace(/[xq]/g, '')}${global ? 'g' : ''}`);
  } catch {
    return fail(`FORX0002: invalid regular expression ${pattern}`);
  }
  if (regexCache.size > 1000) regexCache.clear();
  regexCache.set(key, re);
  return re;
}

const CLASS_ESCAPES: Record<string, [string, string]> = {
  // [outside a class, inside a class]
  d: ['\\p{Nd}', '\\p{Nd}'], D: ['\\P{Nd}', '\\P{Nd}'],
  s: ['[ \\t\\n\\r]', ' \\t\\n\\r'], S: ['[^ \\t\\n\\r]', '[^ \\t\\n\\r]'],
  w: ['[^\\p{P}\\p{Z}\\p{C}]', '[^\\p{P}\\p{Z}\\p{C}]'], W: ['[\\p{P}\\p{Z}\\p{C}]', '[\\p{P}\\p{Z}\\p{C}]'],
};
/** Characters that are syntax inside a `v`-mode class and must be escaped when literal. */
const V_CLASS_SYNTAX = /[()[\]{}/\-|&!#$%*+,.:;<=>?@^`~]/;

function translateRegex(p: string): string {
  let i = 0;
  const out: string[] = [];
  const escape = (inClass: boolean): string => {
    const ch = p[i + 1];
    if (ch === undefined) return fail('FORX0002: trailing backslash');
    i += 2;
    if (ch in CLASS_ESCAPES) return CLASS_ESCAPES[ch]![inClass ? 1 : 0];
    if (ch === 'p' || ch === 'P') {
      const m = /^\{([A-Za-z]+)\}/.exec(p.slice(i));
      if (!m || m[1]!.startsWith('Is')) return fail('FORX0002: unsupported \\p');
      i += m[0].length;
      return `\\${ch}{${m[1]}}`;
    }
    if (ch === 'i' || ch === 'c' || ch === 'I' || ch === 'C') return fail('FORX0002: \\i and \\c are not translated');
    if (ch === 'n') return '\\n';
    if (ch === 'r') return '\\r';
    if (ch === 't') return '\\t';
    if (/[1-9]/.test(ch) && !inClass) return `\\${ch}`;
    if ('\\|.-^?*+{}()[]$'.includes(ch)) return inClass || '\\|.^?*+{}()[]$'.includes(ch) ? `\\${ch}` : ch;
    return fail(`FORX0002: bad escape \\${ch}`);
  };
  const charClass = (): string => {
    // at '['; returns the class in v syntax, with XPath subtraction -[...] as --[...]
    i++;
    let body = '';
    if (p[i] === '^') { body += '^'; i++; }
    let first = true;
    while (i < p.length && p[i] !== ']') {
      if (p[i] === '-' && p[i + 1] === '[') { i++; const sub = charClass(); body = `[${body}]--${sub}`; if (p[i] !== ']') fail('FORX0002: subtraction must end the class'); break; }
      if (p[i] === '\\') { body += escape(true); first = false; continue; }
      const ch = p[i]!;
      if (ch === '-' && !first && p[i + 1] !== ']') { body += '-'; i++; continue; }
      body += V_CLASS_SYNTAX.test(ch) ? `\\${ch}` : ch;
      i++;
      first = false;
    }
    if (p[i] !== ']') fail('FORX0002: unterminated class');
    i++;
    return `[${body}]`;
  };
  while (i < p.length) {
    const ch = p[i]!;
    if (ch === '\\') out.push(escape(false));
    else if (ch === '[') out.push(charClass());
    else if (ch === '.') { out.push('[^\\n\\r]'); i++; }
    else if (ch === '(' && p[i + 1] === '?') return fail('FORX0002: (? groups are not XPath');
    else if (ch === '/') { out.push('\\/'); i++; }
    else { out.push(ch); i++; }
  }
  return out.join('');
}

/** An XPath replacement string ($1, \$, \\) in JavaScript's syntax. */
function replacement(r: string): string {
  let out = '';
  for (let i = 0; i < r.length; i++) {
    const ch = r[i]!;
    if (ch === '\\') {
      const n = r[i + 1];
      if (n !== '\\' && n !== '$') return fail('FORX0004: bad replacement string');
      out += n === '$' ? '$$' : '\\'; i++;
    } else if (ch === '$') {
      if (!/[0-9]/.test(r[i + 1] ?? '')) return fail('FORX0004: bad replacement string');
      out += '$';
    } else out += ch;
  }
  return out;
}

function regexArgs(pattern: Seq, flags: Seq | undefined, what: string): [string, string] {
  return [str1(pattern, what), flags ? str1(flags, what) : ''];
}

// ---- the runtime object ------------------------------------------------------------------------

export const rt = {
  ebv,
  ebvPred(seq: Seq): boolean {
    if (seq.length === 1 && isNumeric(seq[0])) fail('positional predicate in a pattern');
    return ebv(seq);
  },
  normalize,
  joinValues(seq: Seq): string { return seq.map(stringOf).join(' '); },
  seq(...parts: Seq[]): Seq { return parts.flat(); },
  /** A decimal literal (hoisted by the generator). */
  dec(s: string): XDecimal { return new XDecimal(s); },
  root(c: Item): Seq {
    if (!isNode(c)) return fail('XPDY0050: the context item is not a node');
    let n: XNode = c;
    while (n.parent) n = n.parent;
    return [n];
  },
  isEl(n: XNode): boolean { return n.kind === 'el'; },
  isAttr(n: XNode): boolean { return n.kind === 'attr'; },
  isDocChild(n: XNode): boolean { return n.parent !== null && n.parent.kind === 'doc'; },
  someAncestor(n: XNode, f: (n: XNode, v: unknown) => boolean, v: unknown): boolean {
    for (let p = n.parent; p; p = p.parent) if (f(p, v)) return true;
    return false;
  },
  child(c: Item, t: NameTest): Seq {
    if (!isNode(c)) return fail('XPTY0020: axis step on an atomic value');
    if (c.kind === 'attr') return [];
    if (t === null) return c.kids;
    if (c.kids.length > CHILD_INDEX_FROM) return childrenNamed(c, t);
    const out: XNode[] = [];
    for (const k of c.kids) if (k.name === t[1] && k.ns === t[0]) out.push(k);
    return out;
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
      case 'child': return rt.child(c, t);
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
  /** A path whose step is an axis step: from one node its result needs no sorting. */
  pathAxis(from: Seq, f: (c: Item, p: number, z: number) => Seq): Seq {
    if (from.length === 1) {
      const x = from[0]!;
      if (!isNode(x)) fail('XPTY0019: path step on an atomic value');
      return f(x, 1, 1);
    }
    return rt.path(from, f);
  },
  /** `a ! b`: b for each item of a, in order, no de-duplication. */
  smap(from: Seq, f: (c: Item, p: number, z: number) => Seq): Seq {
    const out: Item[] = [];
    for (let i = 0; i < from.length; i++) for (const r of f(from[i]!, i + 1, from.length)) out.push(r);
    return out;
  },
  filter(seq: Seq, pred: (c: Item, p: number, z: number) => Seq): Seq {
    const out: Item[] = [];
    for (let i = 0; i < seq.length; i++) {
      const r = pred(seq[i]!, i + 1, seq.length);
      if (r.length === 1 && isNumeric(r[0]) ? numCmp('=', r[0], i + 1) : ebv(r)) out.push(seq[i]!);
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
  range(a: Seq, b: Seq): Seq {
    const x = single(a, 'a range bound'); const y = single(b, 'a range bound');
    if (x === undefined || y === undefined) return [];
    const lo = toInteger(x instanceof U ? toInteger(x) : x); const hi = toInteger(y instanceof U ? toInteger(y) : y);
    if (hi - lo > 1_000_000n) fail('range too long');
    const out: bigint[] = [];
    for (let i = lo; i <= hi; i++) out.push(i);
    return out;
  },
  gcmp(op: string, a: Seq, b: Seq): boolean {
    const xa = atomize(a); const xb = atomize(b);
    for (const x of xa) for (const y of xb) if (generalPair(op, x, y)) return true;
    return false;
  },
  vcmp(op: string, a: Seq, b: Seq): Seq {
    const x = single(a, 'a value comparison operand'); const y = single(b, 'a value comparison operand');
    if (x === undefined || y === undefined) return [];
    return [valueCmp(op, x instanceof U ? x.s : x, y instanceof U ? y.s : y)];
  },
  arith(op: string, a: Seq, b: Seq): Seq {
    const x = numericOperand(a); const y = numericOperand(b);
    if (x === undefined || y === undefined) return [];
    return [arith(op, x, y)];
  },
  neg(a: Seq): Seq {
    const x = numericOperand(a);
    if (x === undefined) return [];
    return [typeof x === 'number' ? -x : typeof x === 'bigint' ? -x : x.neg()];
  },
  cast(seq: Seq, type: string, optional: boolean): Seq { return castSeq(seq, type, optional); },
  castable(seq: Seq, type: string, optional: boolean): boolean {
    if (seq.length > 1) return false;
    try { castSeq(seq, type, optional); return true; } catch (e) { if (e instanceof XPathDynamicError) return false; throw e; }
  },
  instanceOf(seq: Seq, type: string, occ: string): boolean {
    if (seq.length === 0) return occ === '?' || occ === '*';
    if (seq.length > 1 && (occ === '' || occ === '?')) return false;
    return seq.every((x) => !isNode(x) && !(x instanceof XMap) && instanceOfAtomic(x, type));
  },
  /**
   * The function conversion rules for a parameter or result declared `as` an atomic type
   * (atomize, cast untyped values, promote integer/decimal to double), with its cardinality.
   */
  convert(seq: Seq, type: string, occ: string, atomic: boolean): Seq {
    let out = seq;
    if (atomic) {
      out = atomize(seq).map((a) => {
        if (a instanceof U) return CASTS[type]!(a);
        if (type === 'xs:double' && isNumeric(a)) return toDouble(a);
        if (type === 'xs:decimal' && typeof a === 'number') return fail('XPTY0004: xs:double where xs:decimal is required');
        if (type !== 'xs:anyAtomicType' && !instanceOfAtomic(a, type)) return fail(`XPTY0004: not an ${type}`);
        return a;
      });
    }
    if (out.length === 0 && (occ === '' || occ === '+')) fail('XPTY0004: empty sequence where a value is required');
    if (out.length > 1 && (occ === '' || occ === '?')) fail('XPTY0004: several items where one is required');
    return out;
  },
  regex: xpathRegex,
  /** key(name, values): the key's index of the context node's document, built on first use. */
  key(def: KeyDef, v: unknown, values: Seq, c: Item): Seq {
    const doc = rt.root(c)[0] as XNode;
    let perDoc = keyIndexes.get(doc);
    if (!perDoc) keyIndexes.set(doc, perDoc = new Map());
    let index = perDoc.get(def);
    if (!index) {
      index = new Map();
      const all: XNode[] = [];
      descendants(doc, null, all);
      for (const n of all) {
        if (n.kind !== 'el' || (def.names && !def.names.includes(n.name)) || !def.match(n, v)) continue;
        for (const a of atomize(def.use(n, v))) {
          const k = mapKey(a);
          const list = index.get(k);
          if (!list) index.set(k, [n]); else if (list[list.length - 1] !== n) list.push(n);
        }
      }
      perDoc.set(def, index);
    }
    const out: XNode[] = [];
    for (const a of atomize(values)) out.push(...(index.get(mapKey(a)) ?? []));
    return values.length > 1 ? docOrder(out) : out;
  },
  map(entries: [Seq, Seq][]): XMap {
    const m = new XMap();
    for (const [k, v] of entries) {
      const key = single(k, 'a map key');
      if (key === undefined || key instanceof XMap) return fail('XPTY0004: a map key must be one atomic value');
      if (m.entries.has(mapKey(key))) return fail('XQDY0137: duplicate map key');
      m.entries.set(mapKey(key), v);
    }
    return m;
  },
  foldLeft(seq: Seq, zero: Seq, f: (acc: Seq, x: Seq) => Seq): Seq {
    let acc = zero;
    for (const x of seq) acc = f(acc, [x]);
    return acc;
  },
  fn: {
    'not': (a: Seq): Seq => [!ebv(a)],
    'exists': (a: Seq): Seq => [a.length > 0],
    'empty': (a: Seq): Seq => [a.length === 0],
    'count': (a: Seq): Seq => [BigInt(a.length)],
    'boolean': (a: Seq): Seq => [ebv(a)],
    'true': (): Seq => [true],
    'false': (): Seq => [false],
    'string': (a: Seq): Seq => [str1(a, 'the argument of string()')],
    'normalize-space': (a: Seq): Seq => [normalize(str1(a, 'the argument of normalize-space()'))],
    'string-length': (a: Seq): Seq => [BigInt([...str1(a, 'the argument of string-length()')].length)],
    'upper-case': (a: Seq): Seq => [str1(a, 'the argument of upper-case()').toUpperCase()],
    'lower-case': (a: Seq): Seq => [str1(a, 'the argument of lower-case()').toLowerCase()],
    'contains': (a: Seq, b: Seq): Seq => [str1(a, 'contains()').includes(str1(b, 'contains()'))],
    'starts-with': (a: Seq, b: Seq): Seq => [str1(a, 'starts-with()').startsWith(str1(b, 'starts-with()'))],
    'ends-with': (a: Seq, b: Seq): Seq => [str1(a, 'ends-with()').endsWith(str1(b, 'ends-with()'))],
    'substring-before': (a: Seq, b: Seq): Seq => { const s = str1(a, 'substring-before()'); const t = str1(b, 'substring-before()'); const i = s.indexOf(t); return [i < 0 ? '' : s.slice(0, i)]; },
    'substring-after': (a: Seq, b: Seq): Seq => { const s = str1(a, 'substring-after()'); const t = str1(b, 'substring-after()'); const i = s.indexOf(t); return [i < 0 ? '' : s.slice(i + t.length)]; },
    'concat': (...args: Seq[]): Seq => [args.map((x) => str1(x, 'an argument of concat()')).join('')],
    'string-join': (a: Seq, sep: Seq): Seq => [atomize(a).map(atomToString).join(str1(sep, 'string-join()'))],
    'translate': (a: Seq, from: Seq, to: Seq): Seq => {
      const s = [...str1(a, 'translate()')]; const f = [...str1(from, 'translate()')]; const t = [...str1(to, 'translate()')];
      return [s.map((ch) => { const i = f.indexOf(ch); return i < 0 ? ch : (t[i] ?? ''); }).join('')];
    },
    'substring': (a: Seq, start: Seq, len?: Seq): Seq => {
      const s = [...str1(a, 'substring()')];
      const st = Math.round(toDouble(single(start, 'substring()') ?? NaN));
      const end = len ? st + Math.round(toDouble(single(len, 'substring()') ?? NaN)) : Infinity;
      return [s.filter((_c, i) => i + 1 >= st && i + 1 < end).join('')];
    },
    'local-name': (a: Seq): Seq => {
      if (a.length > 1) fail('local-name() of several nodes');
      const n = a[0];
      if (n === undefined) return [''];
      if (!isNode(n)) return fail('local-name() of an atomic value');
      return [n.kind === 'doc' ? '' : n.name];
    },
    'name': (a: Seq): Seq => {
      if (a.length > 1) fail('name() of several nodes');
      const n = a[0];
      if (n === undefined) return [''];
      if (!isNode(n)) return fail('name() of an atomic value');
      if (n.kind === 'doc') return [''];
      return [n.kind === 'el' && n.raw.prefix ? `${n.raw.prefix}:${n.name}` : n.name];
    },
    'number': (a: Seq): Seq => {
      const x = single(a, 'number()');
      if (x === undefined) return [NaN];
      try { return [toDouble(x)]; } catch (e) { if (e instanceof XPathDynamicError && (x instanceof U || typeof x === 'string')) return [NaN]; throw e; }
    },
    'distinct-values': (a: Seq): Seq => {
      const out: Item[] = []; const seen = new Set<string>();
      for (const x of atomize(a)) {
        const v = x instanceof U ? x.s : x;
        const key = isNumeric(v) ? `n:${toDouble(v)}` : v instanceof XDate ? `d:${v.key}` : `${typeof v}:${String(v)}`;
        if (!seen.has(key)) { seen.add(key); out.push(v); }
      }
      return out;
    },
    'sum': (a: Seq, zero?: Seq): Seq => {
      const xs = atomize(a);
      if (xs.length === 0) return zero ?? [0n];
      let acc: Numeric | undefined;
      for (const x of xs) {
        const n = x instanceof U ? toDouble(x) : isNumeric(x) ? x : fail('FORG0006: sum() of non-numbers');
        acc = acc === undefined ? n : arith('+', acc, n);
      }
      return [acc!];
    },
    'abs': (a: Seq): Seq => numericFn(a, Math.abs, (x) => x.abs(), (x) => (x < 0n ? -x : x)),
    'floor': (a: Seq): Seq => numericFn(a, Math.floor, (x) => x.floor(), (x) => x),
    'ceiling': (a: Seq): Seq => numericFn(a, Math.ceil, (x) => x.ceil(), (x) => x),
    // half toward positive infinity, as XPath's round()
    'round': (a: Seq): Seq => numericFn(a, (x) => (Number.isFinite(x) ? Math.floor(x + 0.5) : x), (x) => x.toDecimalPlaces(0, XDecimal.ROUND_HALF_CEIL), (x) => x),
    'matches': (s: Seq, pattern: Seq, flags?: Seq): Seq => {
      const [p, f] = regexArgs(pattern, flags, 'matches()');
      return [xpathRegex(p, f).test(str1(s, 'matches()'))];
    },
    'replace': (s: Seq, pattern: Seq, rep: Seq, flags?: Seq): Seq => {
      const [p, f] = regexArgs(pattern, flags, 'replace()');
      const re = xpathRegex(p, f, true);
      if (re.test('')) fail('FORX0003: the pattern matches the empty string');
      re.lastIndex = 0;
      return [str1(s, 'replace()').replace(re, replacement(str1(rep, 'replace()')))];
    },
    'tokenize': (s: Seq, pattern?: Seq, flags?: Seq): Seq => {
      const input = str1(s, 'tokenize()');
      if (!pattern) { const t = normalize(input); return t ? t.split(' ') : []; }
      if (input === '') return [];
      const [p, f] = regexArgs(pattern, flags, 'tokenize()');
      const re = xpathRegex(p, f, true);
      if (re.test('')) fail('FORX0003: the pattern matches the empty string');
      const out: string[] = [];
      let last = 0;
      re.lastIndex = 0;
      for (let m = re.exec(input); m; m = re.exec(input)) { out.push(input.slice(last, m.index)); last = m.index + m[0].length; }
      out.push(input.slice(last));
      return out;
    },
    'string-to-codepoints': (a: Seq): Seq => [...str1(a, 'string-to-codepoints()')].map((ch) => BigInt(ch.codePointAt(0)!)),
    'codepoints-to-string': (a: Seq): Seq => [String.fromCodePoint(...atomize(a).map((x) => Number(toInteger(x))))],
    'reverse': (a: Seq): Seq => [...a].reverse(),
    // duplicates: the first one wins (map:merge's default)
    'map:merge': (maps: Seq): Seq => {
      const out = new XMap();
      for (const m of maps) {
        if (!(m instanceof XMap)) return fail('XPTY0004: map:merge of a non-map');
        for (const [k, v] of m.entries) if (!out.entries.has(k)) out.entries.set(k, v);
      }
      return [out];
    },
    'map:contains': (m: Seq, key: Seq): Seq => {
      const map = m[0];
      if (m.length !== 1 || !(map instanceof XMap)) return fail('XPTY0004: map:contains on a non-map');
      const k = single(key, 'a map key');
      return [k !== undefined && !(k instanceof XMap) && map.entries.has(mapKey(k))];
    },
    'format-number': (a: Seq, picture: Seq): Seq => {
      // the one picture family the packs use: fixed fraction digits, no grouping (0.00, 0)
      const pic = str1(picture, 'format-number()');
      const m = /^#*0+(\.(0+))?$/.exec(pic);
      if (!m) return fail(`format-number picture ${pic} is not supported`);
      const x = numericOperand(a);
      if (x === undefined) return ['NaN'];
      if (typeof x === 'number' && !Number.isFinite(x)) return [Number.isNaN(x) ? 'NaN' : x > 0 ? '∞' : '-∞'];
      const minInt = pic.split('.')[0]!.replace(/#/g, '').length;
      const value = toDecimal(x);
      const fixed = value.abs().toFixed(m[2]?.length ?? 0, XDecimal.ROUND_HALF_EVEN);
      let [ip, fp] = fixed.split('.') as [string, string | undefined];
      ip = ip.replace(/^0+/, '').padStart(minInt, '0');
      const body = fp === undefined ? ip : `${ip}.${fp}`;
      return [value.isNegative() && !value.isZero() ? `-${body}` : body];
    },
  } as Record<string, (...args: Seq[]) => Seq>,
  /** Constructor functions xs:T(x): a cast of an optional single item. */
  construct(type: string, a: Seq): Seq { return castSeq(a, type, true); },
};
export type Runtime = typeof rt;
