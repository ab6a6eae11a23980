/**
 * XSD validation. Each schema is compiled once from the vendored copies in schematrons/xsd/ into a
 * libxml2-wasm `XsdValidator` and kept for the life of the process: libxmljs2 0.37 re-compiles the
 * schema on every `validate()` (25–30 ms for UBL, most of a small invoice's validation time), while
 * a compiled validator checks a document in about a millisecond. libxmljs2 keeps its role for the
 * hardened parse (xml-input.ts); test/unit/services/validation/xsd-parity.spec.ts proves both give
 * the same verdicts and messages on the corpus.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ParseOption, XmlDocument, XmlValidateError, XsdValidator } from 'libxml2-wasm';
import { xmlRegisterFsInputProviders } from 'libxml2-wasm/lib/nodejs.mjs';
import { SCHEMATRONS_DIR } from '../../../schematrons/packs.ts';
import type { DocumentSyntax, ValidationFinding } from './types.ts';

const XSD_DIR = join(SCHEMATRONS_DIR, 'xsd');

interface SchemaDef { name: string; path: string; rewrite?: [string, string][] }

const SCHEMAS: Record<DocumentSyntax, SchemaDef> = {
  'ubl-invoice': { name: 'ubl-2.1', path: 'ubl-2.1/maindoc/UBL-Invoice-2.1.xsd' },
  'ubl-creditnote': { name: 'ubl-2.1', path: 'ubl-2.1/maindoc/UBL-CreditNote-2.1.xsd' },
  // Purchase orders (Peppol BIS Order 3.0): the schema only, no rule pack of ours covers them yet.
  'ubl-order': { name: 'ubl-2.1', path: 'ubl-2.1/maindoc/UBL-Order-2.1.xsd' },
  cii: { name: 'cii-d16b', path: 'cii-d16b/CII/uncefact/data/standard/CrossIndustryInvoice_100pD16B.xsd' },
  cdar: { name: 'cdar-d22b', path: 'cdar-d22b/CrossDomainAcknowledgementAndResponse_100pD22B.xsd' },
  fatturapa: {
    name: 'fatturapa-1.2.2', path: 'fatturapa-1.2.2/Schema_del_file_xml_FatturaPA_v1.2.2.xsd',
    // the official file imports XML-DSig from w3.org: map it (in memory) to our local copy of the same schema
    rewrite: [['http://www.w3.org/TR/2002/REC-xmldsig-core-20020212/xmldsig-core-schema.xsd', '../ubl-2.1/common/UBL-xmldsig-core-schema-2.1.xsd']],
  },
  'pain.001': { name: 'pain.001.001.09', path: 'pain.001.001.09/pain.001.001.09.xsd' },
  'zugferd-1': { name: 'zugferd-1.0', path: 'zugferd-1.0/ZUGFeRD1p0.xsd' },
};

const compiled = new Map<string, XsdValidator>();
let fsProvidersRegistered = false;

function validatorFor(syntax: DocumentSyntax): XsdValidator {
  const def = SCHEMAS[syntax];
  let v = compiled.get(def.path);
  if (!v) {
    // The schemas' relative imports and includes are read from the vendored folder (files only).
    if (!fsProvidersRegistered) fsProvidersRegistered = xmlRegisterFsInputProviders() || true;
    const file = join(XSD_DIR, def.path);
    let text = readFileSync(file, 'utf8');
    for (const [from, to] of def.rewrite ?? []) text = text.split(from).join(to);
    const schemaDoc = XmlDocument.fromString(text, { url: file, option: ParseOption.XML_PARSE_NONET });
    v = XsdValidator.fromDoc(schemaDoc);
    compiled.set(def.path, v);
  }
  return v;
}

/** Load every schema now (start-up), so the first request does not pay for it. */
export function preloadSchemas(): void {
  for (const k of Object.keys(SCHEMAS) as DocumentSyntax[]) validatorFor(k);
}

export function schemaName(syntax: DocumentSyntax): string {
  return SCHEMAS[syntax].name;
}

/**
 * Validates a document's text (already checked by xml-input.ts: well-formed, no DOCTYPE, within the
 * shape caps); XSD errors become fatal findings with rule 'XSD'.
 */
export function validateXsd(text: string, syntax: DocumentSyntax): ValidationFinding[] {
  const validator = validatorFor(syntax);
  const doc = XmlDocument.fromString(text, { option: ParseOption.XML_PARSE_NONET });
  try {
    validator.validate(doc);
    return [];
  } catch (err) {
    if (!(err instanceof XmlValidateError)) throw err;
    return err.details.map((e) => ({
      rule: 'XSD',
      severity: 'fatal' as const,
      location: e.line ? `line ${e.line}${e.col ? `, column ${e.col}` : ''}` : '',
      bt: [],
      message: `Schema (${SCHEMAS[syntax].name}) error${e.line ? ` at line ${e.line}` : ''}: ${e.message.trim()}`,
      hint: 'Fix the document structure so it conforms to the XML schema of its syntax (element order, required elements, data types).',
      source: `xsd:${SCHEMAS[syntax].name}`,
    }));
  } finally {
    doc.dispose();
  }
}
