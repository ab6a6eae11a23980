/** Test helpers: corpus paths (read in place; see test/support/corpus.ts). */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { corpusDir } from '../../../support/corpus.ts';

export { xsdErrors } from './xsd.ts';

export const CORPUS = corpusDir();

export function corpusFiles(dir: string, filter: (name: string) => boolean = (n) => /\.xml$/i.test(n)): string[] {
  return readdirSync(join(CORPUS, dir)).filter(filter).sort().map((n) => join(CORPUS, dir, n));
}
