/**
 * One pack on the compiled engine, merged with saxon-js for the checks it leaves there, as the
 * findings the saxon path alone would give (same rules, flags, locations, order).
 */
import { parseForSaxon, runPackRaw, toFinding, engineErrorFinding, runPack } from '../run-pack.ts';
import type { LoadedPack } from '../registry.ts';
import type { ValidationFinding } from '../types.ts';
import { runCompiled, sortFindings, XPathDynamicError, type CompiledPackModule, type KeyedFinding } from './run.ts';
import { attributesOf, locationOf, type IndexedDoc } from './tree.ts';

/** Per document: the saxon tree (parsed only if some pack needs saxon-js) and node locations. */
export class DocumentContext {
  private saxon: unknown;
  private walkByLocation = new Map<string, Map<string, number>>();
  readonly text: string;
  readonly indexed: IndexedDoc;
  constructor(text: string, indexed: IndexedDoc) { this.text = text; this.indexed = indexed; }
  saxonDoc(): unknown {
    this.saxon ??= parseForSaxon(this.text);
    return this.saxon;
  }
  /** location → walk position, for placing saxon-js findings among compiled ones */
  walkOf(location: string, prefixes: Record<string, string>): number {
    const pk = JSON.stringify(prefixes);
    let m = this.walkByLocation.get(pk);
    if (!m) {
      m = new Map();
      const n = this.indexed.elements.length;
      for (const e of this.indexed.elements) {
        m.set(locationOf(e, prefixes), e.order);
        if (Object.keys(e.raw.attrs).length) for (const a of attributesOf(e)) m.set(locationOf(a, prefixes), n + a.order);
      }
      this.walkByLocation.set(pk, m);
    }
    return m.get(location) ?? (location === '/' ? -1 : Number.MAX_SAFE_INTEGER);
  }
}

/** Process-wide counters: how often the compiled path needed saxon-js, and why (bench, tests). */
export const compiledStats = { runs: 0, dynamicErrors: 0, saxonAssists: 0, compiledFindings: 0, saxonFindings: 0 };

export function runCompiledPack(pack: LoadedPack, mod: CompiledPackModule, ctx: DocumentContext): ValidationFinding[] {
  const source = `${pack.pack}@${pack.version}`;
  let res;
  compiledStats.runs++;
  try {
    res = runCompiled(mod, ctx.indexed);
  } catch (e) {
    if (e instanceof XPathDynamicError) { compiledStats.dynamicErrors++; return runPack(pack, ctx.saxonDoc()); }
    throw e;
  }
  const all: KeyedFinding[] = res.findings;
  compiledStats.compiledFindings += all.length;
  if (res.needSaxon.size > 0) {
    compiledStats.saxonAssists++;
    let raw;
    try {
      raw = runPackRaw(pack, ctx.saxonDoc(), true);
    } catch (e) {
      return [engineErrorFinding(source, e)];
    }
    for (const r of raw) {
      if (!res.needSaxon.has(r.check)) continue;
      compiledStats.saxonFindings++;
      all.push({ ...r, walk: ctx.walkOf(r.location, mod.prefixes), pattern: mod.checkPattern[r.check] ?? 0 });
    }
  }
  return sortFindings(all).map((r) => toFinding(r, source));
}
