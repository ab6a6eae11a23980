/**
 * The FatturaPA 1.2.2 schema as the SDI applies it, read with libxmljs2 from the copy the product
 * vendors unchanged (schematrons/xsd/fatturapa-1.2.2). The official file imports XML-DSig from
 * w3.org; like the product's validation engine, the import is pointed (in memory) at the local copy
 * of the same W3C schema, so nothing is fetched.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import libxml from 'libxmljs2';
import type { Document } from 'libxmljs2';
import { REPO_ROOT } from './corpus.ts';

const FATTURAPA_XSD = join(REPO_ROOT, 'schematrons/xsd/fatturapa-1.2.2/Schema_del_file_xml_FatturaPA_v1.2.2.xsd');
const REMOTE_XMLDSIG = 'http://www.w3.org/TR/2002/REC-xmldsig-core-20020212/xmldsig-core-schema.xsd';
const LOCAL_XMLDSIG = '../ubl-2.1/common/UBL-xmldsig-core-schema-2.1.xsd';

let schema: Document | undefined;

function fatturaPaSchema(): Document {
  schema ??= libxml.parseXml(readFileSync(FATTURAPA_XSD, 'utf8').split(REMOTE_XMLDSIG).join(LOCAL_XMLDSIG), { baseUrl: FATTURAPA_XSD, nonet: true });
  return schema;
}

/** The schema's errors for a FatturaPA document (empty when valid); a document that is not well formed is one error. */
export function fatturaPaXsdErrors(xml: string | Buffer): string[] {
  let doc: Document;
  try {
    doc = libxml.parseXml(xml as string, { nonet: true, noent: false, dtdload: false, huge: false });
  } catch (err) {
    return [`not well-formed: ${(err as Error).message.trim()}`];
  }
  return doc.validate(fatturaPaSchema()) ? [] : doc.validationErrors.map((e) => String(e.message ?? e).trim());
}
