/**
 * Where the suites read the project's reference notes (`compliance.md`, the API spec), in place:
 * `EINV_REFERENCE_DIR`, else `../shared/reference` beside the repository (the project workspace).
 * A clone without them gets one clear message instead of an ENOENT deep inside a suite.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { REPO_ROOT } from './corpus.ts';

/** Resolved against the repository root, so a relative `EINV_REFERENCE_DIR` means the same from any cwd. */
export const REFERENCE_DIR = resolve(REPO_ROOT, process.env.EINV_REFERENCE_DIR ?? '../shared/reference');

export const referenceMissing = (name: string) => `reference notes not found: ${join(REFERENCE_DIR, name)} is missing; `
  + 'set EINV_REFERENCE_DIR to the folder holding the project\'s reference notes (compliance.md, exchange-api-spec.md), '
  + 'or check out the project workspace so that ../shared/reference sits beside the repository';

/** The text of one reference note; throws the one clear message when it is absent. */
export function readReference(name: string): string {
  const path = join(REFERENCE_DIR, name);
  if (!existsSync(path)) throw new Error(referenceMissing(name));
  return readFileSync(path, 'utf8');
}
