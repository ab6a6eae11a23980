/**
 * XSD validation with libxmljs2. Each schema is parsed once (lazily) from the vendored copies in
 * schematrons/xsd/ and kept for the life of the process.
 */
import libxml from 'libxmljs2';
import type { Document as XmlDocument } from 'libxmljs2';
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { SCHEMATRONS_DIR } from '../../../schematrons/packs.ts';
import type { DocumentSyntax, ValidationFinding } from './types.ts';

const XSD_DIR = join(SCHEMATRONS_DIR, 'xsd');

interface SchemaDef { name: string; path: string; rewrite?: [string, string][] }

const SCHEMAS: Record<DocumentSyntax, SchemaDef> = {
  'ubl-invoice': { name: 'ubl-2.1', path: 'ubl-2.1/maindoc/UBL-Invoice-2.1.xsd' },
  'ubl-creditnote': { name: 'ubl-2.1', path: 'ubl-2.1/maindoc/UBL-CreditNote-2.1.xsd' },
  cii: { name: 'cii-d16b', path: 'cii-d16b/CII/uncefact/data/standard/CrossIndustryInvoice_100pD16B.xsd' },
  cdar: { name: 'cdar-d22b', path: 'cdar-d22b/CrossDomainAcknowledgementAndResponse_100pD22B.xsd' },
  fatturapa: {
    name: 'fatturapa-1.2.2', path: 'fatturapa-1.2.2/Schema_del_file_xml_FatturaPA_v1.2.2.xsd',
    // the official file imports XML-DSig from w3.org: map it (in memory) to our local copy of the same schema
    rewrite: [['http://www.w3.org/TR/2002/REC-xmldsig-core-20020212/xmldsig-core-schema.xsd', '../ubl-2.1/common/UBL-xmldsig-core-schema-2.1.xsd']],
  },
  'pain.001': { name: 'pain.001.001.09', path: 'pain.001.001.09/pain.001.001.09.xsd' },
};

const loaded = new Map<string, XmlDocument>();

function schemaFor(syntax: DocumentSyntax): XmlDocument {
  const def = SCHEMAS[syntax];
  let s = loaded.get(def.path);
  if (!s) {
    const file = join(XSD_DIR, def.path);
    let text = readFileSync(file, 'utf8');
    for (const [from, to] of def.rewrite ?? []) text = text.split(from).join(to);
    // baseUrl lets libxml2 resolve the relative imports/includes from the vendored folder; no network
    s = libxml.parseXml(text, { baseUrl: `${dirname(file)}/`, nonet: true });
    loaded.set(def.path, s);
  }
  return s;
}

/** Load every schema now (start-up), so the first request does not pay for it. */
export function preloadSchemas(): void {
  for (const k of Object.keys(SCHEMAS) as DocumentSyntax[]) schemaFor(k);
}

export function schemaName(syntax: DocumentSyntax): string {
  return SCHEMAS[syntax].name;
}

/** Validate a parsed document; XSD errors become fatal findings with rule 'XSD'. */
export function validateXsd(doc: XmlDocument, syntax: DocumentSyntax): ValidationFinding[] {
  const schema = schemaFor(syntax);
  if (doc.validate(schema)) return [];
  return doc.validationErrors.map((e) => ({
    rule: 'XSD',
    severity: 'fatal' as const,
    location: e.line ? `line ${e.line}${e.column ? `, column ${e.column}` : ''}` : '',
    bt: [],
    message: `Schema (${SCHEMAS[syntax].name}) error${e.line ? ` at line ${e.line}` : ''}: ${e.message.trim()}`,
    hint: 'Fix the document structure so it conforms to the XML schema of its syntax (element order, required elements, data types).',
    source: `xsd:${SCHEMAS[syntax].name}`,
  }));
}
