/**
 * Differential check of the two rule engines (EINV_RULE_ENGINE=compiled vs saxon): the same document
 * and packs through both, compared on rule id, flag, location and count (as ordered lists, so order
 * is compared too). Cases: the VEFA test payloads, the official examples, the XML-Mutate source
 * instances, single-element mutants of three examples and one XRechnung extension invoice (as test/unit/schematrons/peppol-bis/
 * robustness.spec.ts makes them), each run with the packs of its syntax.
 *
 *   node test/conformance/engine-diff.ts [filter]      prints every difference and a summary
 */
import libxml from 'libxmljs2';
import type { Element } from 'libxmljs2';
import { readFileSync, readdirSync, existsSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { validate, getRegistry, InvalidXmlInputError, type ValidationFinding } from '../../services/validation/engine/index.ts';
import { loadVefaCases, CONFIGURATIONS } from './vefa-runner.ts';
import { XMUTE_SOURCES } from './xmute-runner.ts';
import { CORPUS_DIR } from '../support/corpus.ts';
import { UBL_EXTENDED, CII_EXTENDED } from '../support/extended-ctc-fr-invoices.ts';
import { compiledStats } from '../../services/validation/engine/compiled/pack.ts';

export interface DiffCase { group: string; name: string; xml: string; packs?: string[] }

function xmlFilesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const e of readdirSync(dir, { recursive: true }) as string[]) {
    const full = join(dir, e);
    if (e.endsWith('.xml') && statSync(full).isFile()) out.push(full);
  }
  return out.sort();
}

const EXAMPLE_DIRS = [
  'peppol-bis-invoice-3/rules/examples',
  'peppol-bis-invoice-3/rules/national-examples',
  'eInvoicing-EN16931/ubl/examples',
  'eInvoicing-EN16931/cii/examples',
  'mustangproject',
  'gobl.cii',
];

const MUTANT_SOURCES = [
  'peppol-bis-invoice-3/rules/examples/base-example.xml',
  'peppol-bis-invoice-3/rules/national-examples/GR/GR-base-example-correct.xml',
  'eInvoicing-EN16931/cii/examples/CII_example1.xml',
  // an XRechnung extension invoice (third party payments), so the extension rules see broken documents too
  'validator-configuration-xrechnung/src/test/instances/ubl-br-dex-09-prepaidpayment.xml',
];

/** Every single-element mutant: repeated, its text replaced by junk, removed. */
export function mutants(text: string): { what: string; xml: string }[] {
  const out: { what: string; xml: string }[] = [];
  const count = libxml.parseXml(text).find('//*').length;
  for (let i = 1; i < count; i++) {
    for (const mode of ['repeat', 'junk', 'remove'] as const) {
      const doc = libxml.parseXml(text);
      const el = doc.find('//*')[i] as Element;
      if (/(InvoiceLine|CreditNoteLine|IncludedSupplyChainTradeLineItem)\[([2-9]|\d\d+)\]/.test(el.path())) continue;
      if (mode === 'junk' && el.childNodes().some((c) => c.type() === 'element')) continue;
      if (mode === 'repeat') el.addNextSibling(el.clone());
      else if (mode === 'junk') el.text('x y');
      else el.remove();
      out.push({ what: `${mode} ${el.path()}`, xml: doc.toString(false) });
    }
  }
  return out;
}

