/**
 * CLI: run the VEFA conformance suite, write the report, and (with --update-baseline) ratchet
 * test/conformance/vefa-baseline.json. Refuses to lower the baseline.
 *
 *   node test/conformance/vefa-report.ts [--update-baseline]
 */
import { readFileSync, writeFileSync, existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { runXmute, renderXmuteSection } from './xmute-runner.ts';
import { BASELINE_PATH, REPORT_PATH, makeBaseline, renderReport, runAll, runOracleExamples, type Baseline } from './vefa-runner.ts';

const t0 = performance.now();
const results = runAll();
const examples = runOracleExamples();
const mutations = runXmute();
mkdirSync(dirname(REPORT_PATH), { recursive: true });
writeFileSync(REPORT_PATH, renderReport(results, examples, renderXmuteSection(mutations)));
const next = makeBaseline(results, examples, mutations);
process.stdout.write(`${next.agreeing}/${next.total} agree; examples ${next.agreeingExamples.length}/${examples.length}; xmute ${next.agreeingMutations.length}/${mutations.length}; ${Math.round(performance.now() - t0)} ms\n`);
if (process.argv.includes('--update-baseline')) {
  if (existsSync(BASELINE_PATH)) {
    const old = JSON.parse(readFileSync(BASELINE_PATH, 'utf8')) as Baseline;
    const now = new Set(next.agreeingTests);
    const lost = old.agreeingTests.filter((k) => !now.has(k));
    const nowEx = new Set(next.agreeingExamples);
    const lostEx = old.agreeingExamples.filter((k) => !nowEx.has(k));
    const nowMut = new Set(next.agreeingMutations);
    const lostMut = (old.agreeingMutations ?? []).filter((k) => !nowMut.has(k));
    if (lost.length || lostEx.length || lostMut.length) {
      process.stderr.write(`refusing to lower the baseline; regressed:\n${[...lost, ...lostEx, ...lostMut].join('\n')}\n`);
      process.exit(1);
    }
  }
  writeFileSync(BASELINE_PATH, `${JSON.stringify(next, null, 1)}\n`);
  process.stdout.write(`baseline updated: ${BASELINE_PATH}\n`);
}
