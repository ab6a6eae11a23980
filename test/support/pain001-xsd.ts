/**
 * Validates a pain.001.001.09 message against the ISO 20022 XSD of the corpus (shared/corpus/bank4j,
 * read in place) with libxmljs2: the schema the export must satisfy, independent of our vendored copy.
 */
import { readFileSync } from 'node:fs';
import libxml from 'libxmljs2';
import type { Document } from 'libxmljs2';
import { corpusPath } from './corpus.ts';

let schema: Document | undefined;

/** The XSD's errors for the message (empty when it validates). */
export function pain001XsdErrors(xml: string): string[] {
  schema ??= libxml.parseXml(readFileSync(corpusPath('bank4j', 'src/main/resources/pain.001.001.09.xsd'), 'utf8'), { nonet: true });
  const doc = libxml.parseXml(xml, { nonet: true });
  return doc.validate(schema) ? [] : doc.validationErrors.map((e) => `line ${e.line}: ${e.message.trim()}`);
}
