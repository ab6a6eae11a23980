/**
 * The official FNFE-MPE EXTENDED-CTC-FR 1.4.0 rules (UBL and CII XSLT, as kept in phax/phive-rules and read
 * in place through test/support/phive-rules.ts) run as an oracle on saxon-js, so our own extended-ctc-fr pack
 * can be compared with them firing by firing. Nothing of it is copied into the product: the XSLT is compiled to
 * a SEF under the OS temp folder (keyed by its content hash) with the xslt3 tool we already ship for the build.
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { DOMParser } from '@xmldom/xmldom';
import { phiveRulesFile } from './phive-rules.ts';

const require = createRequire(import.meta.url);
// saxon-js ships CommonJS without types for this entry point
const SaxonJS = require('saxon-js') as { transform(o: Record<string, unknown>, mode?: string): { principalResult: string } };

const XSLT_DIR = 'phive-rules-france/src/main/resources/external/schematron/ctc/1.4.0/xslt';
export const OFFICIAL_XSLT = {
  ubl: `${XSLT_DIR}/20260630_EXTENDED-CTC-FR-UBL-V1.4.0.xslt`,
  cii: `${XSLT_DIR}/20260630_EXTENDED-CTC-FR-CII-V1.4.0.xslt`,
} as const;

/** The rule ids of the official schematron source (the checklist our pack must cover), by syntax. */
export const OFFICIAL_SCH = {
  ubl: 'phive-rules-france/src/test/resources/external/rule-source/ctc/1.4.0/20260630_EXTENDED-CTC-FR-UBL-V1.4.0.sch',
  cii: 'phive-rules-france/src/test/resources/external/rule-source/ctc/1.4.0/20260630_EXTENDED-CTC-FR-CII-V1.4.0.sch',
} as const;

const sefs = new Map<string, unknown>();

function sefFor(syntax: 'ubl' | 'cii'): unknown {
  const cached = sefs.get(syntax);
  if (cached) return cached;
  const xslt = phiveRulesFile(OFFICIAL_XSLT[syntax]);
  const dir = join(tmpdir(), 'einv-extended-ctc-fr-oracle');
  mkdirSync(dir, { recursive: true });
  const base = join(dir, createHash('sha256').update(xslt).digest('hex').slice(0, 16));
  if (!existsSync(`${base}.sef.json`)) {
    writeFileSync(`${base}.xslt`, xslt);
    const bin = join(process.cwd(), 'node_modules', '.bin', 'xslt3');
    execFileSync(bin, [`-xsl:${base}.xslt`, `-export:${base}.sef.json.tmp`, '-nogo', '-relocate:on'], { stdio: 'ignore', timeout: 300_000 });
    writeFileSync(`${base}.sef.json`, readFileSync(`${base}.sef.json.tmp`));
  }
  const sef = JSON.parse(readFileSync(`${base}.sef.json`, 'utf8')) as unknown;
  sefs.set(syntax, sef);
  return sef;
}

export interface OracleFiring { id: string; flag: string }

/** The official rules' failed asserts / successful reports on one document (SVRL read back). */
export function officialFirings(syntax: 'ubl' | 'cii', xml: string): OracleFiring[] {
  const out = SaxonJS.transform({ stylesheetInternal: sefFor(syntax), sourceText: xml, destination: 'serialized' }, 'sync');
  const svrl = new DOMParser().parseFromString(out.principalResult, 'text/xml');
  const firings: OracleFiring[] = [];
  for (const tag of ['failed-assert', 'successful-report']) {
    const nodes = svrl.getElementsByTagNameNS('http://purl.oclc.org/dsdl/svrl', tag);
    for (let i = 0; i < nodes.length; i++) {
      const n = nodes.item(i)!;
      firings.push({ id: n.getAttribute('id') || 'NOID', flag: n.getAttribute('flag') || 'none' });
    }
  }
  return firings;
}

/** Every rule id the official schematron source declares (asserts and reports), by syntax. */
export function officialRuleIds(syntax: 'ubl' | 'cii'): Set<string> {
  const doc = new DOMParser().parseFromString(phiveRulesFile(OFFICIAL_SCH[syntax]), 'text/xml');
  const ids = new Set<string>();
  for (const tag of ['assert', 'report']) {
    const nodes = doc.getElementsByTagNameNS('http://purl.oclc.org/dsdl/schematron', tag);
    for (let i = 0; i < nodes.length; i++) ids.add(nodes.item(i)!.getAttribute('id') || 'NOID');
  }
  return ids;
}
