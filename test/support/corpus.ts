/**
 * Where the suites read the official conformance corpus, in place: `EINV_CORPUS_DIR`, else
 * `../shared/corpus` beside the repository (the project workspace). A clone without it gets one
 * clear message naming the script that fetches it, instead of an ENOENT deep inside a suite.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const REPO_ROOT = resolve(import.meta.dirname, '../..');

/** Resolved against the repository root, so a relative `EINV_CORPUS_DIR` means the same from any cwd. */
export const CORPUS_DIR = resolve(REPO_ROOT, process.env.EINV_CORPUS_DIR ?? '../shared/corpus');

export const CORPUS_MISSING = `conformance corpus not found at ${CORPUS_DIR}: set EINV_CORPUS_DIR to a copy, `
  + 'or run `npm run corpus` (fetches the public upstream repositories at the pinned commits of scripts/corpus.sh; needs internet)';

export function corpusAvailable(): boolean {
  return existsSync(join(CORPUS_DIR, 'README.md'));
}

/** The corpus folder; throws the one clear message when it is absent. */
export function corpusDir(): string {
  if (!corpusAvailable()) throw new Error(CORPUS_MISSING);
  return CORPUS_DIR;
}

/** A path inside the corpus, e.g. `corpusPath('peppol-bis-invoice-3', 'rules')`. */
export function corpusPath(...parts: string[]): string {
  return join(corpusDir(), ...parts);
}