/** The cases of the differential run; `group` filters (vefa, examples, xmute, mutants). */
export function diffCases(groups = ['vefa', 'examples', 'xmute', 'mutants']): DiffCase[] {
  const cases: DiffCase[] = [];
  if (groups.includes('vefa')) {
    for (const c of loadVefaCases()) {
      cases.push({ group: 'vefa', name: `${c.file}#${c.position}`, xml: c.payload, packs: CONFIGURATIONS[c.configuration]?.packs });
    }
  }
  const allPacks = (name: string, xml: string): DiffCase => ({ group: '', name, xml });
  if (groups.includes('examples')) {
    // A pack with several releases (peppol-bis 3.0.19, 3.0.20 …) runs the one of the document's issue
    // date; each example also runs every release of those packs on its own, so every shipped release is diffed.
    const releases = [...new Set(getRegistry().available().map((f) => `${f.pack}@${f.version}`))]
      .filter((r) => getRegistry().available().filter((f) => `${f.pack}@${f.version}` !== r && f.pack === r.split('@')[0]).length > 0);
    for (const d of EXAMPLE_DIRS) for (const f of xmlFilesUnder(join(CORPUS_DIR, d))) {
      const xml = readFileSync(f, 'utf8');
      cases.push({ ...allPacks(relative(CORPUS_DIR, f), xml), group: 'examples' });
      for (const r of releases) cases.push({ group: 'examples', name: `${relative(CORPUS_DIR, f)} (${r})`, xml, packs: [r] });
    }
  }
  if (groups.includes('xmute')) {
    for (const s of XMUTE_SOURCES) for (const f of xmlFilesUnder(join(CORPUS_DIR, s.dir))) {
      cases.push({ ...allPacks(relative(CORPUS_DIR, f), readFileSync(f, 'utf8')), group: 'xmute' });
    }
  }
  if (groups.includes('mutants')) {
    for (const f of MUTANT_SOURCES) {
      const p = join(CORPUS_DIR, f);
      if (!existsSync(p)) continue;
      for (const m of mutants(readFileSync(p, 'utf8'))) cases.push({ group: 'mutants', name: `${f} ${m.what}`, xml: m.xml });
    }
    // the French extended profile's sub-lines and per-reason VAT breakdowns, broken element by element (its own pack only)
    for (const [name, xml] of [['extended-ctc-fr UBL', UBL_EXTENDED], ['extended-ctc-fr CII', CII_EXTENDED]] as const) {
      for (const m of mutants(xml)) cases.push({ group: 'mutants', name: `${name} ${m.what}`, xml: m.xml, packs: ['extended-ctc-fr'] });
    }
  }
  return cases;
}

const key = (f: ValidationFinding): string => `${f.source} ${f.rule} ${f.severity} ${f.location}`;
/** Every pack of the document's syntax runs (national packs too), unless the case names its packs. */
const ALL = ['en16931', 'extended-ctc-fr', 'peppol-bis', 'br-fr', 'br-be', 'br-fr-cdv', 'xrechnung'];

export interface DiffResult { name: string; group: string; saxon: string[]; compiled: string[]; same: boolean; skipped?: string }

export function diffCase(c: DiffCase): DiffResult {
  const packs = c.packs ?? ALL;
  let saxon: string[];
  try {
    saxon = validate(c.xml, { packs, skipXsd: true, engine: 'saxon' }).findings.map(key);
  } catch (e) {
    if (e instanceof InvalidXmlInputError) return { name: c.name, group: c.group, saxon: [], compiled: [], same: true, skipped: e.message };
    throw e;
  }
  const compiled = validate(c.xml, { packs, skipXsd: true, engine: 'compiled' }).findings.map(key);
  return { name: c.name, group: c.group, saxon, compiled, same: JSON.stringify(saxon) === JSON.stringify(compiled) };
}

/** Lines that show how two finding lists differ (multiset difference, then order). */
export function describe(r: DiffResult): string {
  const count = (xs: string[]): Map<string, number> => { const m = new Map<string, number>(); for (const x of xs) m.set(x, (m.get(x) ?? 0) + 1); return m; };
  const a = count(r.saxon); const b = count(r.compiled);
  const lines: string[] = [];
  for (const [k, n] of a) if ((b.get(k) ?? 0) !== n) lines.push(`  saxon ${n}× / compiled ${b.get(k) ?? 0}×  ${k}`);
  for (const [k, n] of b) if (!a.has(k)) lines.push(`  saxon 0× / compiled ${n}×  ${k}`);
  if (lines.length === 0) lines.push('  same findings, different order');
  return `${r.group} ${r.name}\n${lines.join('\n')}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const groups = process.argv[2] ? process.argv[2].split(',') : undefined;
  const t0 = performance.now();
  const cases = diffCases(groups);
  let bad = 0;
  for (const c of cases) {
    const r = diffCase(c);
    if (!r.same) { bad++; if (bad <= 40) console.log(describe(r)); }
  }
  console.log(`${cases.length} cases, ${bad} different, ${Math.round(performance.now() - t0)} ms`, compiledStats);
}
