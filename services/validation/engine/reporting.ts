/**
 * The Peppol Reporting rules (pack schematrons/peppol-reporting: TSR 1.0 SCH-TSR-NN, EUSR 1.1
 * SCH-EUSR-NN) on a Transaction Statistics Report or an End User Statistics Report.
 *
 *   import { validateReport } from './services/validation/engine/reporting.ts';
 *   validateReport(xml)   // [] when the report meets every rule; else [{ rule: 'SCH-TSR-04', flag: 'fatal', message, location }]
 *
 * A report is not an invoice, a root that `validate()` does not take: this entry does the same
 * hardened intake as validateMls (no DOCTYPE or entities, the shape caps, libxml2 without entity
 * substitution or network) for the two report roots and runs the release of the pack the
 * document's CustomizationID selects (pack.json `customizationIdContains`); a report whose
 * CustomizationID selects none gets the release of its root element (and SCH-TSR-01 / SCH-EUSR-01).
 * No XSD check: the report schemas are not vendored. Pure module, not wired into the API.
 */
import libxml from 'libxmljs2';
import type { Document as XmlDocument } from 'libxmljs2';
import { assertXmlWithinLimits } from '../../../mappings/xml/limits.ts';
import { treeOfParsed } from '../../../mappings/xml/tree.ts';
import { childElements } from '../../../mappings/xml/parse.ts';
import { getRegistry } from './index.ts';
import { assertNoDoctype, decodeXml, SAFE_PARSE_OPTIONS } from './xml-input.ts';
import { InvalidXmlInputError, type Severity } from './types.ts';
import { parseForSaxon, runPack } from './run-pack.ts';
import { indexTree } from './compiled/tree.ts';
import { DocumentContext, runCompiledPack } from './compiled/pack.ts';

export const REPORTING_PACK = 'peppol-reporting';
const TSR_NS = 'urn:fdc:peppol:transaction-statistics-report:1.0';
const EUSR_NS = 'urn:fdc:peppol:end-user-statistics-report:1.1';
/** Root element → the pack release that checks it when the CustomizationID selects none. */
const RELEASE_OF_ROOT: Record<string, { kind: 'tsr' | 'eusr'; release: string }> = {
  [`{${TSR_NS}}TransactionStatisticsReport`]: { kind: 'tsr', release: 'tsr-1.0.5' },
  [`{${EUSR_NS}}EndUserStatisticsReport`]: { kind: 'eusr', release: 'eusr-1.1.5' },
};

export interface ReportFinding {
  /** SCH-TSR-NN / SCH-EUSR-NN, or RULE-EVALUATION-ERROR when the pack could not be evaluated */
  rule: string;
  flag: Severity;
  message: string;
  /** XPath of the offending node */
  location: string;
}

const refuse = (message: string, rule: string): never => {
  throw new InvalidXmlInputError(message, [{ field: 'body', rule, message }]);
};

function parseReport(input: string | Uint8Array): { text: string; doc: XmlDocument; rootName: string } {
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
  if (!RELEASE_OF_ROOT[rootName]) {
    refuse(`Not a Peppol report: root element ${rootName}; expected ${Object.keys(RELEASE_OF_ROOT).join(' or ')}.`, 'root-element');
  }
  return { text, doc, rootName };
}

/**
 * The reporting rules' findings on a TSR or EUSR (empty: valid). `engine: 'saxon'` runs the pack's
 * SEF on saxon-js instead of the generated JavaScript (the reference the tests compare with).
 */
export function validateReport(xml: string | Uint8Array, options: { engine?: 'compiled' | 'saxon' } = {}): ReportFinding[] {
  const { text, doc, rootName } = parseReport(xml);
  const { release } = RELEASE_OF_ROOT[rootName]!;
  const root = doc.root()!;
  const customizationId = childElements(root, 'CustomizationID', root.namespace()?.href())[0]?.text().trim() ?? '';
  const reg = getRegistry();
  const files = reg.byIds([REPORTING_PACK], 'xml');
  if (files.length === 0) throw new Error(`The ${REPORTING_PACK} pack is not compiled: run "npm run build:schematrons" first.`);
  const file = files.find((f) => customizationId !== '' && f.version.startsWith(release.split('-')[0]!)
      && (f.select.customizationIdContains ?? []).some((c) => customizationId.includes(c)))
    ?? files.find((f) => f.version === release);
  if (!file) throw new Error(`The ${REPORTING_PACK}@${release} pack is not compiled: run "npm run build:schematrons" first.`);
  const mod = options.engine === 'saxon' ? null : reg.loadCompiled(file);
  const findings = mod
    ? runCompiledPack(reg.load(file), mod, new DocumentContext(text, indexTree(treeOfParsed(doc, text))))
    : runPack(reg.load(file), parseForSaxon(text));
  return findings.map((f) => ({ rule: f.rule, flag: f.severity, message: f.message, location: f.location }));
}
