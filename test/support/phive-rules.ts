/**
 * Official OpenPeppol test files as kept in the public repository phax/phive-rules (the OpenPeppol
 * self-billing examples are published there, not in peppol-bis-invoice-3), read in place at the pinned
 * commit of scripts/corpus.sh:
 * - from the corpus, `<corpus>/phive-rules/<upstream path>` (`npm run corpus` fetches it), else
 * - from a git object store of that repository (a clone or mirror): `EINV_PHIVE_RULES_GIT`, default the
 *   project workspace's mirror, read with `git show <commit>:<path>`.
 * Neither available: one clear error naming both, so the suite fails instead of passing on nothing.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { CORPUS_DIR } from './corpus.ts';

/** phax/phive-rules at the commit the self-billing packs were proven on (scripts/corpus.sh pins the same). */
export const PHIVE_RULES_COMMIT = '432f0e9a8cff5c03d06625abe7a5fd8e7e346a64';
const CHECKOUT = join(CORPUS_DIR, 'phive-rules');
const GIT_DIR = process.env.EINV_PHIVE_RULES_GIT ?? '/work/.mirror/phax+phive-rules/repo';

const missing = (path: string): Error => new Error(`phax/phive-rules file ${path} not found: run \`npm run corpus\` (fetches it into `
  + `${CHECKOUT}) or set EINV_PHIVE_RULES_GIT to a clone of github.com/phax/phive-rules that has commit ${PHIVE_RULES_COMMIT}`);

function gitShow(args: string[]): string {
  return execFileSync('git', ['--git-dir', GIT_DIR, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** The files directly inside an upstream folder whose names match `pattern`, sorted. */
export function phiveRulesFiles(folder: string, pattern: RegExp): string[] {
  let names: string[];
  if (existsSync(join(CHECKOUT, folder))) {
    names = readdirSync(join(CHECKOUT, folder));
  } else if (existsSync(GIT_DIR)) {
    names = gitShow(['ls-tree', '--name-only', `${PHIVE_RULES_COMMIT}:${folder}`]).split('\n');
  } else {
    throw missing(folder);
  }
  return names.filter((n) => pattern.test(n)).sort().map((n) => `${folder}/${n}`);
}

/** The text of one upstream file. */
export function phiveRulesFile(path: string): string {
  const local = join(CHECKOUT, path);
  if (existsSync(local)) return readFileSync(local, 'utf8');
  if (!existsSync(GIT_DIR)) throw missing(path);
  return gitShow(['show', `${PHIVE_RULES_COMMIT}:${path}`]);
}
