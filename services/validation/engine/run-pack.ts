/** Run one compiled pack over a document already parsed for saxon-js. */
import SaxonJS from 'saxon-js';
import type { LoadedPack } from './registry.ts';
import type { ValidationFinding } from './types.ts';

/** What a compiled pack emits per firing (schematrons/compiler: CompiledFinding). */
interface RawFinding { id: string; flag: string; kind: string; location: string; text: string; hint: string; bt: string }

/** Parse XML text into a saxon-js document node (once per request, shared by every pack). */
export function parseForSaxon(text: string): unknown {
  return SaxonJS.XPath.evaluate('parse-xml($t)', null, { params: { t: text } });
}

/**
 * A rule that raises an XPath dynamic error (e.g. a cast of garbage in a pack) must not turn a
 * validation into a 500: the pack's run becomes one fatal finding naming the pack and the error.
 */
export const ENGINE_ERROR_RULE = 'RULE-EVALUATION-ERROR';

export function runPack(pack: LoadedPack, saxonDoc: unknown): ValidationFinding[] {
  const source = `${pack.pack}@${pack.version}`;
  let res;
  try {
    res = SaxonJS.transform({ stylesheetInternal: pack.stylesheet, sourceNode: saxonDoc, destination: 'raw' }, 'sync');
  } catch (e) {
    const err = e as { message?: string; code?: string };
    return [{
      rule: ENGINE_ERROR_RULE, severity: 'fatal', location: '', bt: [], source,
      message: `The rules of ${source} could not be evaluated on this document${err.code ? ` (${err.code})` : ''}: ${err.message ?? String(e)}`,
      hint: 'Usually a value with the wrong data type (for example text where an amount or a date is expected); fix the XSD errors first.',
    }];
  }
  const raw = (res.principalResult ?? []) as RawFinding[];
  return raw.map((r) => ({
    rule: r.id,
    severity: r.flag === 'warning' ? 'warning' : 'fatal',
    location: r.location,
    bt: r.bt ? r.bt.split(/\s+/).filter(Boolean) : [],
    message: r.text,
    hint: r.hint,
    source,
  }));
}
