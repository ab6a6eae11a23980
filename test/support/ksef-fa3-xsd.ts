/**
 * The official FA(3) schema (KSeF 2.0's structured invoice), vendored unchanged under
 * schematrons/xsd/ksef-fa3/, for the mapping tests and the KSeF simulator. The file imports its
 * base types from crd.gov.pl by URL; that import is mapped in memory to the vendored copy of the
 * same file (bazowe/StrukturyDanych_v10-0E.xsd), so nothing is fetched and the file stays as published.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import libxml from 'libxmljs2';
import type { Document } from 'libxmljs2';
import { REPO_ROOT } from './corpus.ts';

export const FA3_XSD_DIR = join(REPO_ROOT, 'schematrons/xsd/ksef-fa3');
const FA3_XSD = join(FA3_XSD_DIR, 'schemat_FA(3)_v1-0E.xsd');
const REMOTE_BASE = 'http://crd.gov.pl/xml/schematy/dziedzinowe/mf/2022/01/05/eD/DefinicjeTypy/StrukturyDanych_v10-0E.xsd';

let schema: Document | undefined;
function fa3Schema(): Document {
  schema ??= libxml.parseXml(readFileSync(FA3_XSD, 'utf8').split(REMOTE_BASE).join('bazowe/StrukturyDanych_v10-0E.xsd'), { baseUrl: FA3_XSD, nonet: true });
  return schema;
}

/** FA(3) schema errors of an XML document (empty when valid). */
export function fa3XsdErrors(xml: string): string[] {
  let doc: Document;
  try {
    doc = libxml.parseXml(xml, { nonet: true });
  } catch (err) {
    return [`not well-formed: ${(err as Error).message}`];
  }
  return doc.validate(fa3Schema()) ? [] : doc.validationErrors.map((e) => String(e.message ?? e).trim());
}
