/**
 * The compiled XSD path (libxml2-wasm, services/validation/engine/xsd.ts) against the named package
 * (libxmljs2, parsing the same vendored schema on each call as the engine did before): the same
 * verdict and the same messages, line by line, on every corpus document of each syntax and on
 * broken variants of them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import libxml from 'libxmljs2';
import type { Document } from 'libxmljs2';
import { validateXsd } from '../../../../services/validation/engine/xsd.ts';
import { parseInput } from '../../../../services/validation/engine/xml-input.ts';
import { corpusPath, REPO_ROOT } from '../../../support/corpus.ts';

const XSD_DIR = join(REPO_ROOT, 'schematrons/xsd');
const SCHEMA_FILES: Record<string, string> = {
  'ubl-invoice': 'ubl-2.1/maindoc/UBL-Invoice-2.1.xsd',
  'ubl-creditnote': 'ubl-2.1/maindoc/UBL-CreditNote-2.1.xsd',
  'ubl-order': 'ubl-2.1/maindoc/UBL-Order-2.1.xsd',
  cii: 'cii-d16b/CII/uncefact/data/standard/CrossIndustryInvoice_100pD16B.xsd',
  cdar: 'cdar-d22b/CrossDomainAcknowledgementAndResponse_100pD22B.xsd',
};
const schemas = new Map<string, Document>();
function libxmljs2Errors(text: string, syntax: string): string[] {
  const file = join(XSD_DIR, SCHEMA_FILES[syntax]!);
  let schema = schemas.get(file);
  if (!schema) schemas.set(file, (schema = libxml.parseXml(readFileSync(file, 'utf8'), { baseUrl: `${dirname(file)}/`, nonet: true })));
  const doc = libxml.parseXml(text, { nonet: true });
  return doc.validate(schema) ? [] : doc.validationErrors.map((e) => `line ${e.line}: ${e.message.trim()}`);
}

function ours(text: string): { syntax: string; errors: string[] } {
  const { syntax } = parseInput(text);
  return { syntax, errors: validateXsd(text, syntax).map((f) => `line ${f.location.replace(/^line (\d+).*$/, '$1')}: ${f.message.replace(/^Schema \([^)]*\) error at line \d+: /, '')}`) };
}

const xmlIn = (dir: string) => readdirSync(corpusPath(dir)).filter((n) => /\.xml$/i.test(n)).map((n) => readFileSync(corpusPath(dir, n), 'utf8'));
const documents = [
  ...xmlIn('peppol-bis-invoice-3/rules/examples'),
  ...xmlIn('eInvoicing-EN16931/ubl/examples'),
  ...xmlIn('eInvoicing-EN16931/cii/examples'),
  ...xmlIn('gobl.cii/test/data/convert/cdar/out'),
].filter((text) => /<(\w+:)?(Invoice|CreditNote|CrossIndustryInvoice|CrossDomainAcknowledgementAndResponse)[\s>]/.test(text));

/** Broken variants: a required element removed, an unknown element, a bad date, a bad amount. */
function broken(text: string): string[] {
  return [
    text.replace(/<cbc:IssueDate>[^<]*<\/cbc:IssueDate>/, ''),
    text.replace(/(<cbc:ID>)/, '<cbc:Unknown>x</cbc:Unknown>$1'),
    text.replace(/<cbc:IssueDate>[^<]*</, '<cbc:IssueDate>2026-13-45<'),
    text.replace(/(<cbc:PayableAmount[^>]*>)[^<]*</, '$1twelve<'),
    text.replace(/<ram:TypeCode>[^<]*<\/ram:TypeCode>/, ''),
  ].filter((variant) => variant !== text);
}

it('reads enough of the corpus to mean something', () => {
  expect(documents.length).toBeGreaterThan(40);
});

it('gives the verdicts and messages of libxmljs2 on every corpus document and its broken variants', () => {
  let compared = 0;
  let invalid = 0;
  for (const text of documents) {
    for (const variant of [text, ...broken(text)]) {
      const mine = ours(variant);
      if (!SCHEMA_FILES[mine.syntax]) continue;
      const theirs = libxmljs2Errors(variant, mine.syntax);
      expect(mine.errors).toEqual(theirs);
      compared++;
      if (theirs.length) invalid++;
    }
  }
  expect(compared).toBeGreaterThan(150);
  expect(invalid).toBeGreaterThan(100);
});
