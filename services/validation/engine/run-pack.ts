/** Run one compiled pack over a document already parsed for saxon-js. */
import SaxonJS from 'saxon-js';
import type { LoadedPack } from './registry.ts';
import type { ValidationFinding } from './types.ts';

/** What a compiled pack emits per firing (schematrons/compiler: CompiledFinding). */
export interface RawFinding { id: string; flag: string; kind: string; location: string; text: string; hint: string; bt: string; check: number }

/** Parse XML text into a saxon-js document node (once per request, shared by every pack). */
export function parseForSaxon(text: string): unknown {
  return SaxonJS.XPath.evaluate('parse-xml($t)', null, { params: { t: text } });
}

/**
 * A rule that raises an XPath dynamic error (e.g. a cast of garbage in a pack) must not turn a
 * validation into a 500: the pack's run becomes one fatal finding naming the pack and the error.
 */
export const ENGINE_ERROR_RULE = 'RULE-EVALUATION-ERROR';

/** The pack's raw findings on saxon-js (throws on an XPath dynamic error). */
export function runPackRaw(pack: LoadedPack, saxonDoc: unknown, onlyFallbackChecks = false): RawFinding[] {
  const stylesheet = onlyFallbackChecks && pack.fallbackStylesheet ? pack.fallbackStylesheet : pack.stylesheet;
  const res = SaxonJS.transform({ stylesheetInternal: stylesheet, sourceNode: saxonDoc, destination: 'raw' }, 'sync');
  return (res.principalResult ?? []) as RawFinding[];
}

export function toFinding(r: Pick<RawFinding, 'id' | 'flag' | 'location' | 'text' | 'hint' | 'bt'>, source: string): ValidationFinding {
  return {
    rule: r.id,
    severity: r.flag === 'warning' ? 'warning' : 'fatal',
    location: r.location,
    bt: r.bt ? r.bt.split(/\s+/).filter(Boolean) : [],
    message: r.text,
    hint: r.hint,
    source,
  };
}

export function engineErrorFinding(source: string, e: unknown): ValidationFinding {
  const err = e as { message?: string; code?: string };
  return {
    rule: ENGINE_ERROR_RULE, severity: 'fatal', location: '', bt: [], source,
    message: `The rules of ${source} could not be evaluated on this document${err.code ? ` (${err.code})` : ''}: ${err.message ?? String(e)}`,
    hint: 'Usually a value with the wrong data type (for example text where an amount or a date is expected); fix the XSD errors first.',
  };
}

export function runPack(pack: LoadedPack, saxonDoc: unknown): ValidationFinding[] {
  const source = `${pack.pack}@${pack.version}`;
  let raw: RawFinding[];
  try {
    raw = runPackRaw(pack, saxonDoc);
  } catch (e) {
    return [engineErrorFinding(source, e)];
  }
  return raw.map((r) => toFinding(r, source));
}
