/** Test helpers: corpus paths (read in place) and XSD validation with the official schemas. */
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import libxml from 'libxmljs2';
import type { Document } from 'libxmljs2';

export const CORPUS = resolve(process.cwd(), '../shared/corpus');

const UBL_MAINDOC = join(CORPUS, 'mustangproject/validator/src/main/resources/schema/UBL_21/maindoc');
const CII_D16B = join(CORPUS, 'eInvoicing-EN16931/cii/schema/D16B SCRDM (Subset)/uncoupled clm/CII/uncefact/data/standard/CrossIndustryInvoice_100pD16B.xsd');

const schemas = new Map<string, Document>();
function schema(path: string): Document {
  let s = schemas.get(path);
  if (!s) {
    s = libxml.parseXml(readFileSync(path, 'utf8'), { baseUrl: path, nonet: true });
    schemas.set(path, s);
  }
  return s;
}

/** XSD errors of an XML document (empty when valid); picks the schema from the root element. */
export function xsdErrors(xml: string): string[] {
  const doc = libxml.parseXml(xml, { nonet: true });
  const root = doc.root()!.name();
  const path = root === 'Invoice' ? join(UBL_MAINDOC, 'UBL-Invoice-2.1.xsd')
    : root === 'CreditNote' ? join(UBL_MAINDOC, 'UBL-CreditNote-2.1.xsd')
      : root === 'CrossIndustryInvoice' ? CII_D16B
        : undefined;
  if (!path) return [`unexpected root ${root}`];
  const ok = doc.validate(schema(path));
  return ok ? [] : doc.validationErrors.map((e) => String(e.message ?? e).trim());
}

export function corpusFiles(dir: string, filter: (name: string) => boolean = (n) => /\.xml$/i.test(n)): string[] {
  return readdirSync(join(CORPUS, dir)).filter(filter).sort().map((n) => join(CORPUS, dir, n));
}
