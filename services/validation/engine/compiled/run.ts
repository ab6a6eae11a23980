/**
 * Runs one pack's generated module (schematrons/.cache/…/*.rules.mjs) over an indexed document.
 *
 * Semantics kept from the XSLT path: a node is tried against the rules of every pattern in source
 * order and the first matching rule of each pattern fires; findings are listed in walk order
 * (elements in document order, then attributes), then pattern order, then check order.
 * Checks the generator could not compile come from the saxon-js run of the same pack, filtered by
 * check number, and that run happens only when such a check can fire on this document (its rule
 * matched a node, or its rule's context is not compiled). A dynamic error in a compiled rule hands
 * the whole pack to saxon-js, so errors are reported exactly as before.
 */
import { rt, XPathDynamicError } from './runtime.ts';
import { attributesByName, locationOf, type IndexedDoc, type XNode } from './tree.ts';

type Seq = unknown[];
type Fn = (c: XNode, v: Record<string, Seq>) => Seq;
interface CompiledCheck { index: number; id: string; flag: string; report: boolean; bt: string; test: Fn; message: (c: XNode, v: Record<string, Seq>) => string; hint: (c: XNode, v: Record<string, Seq>) => string }
type Scope = Record<string, Seq>;
interface CompiledRule {
  context: string; names: string[] | null; attribute: boolean; match: (n: XNode, v: Scope) => boolean; lets: [string, Fn][];
  /** the variables of one context node (null: the rule has no lets, it reads the document's) */
  scope: ((globals: Scope, c: XNode) => Scope) | null;
  fallback: number[]; checks: CompiledCheck[];
}
export interface CompiledPackModule {
  prefixes: Record<string, string>;
  globals: [string, Fn][];
  /** the document's variables (global lets), each computed on first use */
  globalScope(doc: XNode): Scope;
  patterns: { id: string; rules: CompiledRule[] }[];
  checkPattern: number[];
  fallbackChecks: number[];
  uncompiled: number[];
}

export interface RawFinding { id: string; flag: string; location: string; text: string; hint: string; bt: string; check: number }
/** A finding with where it sorts: walk position of its node, pattern, check number. */
export interface KeyedFinding extends RawFinding { walk: number; pattern: number }

export interface CompiledRunResult {
  findings: KeyedFinding[];
  /** check numbers whose findings must come from saxon-js for this document ([] = saxon not needed) */
  needSaxon: Set<number>;
}

export function runCompiled(mod: CompiledPackModule, d: IndexedDoc): CompiledRunResult {
  // variables are lazy (XSLT evaluates a variable only when used: an unused let never errors)
  const globals = mod.globalScope(d.doc);
  const findings: KeyedFinding[] = [];
  const needSaxon = new Set<number>(mod.uncompiled);
  const nEl = d.elements.length;
  mod.patterns.forEach((p, pi) => {
    const fired = new Set<XNode>();
    for (const r of p.rules) {
      let cands: XNode[];
      if (r.attribute) {
        const byName = attributesByName(d);
        cands = r.names ? r.names.flatMap((n) => byName.get(n) ?? []) : [...byName.values()].flat();
      } else cands = r.names ? (r.names.length === 1 ? (d.byName.get(r.names[0]!) ?? []) : r.names.flatMap((n) => d.byName.get(n) ?? [])) : d.elements;
      for (const n of cands) {
        if (fired.has(n) || !r.match(n, globals)) continue;
        fired.add(n);
        for (const f of r.fallback) needSaxon.add(f);
        if (r.checks.length === 0) continue;
        const v = r.scope ? r.scope(globals, n) : globals;
        for (const ch of r.checks) {
          if (rt.ebv(ch.test(n, v) as never) === ch.report) {
            findings.push({
              id: ch.id, flag: ch.flag, location: locationOf(n, mod.prefixes), text: ch.message(n, v), hint: ch.hint(n, v), bt: ch.bt,
              check: ch.index, walk: n.kind === 'attr' ? nEl + n.order : n.order, pattern: pi,
            });
          }
        }
      }
    }
  });
  return { findings, needSaxon };
}

export function sortFindings(fs: KeyedFinding[]): KeyedFinding[] {
  return fs.sort((a, b) => a.walk - b.walk || a.pattern - b.pattern || a.check - b.check);
}

export { XPathDynamicError };
