/**
 * A small XPath 2.0 parser and JavaScript code generator for the subset our Schematron packs use.
 *
 * compileExpr() turns one XPath expression into the source of a JavaScript expression over the
 * runtime in services/validation/engine/compiled/runtime.ts (`rt`), the context node `c`, the context
 * position `p` / size `z`, and the in-scope variables `v`. Anything outside the subset throws
 * UnsupportedXPath: the caller then leaves that check to saxon-js.
 *
 * Values at run time are sequences (JS arrays) of nodes, strings, numbers and booleans; nodes
 * atomize to untyped strings, which the runtime casts as XPath 2.0 does for comparisons.
 */
export class UnsupportedXPath extends Error {
  override name = 'UnsupportedXPath';
}

type Tok = { t: 'name' | 'str' | 'num' | 'op' | 'var'; v: string };

const OPS = ['//', '::', ':=', ':', '!=', '<=', '>=', '..', '/', '[', ']', '(', ')', '{', '}', '@', ',', '=', '<', '>', '|', '+', '-', '*', '.', '!', '?'];

function tokenize(src: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  const n = src.length;
  const endsOperand = (): boolean => {
    const l = out[out.length - 1];
    if (!l) return false;
    if (l.t === 'str' || l.t === 'num' || l.t === 'var') return true;
    if (l.t === 'name') return true;
    return l.v === ')' || l.v === ']' || l.v === '.' || l.v === '..' || l.v === '*name';
  };
  while (i < n) {
    const ch = src[i]!;
    if (/\s/.test(ch)) { i++; continue; }
    if (ch === '(' && src[i + 1] === ':') throw new UnsupportedXPath('comment');
    if (ch === '"' || ch === "'") {
      let j = i + 1; let s = '';
      for (;;) {
        if (j >= n) throw new UnsupportedXPath('unterminated string');
        if (src[j] === ch) { if (src[j + 1] === ch) { s += ch; j += 2; continue; } break; }
        s += src[j]; j++;
      }
      out.push({ t: 'str', v: s }); i = j + 1; continue;
    }
    if (/[0-9]/.test(ch) || (ch === '.' && /[0-9]/.test(src[i + 1] ?? ''))) {
      const m = /^([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?/.exec(src.slice(i))!;
      out.push({ t: 'num', v: m[0] }); i += m[0].length; continue;
    }
    if (ch === '$') {
      const m = /^\$([A-Za-z_][\w.-]*(:[A-Za-z_][\w.-]*)?)/.exec(src.slice(i));
      if (!m) throw new UnsupportedXPath('bad variable');
      out.push({ t: 'var', v: m[1]! }); i += m[0].length; continue;
    }
    if (/[A-Za-z_]/.test(ch)) {
      const m = /^[A-Za-z_][\w.-]*(:([A-Za-z_][\w.-]*|\*))?/.exec(src.slice(i))!;
      let name = m[0];
      // a trailing '-' or '.' belongs to the name only when followed by a name char (a-b is a name)
      out.push({ t: 'name', v: name }); i += name.length;
      if (endsOperand() && out.length >= 2 && isOperatorName(name) && operandBefore(out.slice(0, -1))) out[out.length - 1] = { t: 'op', v: name };
      continue;
    }
    if (ch === '*' && src[i + 1] === ':') throw new UnsupportedXPath('*:name');
    const op = OPS.find((o) => src.startsWith(o, i));
    if (!op) throw new UnsupportedXPath(`unexpected ${ch}`);
    if (op === '*' && !endsOperand()) { out.push({ t: 'op', v: '*name' }); i++; continue; }
    out.push({ t: 'op', v: op }); i += op.length;
  }
  return out;
}

const OP_NAMES = new Set(['and', 'or', 'div', 'mod', 'idiv', 'eq', 'ne', 'lt', 'le', 'gt', 'ge', 'then', 'else', 'return', 'satisfies', 'in', 'to', 'instance', 'cast', 'castable', 'treat', 'intersect', 'except', 'union', 'as', 'of']);
function isOperatorName(n: string): boolean { return OP_NAMES.has(n); }
function operandBefore(toks: Tok[]): boolean {
  const l = toks[toks.length - 1];
  if (!l) return false;
  if (l.t === 'str' || l.t === 'num' || l.t === 'var' || l.t === 'name') return true;
  return l.v === ')' || l.v === ']' || l.v === '.' || l.v === '..' || l.v === '*name';
}

export interface CompileEnv {
  /** prefix → namespace URI (sch:ns) */
  ns: Map<string, string>;
  /** variables in scope (lets compiled so far) */
  vars: Set<string>;
  /** those of them that are the rule's own lets (the others are the document's, read through v["#g"]) */
  ruleVars?: Set<string>;
  /** names bound as JavaScript locals around the expression (a compiled xsl:function's params and variables) */
  locals?: string[];
  /** compiled xsl:functions by `qname#arity` → the JavaScript function's name */
  functions?: Map<string, string>;
  /** compiled xsl:keys by name → the JavaScript constant holding the key */
  keys?: Map<string, string>;
  /** literal values hoisted out of the rule functions: source → constant name (built once per module) */
  consts?: Map<string, string>;
}

/** The atomic types `cast as`, `castable as`, `instance of` and constructor functions may name (runtime CASTS). */
export const ATOMIC_TYPES = new Set(['xs:string', 'xs:untypedAtomic', 'xs:double', 'xs:decimal', 'xs:integer', 'xs:date', 'xs:boolean']);

const FN_ARITY: Record<string, [number, number]> = {
  'not': [1, 1], 'exists': [1, 1], 'empty': [1, 1], 'count': [1, 1], 'string': [0, 1], 'normalize-space': [0, 1],
  'string-length': [0, 1], 'contains': [2, 2], 'starts-with': [2, 2], 'ends-with': [2, 2], 'upper-case': [1, 1],
  'lower-case': [1, 1], 'true': [0, 0], 'false': [0, 0], 'boolean': [1, 1], 'concat': [2, 99], 'substring': [2, 3],
  'substring-before': [2, 2], 'substring-after': [2, 2], 'translate': [3, 3], 'local-name': [0, 1],
  'distinct-values': [1, 1], 'position': [0, 0], 'last': [0, 0], 'string-join': [2, 2], 'number': [0, 1],
  'sum': [1, 2], 'abs': [1, 1], 'floor': [1, 1], 'ceiling': [1, 1], 'round': [1, 1], 'matches': [2, 3], 'replace': [3, 4],
  'tokenize': [1, 3], 'string-to-codepoints': [1, 1], 'codepoints-to-string': [1, 1], 'reverse': [1, 1],
  'format-number': [2, 2], 'name': [0, 1], 'map:merge': [1, 1], 'map:contains': [2, 2],
};

/** Compile an XPath 2.0 expression to a JS expression source. */
export function compileExpr(src: string, env: CompileEnv): string {
  const toks = tokenize(src);
  let k = 0;
  const peek = (o = 0): Tok | undefined => toks[k + o];
  const isOp = (v: string, o = 0): boolean => { const t = peek(o); return !!t && t.t === 'op' && t.v === v; };
  const isName = (v: string, o = 0): boolean => { const t = peek(o); return !!t && t.t === 'name' && t.v === v; };
  const expectOp = (v: string): void => { if (!isOp(v)) throw new UnsupportedXPath(`expected ${v} at ${k} in ${src}`); k++; };
  const locals: string[] = [...(env.locals ?? [])];
  /** A literal sequence, hoisted when the caller collects constants (the runtime never mutates its inputs). */
  const literal = (code: string): string => {
    if (!env.consts) return code;
    let name = env.consts.get(code);
    if (!name) env.consts.set(code, name = `L${env.consts.size}`);
    return name;
  };
  const isKw = (v: string): boolean => isName(v) || isOp(v);

  const expr = (): string => {
    const parts = [exprSingle()];
    while (isOp(',')) { k++; parts.push(exprSingle()); }
    return parts.length === 1 ? parts[0]! : `rt.seq(${parts.join(', ')})`;
  };
  const exprSingle = (): string => {
    if ((isName('some') || isName('every')) && peek(1)?.t === 'var') {
      const q = peek()!.v; k++;
      const name = peek()!.v; k++;
      if (!isName('in') && !(peek()?.t === 'op' && peek()!.v === 'in')) throw new UnsupportedXPath('some/every with several bindings');
      k++;
      const over = exprSingle();
      if (!(isName('satisfies') || isOp('satisfies'))) throw new UnsupportedXPath('expected satisfies');
      k++;
      locals.push(name);
      const body = exprSingle();
      locals.pop();
      return `[rt.${q}(${over}, (${jsVar(name)}) => rt.ebv(${body}))]`;
    }
    if (isName('for') && peek(1)?.t === 'var') {
      k++;
      const name = peek()!.v; k++;
      if (!(isName('in') || isOp('in'))) throw new UnsupportedXPath('for');
      k++;
      const over = exprSingle();
      if (!(isName('return') || isOp('return'))) throw new UnsupportedXPath('expected return');
      k++;
      locals.push(name);
      const body = exprSingle();
      locals.pop();
      return `rt.forEach(${over}, (${jsVar(name)}) => ${body})`;
    }
    if (isName('let') && peek(1)?.t === 'var') {
      const bound: string[] = [];
      const values: string[] = [];
      do {
        k++;
        const t = peek();
        if (t?.t !== 'var') throw new UnsupportedXPath('let');
        k++;
        expectOp(':=');
        values.push(exprSingle());
        locals.push(t.v);
        bound.push(t.v);
      } while (isOp(','));
      if (!isKw('return')) throw new UnsupportedXPath('expected return');
      k++;
      const body = exprSingle();
      for (let i = 0; i < bound.length; i++) locals.pop();
      // each binding sees the ones before it: nested arrow functions called at once
      return bound.reduceRight((inner, name, i) => `((${jsVar(name)}) => ${inner})(${values[i]})`, body);
    }
    if (isName('if') && isOp('(', 1)) {
      k += 2;
      const cond = expr();
      expectOp(')');
      if (!(isName('then') || isOp('then'))) throw new UnsupportedXPath('expected then');
      k++;
      const a = exprSingle();
      if (!(isName('else') || isOp('else'))) throw new UnsupportedXPath('expected else');
      k++;
      const b = exprSingle();
      return `(rt.ebv(${cond}) ? ${a} : ${b})`;
    }
    return orExpr();
  };
  const binLoop = (next: () => string, ops: string[], mk: (op: string, a: string, b: string) => string): string => {
    let a = next();
    for (;;) {
      const t = peek();
      if (!t || t.t !== 'op' || !ops.includes(t.v)) return a;
      k++;
      a = mk(t.v, a, next());
    }
  };
  const orExpr = (): string => binLoop(andExpr, ['or'], (_o, a, b) => `[rt.ebv(${a}) || rt.ebv(${b})]`);
  const andExpr = (): string => binLoop(cmpExpr, ['and'], (_o, a, b) => `[rt.ebv(${a}) && rt.ebv(${b})]`);
  const cmpExpr = (): string => {
    const a = rangeExpr();
    const t = peek();
    if (t && t.t === 'op' && ['=', '!=', '<', '<=', '>', '>='].includes(t.v)) { k++; return `[rt.gcmp(${JSON.stringify(t.v)}, ${a}, ${rangeExpr()})]`; }
    if (t && t.t === 'op' && ['eq', 'ne', 'lt', 'le', 'gt', 'ge'].includes(t.v)) { k++; return `rt.vcmp(${JSON.stringify(t.v)}, ${a}, ${rangeExpr()})`; }
    return a;
  };
  const rangeExpr = (): string => {
    const a = addExpr();
    if (isOp('to')) { k++; return `rt.range(${a}, ${addExpr()})`; }
    return a;
  };
  const addExpr = (): string => binLoop(mulExpr, ['+', '-'], (o, a, b) => `rt.arith(${JSON.stringify(o)}, ${a}, ${b})`);
  const mulExpr = (): string => binLoop(unionExpr, ['*', 'div', 'mod', 'idiv'], (o, a, b) => `rt.arith(${JSON.stringify(o)}, ${a}, ${b})`);
  const unionExpr = (): string => {
    let a = typeExpr();
    while (isOp('|') || isOp('union')) { k++; a = `rt.union(${a}, ${typeExpr()})`; }
    if (isOp('intersect') || isOp('except')) throw new UnsupportedXPath('intersect/except');
    return a;
  };
  /** `xs:T` or `xs:T?` after `cast as`, `castable as` or `instance of`. */
  const atomicType = (): [string, string] => {
    const t = peek();
    if (t?.t !== 'name' || !ATOMIC_TYPES.has(t.v)) throw new UnsupportedXPath(`type ${t?.v}`);
    k++;
    let occ = '';
    if (isOp('?') || isOp('*') || isOp('*name') || isOp('+')) { occ = peek()!.v === '*name' ? '*' : peek()!.v; k++; }
    return [t.v, occ];
  };
  const typeExpr = (): string => {
    let a = castExpr();
    if (isOp('castable')) {
      k++;
      if (!isKw('as')) throw new UnsupportedXPath('castable');
      k++;
      const [type, occ] = atomicType();
      if (occ !== '' && occ !== '?') throw new UnsupportedXPath('castable occurrence');
      a = `[rt.castable(${a}, ${JSON.stringify(type)}, ${occ === '?'})]`;
    }
    if (isOp('treat')) throw new UnsupportedXPath('treat');
    if (isOp('instance')) {
      k++;
      if (!isKw('of')) throw new UnsupportedXPath('instance');
      k++;
      const [type, occ] = atomicType();
      a = `[rt.instanceOf(${a}, ${JSON.stringify(type)}, ${JSON.stringify(occ)})]`;
    }
    return a;
  };
  const castExpr = (): string => {
    const a = unaryExpr();
    if (!isOp('cast')) return a;
    k++;
    if (!isKw('as')) throw new UnsupportedXPath('cast');
    k++;
    const [type, occ] = atomicType();
    if (occ !== '' && occ !== '?') throw new UnsupportedXPath('cast occurrence');
    return `rt.cast(${a}, ${JSON.stringify(type)}, ${occ === '?'})`;
  };
  const unaryExpr = (): string => {
    if (isOp('-')) { k++; return `rt.neg(${unaryExpr()})`; }
    if (isOp('+')) { k++; return unaryExpr(); }
    return simpleMapExpr();
  };
  const simpleMapExpr = (): string => {
    let a = pathExpr();
    while (isOp('!')) { k++; a = `rt.smap(${a}, (c, p, z) => ${pathExpr()})`; }
    return a;
  };
  const pathExpr = (): string => {
    if (isOp('/')) {
      k++;
      const t = peek();
      const startsStep = t && (t.t === 'name' || (t.t === 'op' && ['@', '*name', '.', '..'].includes(t.v)));
      if (!startsStep) return 'rt.root(c)';
      return relPath('rt.root(c)');
    }
    if (isOp('//')) { k++; return relPath('rt.descOrSelf(rt.root(c))'); }
    return relPath(null);
  };
  const relPath = (from: string | null): string => {
    let cur = stepExpr(from);
    for (;;) {
      if (isOp('/')) { k++; cur = stepExpr(cur); continue; }
      if (isOp('//')) { k++; cur = stepExpr(`rt.descOrSelf(${cur})`); continue; }
      return cur;
    }
  };
  /** One step applied to the sequence `from` (or to the context when from is null). */
  const stepExpr = (from: string | null): string => {
    const t = peek();
    if (!t) throw new UnsupportedXPath('unexpected end');
    let axis = 'child';
    let test: string | null = null;
    let primary: string | null = null;
    if (t.t === 'op' && t.v === '..') { k++; axis = 'parent'; test = 'null'; }
    else if (t.t === 'op' && t.v === '.') { k++; primary = '[c]'; }
    else if (t.t === 'op' && t.v === '@') { k++; axis = 'attribute'; test = nameTest(); }
    else if (t.t === 'name' && isOp('::', 1)) {
      axis = t.v; k += 2;
      if (!['child', 'attribute', 'parent', 'self', 'descendant', 'descendant-or-self', 'ancestor', 'ancestor-or-self', 'preceding-sibling', 'following-sibling'].includes(axis)) throw new UnsupportedXPath(`axis ${axis}`);
      test = nameTest();
    } else if (t.t === 'name' && isOp('(', 1) && !['node', 'text', 'element', 'attribute'].includes(t.v)) {
      primary = functionCall();
    } else if (t.t === 'name' && isOp('(', 1)) {
      test = nameTest();
    } else if (t.t === 'name' && t.v === 'map' && isOp('{', 1)) {
      primary = mapConstructor();
    } else if (t.t === 'name' || (t.t === 'op' && t.v === '*name')) {
      test = nameTest();
    } else {
      primary = primaryExpr();
    }
    let body: string;
    if (primary !== null) body = primary;
    else body = axis === 'child' ? `rt.child(c, ${test})` : `rt.axis(c, ${JSON.stringify(axis)}, ${test})`;
    while (isOp('[')) {
      k++;
      const pred = expr();
      expectOp(']');
      body = `rt.filter(${body}, (c, p, z) => ${pred})`;
    }
    if (from === null) return body;
    // an axis step from one node is already in document order without duplicates
    return `rt.${primary === null ? 'pathAxis' : 'path'}(${from}, (c, p, z) => ${body})`;
  };
  const nameTest = (): string => {
    const t = peek()!;
    if (t.t === 'op' && t.v === '*name') { k++; return 'null'; }
    if (t.t !== 'name') throw new UnsupportedXPath('expected a name test');
    k++;
    if (['node', 'text', 'element', 'attribute'].includes(t.v) && isOp('(')) {
      k++;
      if (!isOp(')')) throw new UnsupportedXPath('typed kind test');
      k++;
      if (t.v === 'node' || t.v === 'element' || t.v === 'attribute') return 'null';
      throw new UnsupportedXPath('text()');
    }
    const c = t.v.indexOf(':');
    if (c < 0) return literal(JSON.stringify(['', t.v]));
    const pfx = t.v.slice(0, c); const local = t.v.slice(c + 1);
    const uri = env.ns.get(pfx);
    if (uri === undefined) throw new UnsupportedXPath(`prefix ${pfx}`);
    if (local === '*') throw new UnsupportedXPath('prefix:*');
    return literal(JSON.stringify([uri, local]));
  };
  /** `map{k: v, …}` with atomic keys (a lookup table in the packs). */
  const mapConstructor = (): string => {
    k += 2;
    const entries: string[] = [];
    while (!isOp('}')) {
      const key = exprSingle();
      expectOp(':');
      entries.push(`[${key}, ${exprSingle()}]`);
      if (isOp(',')) k++; else if (!isOp('}')) throw new UnsupportedXPath('map constructor');
    }
    k++;
    return `[rt.map([${entries.join(', ')}])]`;
  };
  const primaryExpr = (): string => {
    const t = peek()!;
    if (t.t === 'str') { k++; return literal(`[${JSON.stringify(t.v)}]`); }
    if (t.t === 'num') {
      k++;
      // xs:double with an exponent, xs:decimal with a point, xs:integer otherwise
      if (/[eE]/.test(t.v)) return literal(`[${Number(t.v)}]`);
      if (t.v.includes('.')) return literal(`[rt.dec(${JSON.stringify(t.v)})]`);
      return literal(`[${BigInt(t.v)}n]`);
    }
    if (t.t === 'var') {
      k++;
      if (locals.includes(t.v)) return jsVar(t.v);
      if (!env.vars.has(t.v)) throw new UnsupportedXPath(`variable $${t.v}`);
      return env.ruleVars?.has(t.v) ? `v[${JSON.stringify(t.v)}]` : `v["#g"][${JSON.stringify(t.v)}]`;
    }
    if (t.t === 'op' && t.v === '(') {
      k++;
      if (isOp(')')) { k++; return '[]'; }
      const e = expr();
      expectOp(')');
      return e;
    }
    throw new UnsupportedXPath(`unexpected ${t.v}`);
  };
  /** `function($a, $b) { body }` as a JavaScript arrow function (only where a higher-order function takes it). */
  const inlineFunction = (): string => {
    k++; expectOp('(');
    const params: string[] = [];
    while (peek()?.t === 'var') {
      params.push(peek()!.v); k++;
      if (isKw('as')) throw new UnsupportedXPath('typed inline function parameter');
      if (isOp(',')) k++;
    }
    expectOp(')');
    if (isKw('as')) throw new UnsupportedXPath('typed inline function');
    expectOp('{');
    locals.push(...params);
    const body = expr();
    for (const _ of params) locals.pop();
    expectOp('}');
    return `(${params.map(jsVar).join(', ')}) => ${body}`;
  };
  const functionCall = (): string => {
    const name = peek()!.v; k += 2;
    const fname = name.startsWith('fn:') ? name.slice(3) : name;
    if (fname === 'key') {
      // key('literal name', values): the named key's index over the context node's document
      const keyName = peek();
      const def = keyName?.t === 'str' && isOp(',', 1) ? env.keys?.get(keyName.v) : undefined;
      if (!def) throw new UnsupportedXPath('key() of an unknown or computed key name');
      k += 2;
      const values = exprSingle();
      expectOp(')');
      return `rt.key(${def}, v, ${values}, c)`;
    }
    const args: string[] = [];
    let inline = false;
    const arg = (): string => {
      if (!(fname === 'fold-left' && args.length === 2 && isName('function') && isOp('(', 1))) return exprSingle();
      inline = true;
      return inlineFunction();
    };
    if (!isOp(')')) {
      args.push(arg());
      while (isOp(',')) { k++; args.push(arg()); }
    }
    expectOp(')');
    if (inline && args.length === 3) return `rt.foldLeft(${args.join(', ')})`;
    if (inline) throw new UnsupportedXPath('inline function');
    const user = env.functions?.get(`${name}#${args.length}`);
    if (user) return `${user}(v${args.map((a) => `, ${a}`).join('')})`;
    if (ATOMIC_TYPES.has(name) && args.length === 1) return `rt.construct(${JSON.stringify(name)}, ${args[0]})`;
    const ar = FN_ARITY[fname];
    if (!ar || args.length < ar[0] || args.length > ar[1]) throw new UnsupportedXPath(`function ${name}#${args.length}`);
    if (fname === 'position') return '[BigInt(p)]';
    if (fname === 'last') return '[BigInt(z)]';
    if (['string', 'normalize-space', 'string-length', 'local-name', 'number', 'name'].includes(fname) && args.length === 0) args.push('[c]');
    return `rt.fn[${JSON.stringify(fname)}](${args.join(', ')})`;
  };
  const out = expr();
  if (k !== toks.length) throw new UnsupportedXPath(`trailing tokens in ${src}`);
  return out;
}

/** The JavaScript name of an XPath variable bound as a local ($a-b → $_a_b). */
export function jsVar(name: string): string {
  return `$_${name.replace(/[^\w]/g, '_')}`;
}

/**
 * A rule context (an XSLT match pattern): a union of paths. Compiled to the element local names it
 * can match (for the index; null = any element) and a JS predicate over a candidate node. Patterns
 * are matched right to left: the last step on the node, each earlier step on its parent (or on any
 * ancestor after //), a leading / anchoring at the document.
 */
export interface CompiledContext { names: string[] | null; match: string; attribute: boolean }

export function compileContext(src: string, env: CompileEnv): CompiledContext {
  const alts = splitTopLevel(src, '|');
  const names: string[] = [];
  let any = false;
  let attribute = false;
  const tests: string[] = [];
  for (const alt of alts) {
    const steps = splitSteps(alt.trim());
    const last = steps[steps.length - 1]!;
    if (last.text.startsWith('@')) attribute = true;
    const lname = stepName(last.text, env);
    if (lname === null) any = true; else names.push(lname[1]);
    // f_i(n, v): step i matches n and steps 0..i-1 match up the tree (parent after /, any ancestor
    // after //); each f_i is one function, hoisted with the module's constants when it collects them
    let code = '';
    steps.forEach((s, i) => {
      const stepCheck = stepMatch(s.text, env);
      if (i === 0) code = s.sep === '/' ? hoist(`(n, v) => ${stepCheck}(n, v) && rt.isDocChild(n)`) : stepCheck;
      else code = hoist(s.sep === '/' ? `(n, v) => ${stepCheck}(n, v) && ${code}(n.parent, v)` : `(n, v) => ${stepCheck}(n, v) && rt.someAncestor(n, ${code}, v)`);
    });
    tests.push(`${code}(n, v)`);
  }
  if (attribute && alts.length > 1) throw new UnsupportedXPath('attribute contexts in a union');
  return { names: any ? null : [...new Set(names)], match: `(n, v) => ${tests.join(' || ')}`, attribute };

  function hoist(fn: string): string {
    if (!env.consts) return `(${fn})`;
    let name = env.consts.get(fn);
    if (!name) env.consts.set(fn, name = `L${env.consts.size}`);
    return name;
  }

  function stepMatch(text: string, env2: CompileEnv): string {
    const m = /^(@)?([A-Za-z_][\w.-]*(?::[A-Za-z_][\w.-]*)?|\*)((\[.*\])*)$/s.exec(text);
    if (!m) throw new UnsupportedXPath(`context step ${text}`);
    const nm = stepName(text, env2);
    const kind = m[1] ? 'rt.isAttr' : 'rt.isEl';
    const preds = m[3] ? splitPreds(m[3]) : [];
    const predCode = preds.map((p) => {
      if (/^\s*\d+\s*$/.test(p)) throw new UnsupportedXPath('positional pattern predicate');
      return `rt.ebvPred(${compileExpr(p, env2)})`;
    });
    const nameCheck = nm === null ? 'true' : `c.ns === ${JSON.stringify(nm[0])} && c.name === ${JSON.stringify(nm[1])}`;
    return hoist(`(c, v, p = 0, z = 0) => c !== null && ${kind}(c) && ${nameCheck}${predCode.map((x) => ` && ${x}`).join('')}`);
  }
}

function stepName(text: string, env: CompileEnv): [string, string] | null {
  const m = /^@?([A-Za-z_][\w.-]*(?::[A-Za-z_][\w.-]*)?|\*)/.exec(text);
  if (!m) throw new UnsupportedXPath(`context step ${text}`);
  if (m[1] === '*') return null;
  const c = m[1]!.indexOf(':');
  if (c < 0) return ['', m[1]!];
  const uri = env.ns.get(m[1]!.slice(0, c));
  if (uri === undefined) throw new UnsupportedXPath('prefix');
  return [uri, m[1]!.slice(c + 1)];
}

/** Split at a separator outside brackets, parentheses and strings. */
function splitTopLevel(s: string, sep: string): string[] {
  const out: string[] = [];
  let depth = 0; let q: string | null = null; let start = 0;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (q) { if (ch === q) q = null; continue; }
    if (ch === '"' || ch === "'") q = ch;
    else if (ch === '[' || ch === '(') depth++;
    else if (ch === ']' || ch === ')') depth--;
    else if (depth === 0 && s.startsWith(sep, i)) { out.push(s.slice(start, i)); start = i + sep.length; }
  }
  out.push(s.slice(start));
  return out;
}

function splitSteps(path: string): { sep: '' | '/' | '//'; text: string }[] {
  const steps: { sep: '' | '/' | '//'; text: string }[] = [];
  let depth = 0; let q: string | null = null; let cur = ''; let sep: '' | '/' | '//' = '';
  for (let i = 0; i < path.length; i++) {
    const ch = path[i]!;
    if (q) { cur += ch; if (ch === q) q = null; continue; }
    if (ch === '"' || ch === "'") { q = ch; cur += ch; continue; }
    if (ch === '[' || ch === '(') depth++;
    if (ch === ']' || ch === ')') depth--;
    if (depth === 0 && ch === '/') {
      if (cur.trim() !== '') { steps.push({ sep, text: cur.trim() }); cur = ''; sep = '/'; }
      if (path[i + 1] === '/') { sep = '//'; i++; } else if (steps.length === 0 && cur === '') sep = '/';
      continue;
    }
    cur += ch;
  }
  if (cur.trim() === '') throw new UnsupportedXPath('empty context step');
  steps.push({ sep, text: cur.trim() });
  if (steps.some((s) => s.text.includes('(') && !s.text.includes('['))) throw new UnsupportedXPath('function in pattern');
  return steps;
}

function splitPreds(s: string): string[] {
  const out: string[] = [];
  let depth = 0; let q: string | null = null; let start = -1;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (q) { if (ch === q) q = null; continue; }
    if (ch === '"' || ch === "'") { q = ch; continue; }
    if (ch === '[') { if (depth === 0) start = i + 1; depth++; }
    else if (ch === ']') { depth--; if (depth === 0) out.push(s.slice(start, i)); }
  }
  return out;
}
