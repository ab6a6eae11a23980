/**
 * The Peppol MLS rules (pack schematrons/peppol-mls, SCH-MLS-01 … 31) on a Message Level Status.
 *
 *   import { validateMls } from './services/validation/engine/mls.ts';
 *   validateMls(xml)   // [] when the MLS meets every rule; else [{ rule: 'SCH-MLS-20', flag: 'fatal', message, location }]
 *
 * An MLS is a UBL ApplicationResponse, a root that `validate()` does not take (it validates
 * invoices): this entry does the same hardened intake (no DOCTYPE or entities, the shape caps,
 * libxml2 without entity substitution or network) for that one root and runs the MLS pack on it,
 * whatever the document's CustomizationID says (a wrong one is SCH-MLS-01). No XSD check: the
 * UBL ApplicationResponse schema is not vendored; the rules are written to report, not to fail,
 * on repeated elements the schema would refuse. Pure module, not wired into the API.
 */
import libxml from 'libxmljs2';
import type { Document as XmlDocument } from 'libxmljs2';
import { assertXmlWithinLimits } from '../../../mappings/xml/limits.ts';
import { treeOfParsed } from '../../../mappings/xml/tree.ts';
import { getRegistry } from './index.ts';
import { assertNoDoctype, decodeXml, SAFE_PARSE_OPTIONS } from './xml-input.ts';
import { InvalidXmlInputError, type Severity } from './types.ts';
import { parseForSaxon, runPack } from './run-pack.ts';
import { indexTree } from './compiled/tree.ts';
import { DocumentContext, runCompiledPack } from './compiled/pack.ts';

export const MLS_PACK = 'peppol-mls';
const APPLICATION_RESPONSE = '{urn:oasis:names:specification:ubl:schema:xsd:ApplicationResponse-2}ApplicationResponse';

export interface MlsFinding {
  /** SCH-MLS-NN, or RULE-EVALUATION-ERROR when the pack could not be evaluated */
  rule: string;
  flag: Severity;
  message: string;
  /** XPath of the offending node (prefixes ubl, cac, cbc) */
  location: string;
}

const refuse = (message: string, rule: string): never => {
  throw new InvalidXmlInputError(message, [{ field: 'body', rule, message }]);
};

/** Text and tree of an MLS; throws InvalidXmlInputError for anything but a well-formed, DTD-free ApplicationResponse. */
function parseMls(input: string | Uint8Array): { text: string; doc: XmlDocument } {
  const text = decodeXml(input);
  if (text.trim() === '') refuse('The document is empty.', 'well-formed');
  assertNoDoctype(text);
  assertXmlWithinLimits(text, undefined, 'body');
  let doc: XmlDocument;
  try {
    doc = libxml.parseXml(text, SAFE_PARSE_OPTIONS);
  } catch (e) {
    return refuse(`The document is not well-formed XML: ${((e as Error).message ?? String(e)).trim()}`, 'well-formed');
  }
  if (doc.getDtd()) refuse('DOCTYPE declarations are not allowed.', 'no-doctype');
  const root = doc.root();
  if (!root) return refuse('The document has no root element.', 'well-formed');
  const rootName = `{${root.namespace()?.href() ?? ''}}${root.name()}`;
  if (rootName !== APPLICATION_RESPONSE) refuse(`Not an MLS: root element ${rootName}; expected ${APPLICATION_RESPONSE}.`, 'root-element');
  return { text, doc };
}

/**
 * The MLS rules' findings on an MLS document (empty: valid). `engine: 'saxon'` runs the pack's
 * SEF on saxon-js instead of the generated JavaScript (the reference the tests compare with).
 */
export function validateMls(xml: string | Uint8Array, options: { engine?: 'compiled' | 'saxon' } = {}): MlsFinding[] {
  const { text, doc } = parseMls(xml);
  const reg = getRegistry();
  const file = reg.byIds([MLS_PACK], 'ubl')[0];
  if (!file) throw new Error(`The ${MLS_PACK} pack is not compiled: run "npm run build:schematrons" first.`);
  const mod = options.engine === 'saxon' ? null : reg.loadCompiled(file);
  const findings = mod
    ? runCompiledPack(reg.load(file), mod, new DocumentContext(text, indexTree(treeOfParsed(doc, text))))
    : runPack(reg.load(file), parseForSaxon(text));
  return findings.map((f) => ({ rule: f.rule, flag: f.severity, message: f.message, location: f.location }));
}
