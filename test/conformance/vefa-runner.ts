/**
 * VEFA testSet runner (shared/corpus/README.md §1) and full-example oracle check (§2).
 *
 * Semantics implemented exactly as §1: per test, the payload is the single non-assert child
 * element; the testSet-level assert is merged (index already merged); firings are filtered by
 * scope; a firing listed in `success` fails the test; expected firings decrement their counter
 * (flag must match: error ↔ error list, warning ↔ warning list, fatal ↔ fatal list); any other
 * in-scope firing fails the test, warnings included; every counter must reach 0.
 */
import libxml from 'libxmljs2';
import type { Element } from 'libxmljs2';
import { readFileSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { validate, getRegistry, type ValidationFinding } from '../../services/validation/engine/index.ts';
import type { Syntax } from '../../schematrons/packs.ts';
import { corpusDir } from '../support/corpus.ts';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const CORPUS = corpusDir();

/** VEFA configuration → our packs (+ whether the XSD runs). Add your pack ids here. The Peppol unit tests of the
 * corpus are those of BIS 3.0.19, so they run that release (`id@version`) whatever their issue dates. */
export const CONFIGURATIONS: Record<string, { syntax: Syntax; packs: string[]; xsd: boolean }> = {
  'tc434-ubl': { syntax: 'ubl', packs: ['en16931'], xsd: true },
  'tc434-ubl-cn': { syntax: 'ubl', packs: ['en16931'], xsd: true },
  'tc434-cii': { syntax: 'cii', packs: ['en16931'], xsd: true },
  'peppolbis-en16931-base-3.0-ubl': { syntax: 'ubl', packs: ['peppol-bis@3.0.19'], xsd: false },
  'peppolbis-en16931-base-3.0-cii': { syntax: 'cii', packs: ['peppol-bis@3.0.19'], xsd: false },
  'peppolbis-en16931-01-3.0-ubl-invoice': { syntax: 'ubl', packs: ['en16931', 'peppol-bis@3.0.19'], xsd: true },
};

export interface Expectation {
  description?: string;
  scope: string[];
  success: string[];
  error: Record<string, number>;
  warning: Record<string, number>;
  fatal: Record<string, number>;
}

interface IndexFile {
  file: string;
  configuration: string;
  tests: { position: number; id: string; configuration: string; payloadRoot: string; expect: Expectation }[];
}

export interface VefaCase {
  suite: 'cen' | 'peppol';
  /** path relative to shared/corpus */
  file: string;
  position: number;
  id: string;
  configuration: string;
  expect: Expectation;
  payload: string;
}

export const caseKey = (c: { suite: string; file: string; position: number }): string => `${c.suite}:${c.file}#${c.position}`;

const SUITES = [
  { suite: 'cen' as const, dir: 'eInvoicing-EN16931/test' },
  { suite: 'peppol' as const, dir: 'peppol-bis-invoice-3/rules' },
];

/** Every VEFA test of both suites, with its payload serialized as a standalone document. */
export function loadVefaCases(): VefaCase[] {
  const cases: VefaCase[] = [];
  for (const s of SUITES) {
    const base = join(CORPUS, s.dir);
    const index = JSON.parse(readFileSync(join(base, '..', 'unit-tests-index.json'), 'utf8')) as IndexFile[];
    for (const f of index) {
      const doc = libxml.parseXml(readFileSync(join(base, f.file), 'utf8'), { noent: false, nonet: true, dtdload: false });
      const tests = doc.root()!.childNodes().filter((n) => n.type() === 'element' && (n as Element).name() === 'test') as Element[];
      for (const t of f.tests) {
        const el = tests[t.position - 1];
        const payload = el?.childNodes().find((n) => n.type() === 'element' && (n as Element).name() !== 'assert') as Element | undefined;
        if (!payload) throw new Error(`${f.file} test ${t.position}: no payload`);
        cases.push({
          suite: s.suite, file: `${s.dir}/${f.file}`, position: t.position, id: t.id, configuration: t.configuration,
          expect: t.expect, payload: payload.toString(false),
        });
      }
    }
  }
  return cases;
}

export interface Firing { id: string; flag: 'error' | 'warning' | 'fatal' }

export interface Verdict { pass: boolean; problems: string[] }

/** §1 items 5 and 6. */
export function judge(expect: Expectation, firings: Firing[]): Verdict {
  const scope = new Set(expect.scope);
  const left = { error: { ...expect.error }, warning: { ...expect.warning }, fatal: { ...expect.fatal } };
  const problems: string[] = [];
  const unexpected = new Map<string, number>();
  for (const f of firings) {
    if (scope.size > 0 && !scope.has(f.id)) continue;
    if (expect.success.includes(f.id)) {
      unexpected.set(`${f.id} (${f.flag}, expected not to fire)`, (unexpected.get(`${f.id} (${f.flag}, expected not to fire)`) ?? 0) + 1);
      continue;
    }
    const list = left[f.flag];
    if ((list[f.id] ?? 0) > 0) { list[f.id]! -= 1; continue; }
    unexpected.set(`${f.id} (${f.flag})`, (unexpected.get(`${f.id} (${f.flag})`) ?? 0) + 1);
  }
  for (const [k, n] of unexpected) problems.push(`unexpected firing ${k}${n > 1 ? ` ×${n}` : ''}`);
  for (const flag of ['error', 'warning', 'fatal'] as const) {
    for (const [id, n] of Object.entries(left[flag])) {
      if (n > 0) problems.push(`${id} (${flag}) not fired ${n} more time(s), expected ${expect[flag][id]}`);
    }
  }
  return { pass: problems.length === 0, problems };
}

export function toFirings(findings: ValidationFinding[]): Firing[] {
  return findings.map((f) => ({ id: f.rule, flag: f.rule === 'XSD' ? 'fatal' : f.severity === 'warning' ? 'warning' : 'error' }));
}

export interface CaseResult {
  key: string;
  suite: 'cen' | 'peppol';
  file: string;
  position: number;
  id: string;
  configuration: string;
  rules: string[];
  agree: boolean;
  packMissing: string[];
  reason: string;
}

export function runCase(c: VefaCase): CaseResult {
  const conf = CONFIGURATIONS[c.configuration];
  const base = { key: caseKey(c), suite: c.suite, file: c.file, position: c.position, id: c.id, configuration: c.configuration, rules: c.expect.scope };
  if (!conf) return { ...base, agree: false, packMissing: [], reason: `unknown configuration ${c.configuration}` };
  const reg = getRegistry();
  const missing = conf.packs.filter((p) => !reg.has(p, conf.syntax));
  if (missing.length > 0) {
    return { ...base, agree: false, packMissing: missing, reason: `pack missing: ${missing.map((m) => `${m} (${conf.syntax})`).join(', ')}` };
  }
  const runXsd = conf.xsd && (c.expect.scope.length === 0 || c.expect.scope.includes('XSD'));
  let findings: ValidationFinding[];
  try {
    findings = validate(c.payload, { packs: conf.packs, skipXsd: !runXsd }).findings;
  } catch (e) {
    return { ...base, agree: false, packMissing: [], reason: `engine error: ${(e as Error).message}` };
  }
  const v = judge(c.expect, toFirings(findings));
  return { ...base, agree: v.pass, packMissing: [], reason: v.problems.join('; ') };
}

export function runAll(cases: VefaCase[] = loadVefaCases()): CaseResult[] {
  return cases.map(runCase);
}

// ---------------------------------------------------------------------------------------------
// §2 full examples against the oracle baseline (CEN schematron only, no XSD)

interface OracleFile { file: string; syntax: 'UBL' | 'CII'; failedAsserts: Record<string, number> }

export interface ExampleResult {
  file: string;
  syntax: Syntax;
  agree: boolean;
  packMissing: boolean;
  expected: Record<string, number>;
  actual: Record<string, number>;
}

export function runOracleExamples(): ExampleResult[] {
  const oracle = JSON.parse(readFileSync(join(CORPUS, 'oracle-baseline-cen-1.3.16.json'), 'utf8')) as { results: OracleFile[] };
  const reg = getRegistry();
  return oracle.results.map((o) => {
    const syntax: Syntax = o.syntax === 'UBL' ? 'ubl' : 'cii';
    const expected = o.failedAsserts;
    if (!reg.has('en16931', syntax)) return { file: o.file, syntax, agree: false, packMissing: true, expected, actual: {} };
    const r = validate(readFileSync(join(CORPUS, o.file)), { packs: ['en16931'], skipXsd: true });
    const actual: Record<string, number> = {};
    for (const f of r.findings) {
      const k = `${f.rule}|${f.severity}`;
      actual[k] = (actual[k] ?? 0) + 1;
    }
    const keys = new Set([...Object.keys(expected), ...Object.keys(actual)]);
    const agree = [...keys].every((k) => (expected[k] ?? 0) === (actual[k] ?? 0));
    return { file: o.file, syntax, agree, packMissing: false, expected, actual };
  });
}

// ---------------------------------------------------------------------------------------------
// report + ratchet

export interface Baseline {
  total: number;
  agreeing: number;
  /** keys of the tests that agree today; none of them may regress */
  agreeingTests: string[];
  /** full examples (§2) agreeing with the oracle today */
  agreeingExamples: string[];
  /** XML-Mutate checks (§3) agreeing today (known CEN divergences excluded) */
  agreeingMutations: string[];
}

export const BASELINE_PATH = join(REPO_ROOT, 'test/conformance/vefa-baseline.json');
export const REPORT_PATH = join(REPO_ROOT, 'test/conformance/reports/vefa-agreement.md');
export const TARGET = 0.995;

export function makeBaseline(results: CaseResult[], examples: ExampleResult[], mutations: { key: string; agree: boolean; knownDivergence: boolean }[] = []): Baseline {
  const agreeingTests = results.filter((r) => r.agree).map((r) => r.key).sort();
  return {
    total: results.length, agreeing: agreeingTests.length, agreeingTests,
    agreeingExamples: examples.filter((e) => e.agree).map((e) => e.file).sort(),
    agreeingMutations: mutations.filter((m) => m.agree && !m.knownDivergence).map((m) => m.key).sort(),
  };
}

const pct = (a: number, b: number): string => `${b === 0 ? '0.00' : ((100 * a) / b).toFixed(2)}%`;

export function renderReport(results: CaseResult[], examples: ExampleResult[], extra: string[] = []): string {
  const total = results.length;
  const agree = results.filter((r) => r.agree).length;
  const need = Math.ceil(TARGET * total);
  const lines: string[] = [];
  lines.push('# VEFA unit-test agreement (generated by test/conformance/vefa.spec.ts — do not edit)');
  lines.push('');
  lines.push('Semantics: shared/corpus/README.md §1. A test *agrees* when our packs give the verdict the official rules give');
  lines.push('(the official CEN 1.3.16 / Peppol 3.0.19 artefacts pass 2,002 of the 2,003). Tests whose pack does not exist yet');
  lines.push('are counted as disagreeing ("pack missing").');
  lines.push('');
  lines.push(`**Overall: ${agree} / ${total} agree (${pct(agree, total)}). Target ≥ ${(TARGET * 100).toFixed(1)}% = ${need} tests; gap: ${Math.max(0, need - agree)} tests.**`);
  lines.push('');
  lines.push('| suite | configuration | tests | agree | pack missing | other disagreements |');
  lines.push('|---|---|---|---|---|---|');
  const groups = new Map<string, CaseResult[]>();
  for (const r of results) {
    const k = `${r.suite}|${r.configuration}`;
    groups.set(k, [...(groups.get(k) ?? []), r]);
  }
  for (const [k, rs] of [...groups].sort()) {
    const [suite, conf] = k.split('|');
    const pm = rs.filter((r) => r.packMissing.length > 0).length;
    const ag = rs.filter((r) => r.agree).length;
    lines.push(`| ${suite} | ${conf} | ${rs.length} | ${ag} (${pct(ag, rs.length)}) | ${pm} | ${rs.length - ag - pm} |`);
  }
  lines.push('');
  // per rule
  const perRule = new Map<string, { n: number; ok: number; missing: number }>();
  for (const r of results) for (const rule of r.rules) {
    const e = perRule.get(rule) ?? { n: 0, ok: 0, missing: 0 };
    e.n++; if (r.agree) e.ok++; if (r.packMissing.length) e.missing++;
    perRule.set(rule, e);
  }
  const ruleRows = [...perRule].sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true }));
  const partial = ruleRows.filter(([, e]) => e.ok < e.n && e.missing < e.n);
  const missingRules = ruleRows.filter(([, e]) => e.missing === e.n);
  lines.push(`## Agreement per rule`);
  lines.push('');
  lines.push(`${ruleRows.filter(([, e]) => e.ok === e.n).length} rule ids agree on every test; ${partial.length} partly; ` +
    `${missingRules.length} only in missing packs.`);
  lines.push('');
  lines.push('| rule | tests | agree |');
  lines.push('|---|---|---|');
  for (const [rule, e] of ruleRows.filter(([, e]) => e.missing < e.n)) lines.push(`| ${rule} | ${e.n} | ${e.ok}${e.ok < e.n ? ' ⚠' : ''} |`);
  lines.push('');
  lines.push(`Rule ids whose tests all need a missing pack (${missingRules.length}): ${missingRules.map(([r]) => r).join(', ')}`);
  lines.push('');
  lines.push('## Every disagreement and its reason');
  lines.push('');
  const dis = results.filter((r) => !r.agree && r.packMissing.length === 0);
  lines.push(`### Packs present (${dis.length})`);
  lines.push('');
  if (dis.length === 0) lines.push('None.');
  for (const r of dis) lines.push(`- \`${r.file}\` test ${r.position} (id ${r.id}): ${r.reason}`);
  lines.push('');
  const pm = results.filter((r) => r.packMissing.length > 0);
  lines.push(`### Pack missing (${pm.length})`);
  lines.push('');
  const byFile = new Map<string, CaseResult[]>();
  for (const r of pm) byFile.set(r.file, [...(byFile.get(r.file) ?? []), r]);
  for (const [f, rs] of byFile) lines.push(`- \`${f}\` (${rs.length} test${rs.length > 1 ? 's' : ''}): ${rs[0]!.reason}`);
  lines.push('');
  lines.push('## Full examples vs the official CEN 1.3.16 oracle (§2)');
  lines.push('');
  const exOk = examples.filter((e) => e.agree).length;
  const exMissing = examples.filter((e) => e.packMissing).length;
  lines.push(`${exOk} / ${examples.length} files give exactly the oracle's failed asserts (rule, flag, count); ${exMissing} need a missing pack (CII).`);
  lines.push('');
  for (const e of examples.filter((x) => !x.agree)) {
    lines.push(`- \`${e.file}\`: ${e.packMissing ? 'pack missing: en16931 (cii)' : `oracle ${JSON.stringify(e.expected)}, ours ${JSON.stringify(e.actual)}`}`);
  }
  lines.push('');
  lines.push(...extra);
  return `${lines.join('\n')}\n`;
}
