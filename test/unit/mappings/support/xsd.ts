/**
 * XSD validation for the mapping tests, with the official schemas the repository vendors unchanged
 * under schematrons/xsd/ (so these tests need no corpus), read by libxmljs2 directly rather than
 * through the product's validation engine.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import libxml from 'libxmljs2';
import type { Document } from 'libxmljs2';
import { REPO_ROOT } from '../../../support/corpus.ts';
import { fatturaPaXsdErrors } from '../../../support/fatturapa-xsd.ts';

const XSD_DIR = join(REPO_ROOT, 'schematrons/xsd');
const UBL_MAINDOC = join(XSD_DIR, 'ubl-2.1/maindoc');
const CII_D16B = join(XSD_DIR, 'cii-d16b/CII/uncefact/data/standard/CrossIndustryInvoice_100pD16B.xsd');

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
  if (root === 'FatturaElettronica') return fatturaPaXsdErrors(xml);
  const path = root === 'Invoice' ? join(UBL_MAINDOC, 'UBL-Invoice-2.1.xsd')
    : root === 'Order' ? join(UBL_MAINDOC, 'UBL-Order-2.1.xsd')
    : root === 'CreditNote' ? join(UBL_MAINDOC, 'UBL-CreditNote-2.1.xsd')
      : root === 'CrossIndustryInvoice' ? CII_D16B
        : undefined;
  if (!path) return [`unexpected root ${root}`];
  const ok = doc.validate(schema(path));
  return ok ? [] : doc.validationErrors.map((e) => String(e.message ?? e).trim());
}
