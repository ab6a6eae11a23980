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

export function runPack(pack: LoadedPack, saxonDoc: unknown): ValidationFinding[] {
  const res = SaxonJS.transform({ stylesheetInternal: pack.stylesheet, sourceNode: saxonDoc, destination: 'raw' }, 'sync');
  const raw = (res.principalResult ?? []) as RawFinding[];
  const source = `${pack.pack}@${pack.version}`;
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
