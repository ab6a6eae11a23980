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
import { childElements } from '../../../mappings/xml/parse.ts';
import { getRegistry } from './index.ts';
import { parseXmlDocument, refuseRoot } from './xml-input.ts';
import { packMissing, runSinglePack, type EngineChoice, type PackFinding } from './single-pack.ts';

export const REPORTING_PACK = 'peppol-reporting';
const TSR_NS = 'urn:fdc:peppol:transaction-statistics-report:1.0';
const EUSR_NS = 'urn:fdc:peppol:end-user-statistics-report:1.1';
/** Root element → the pack release that checks it when the CustomizationID selects none. */
const RELEASE_OF_ROOT: Record<string, { kind: 'tsr' | 'eusr'; release: string }> = {
  [`{${TSR_NS}}TransactionStatisticsReport`]: { kind: 'tsr', release: 'tsr-1.0.5' },
  [`{${EUSR_NS}}EndUserStatisticsReport`]: { kind: 'eusr', release: 'eusr-1.1.5' },
};

/** SCH-TSR-NN / SCH-EUSR-NN (or RULE-EVALUATION-ERROR), severity, message and the offending node's XPath. */
export type ReportFinding = PackFinding;

/**
 * The reporting rules' findings on a TSR or EUSR (empty: valid). `engine: 'saxon'` runs the pack's
 * SEF on saxon-js instead of the generated JavaScript (the reference the tests compare with).
 */
export function validateReport(xml: string | Uint8Array, options: EngineChoice = {}): ReportFinding[] {
  const { text, doc, rootName } = parseXmlDocument(xml);
  if (!RELEASE_OF_ROOT[rootName]) refuseRoot(rootName, `a Peppol report (${Object.keys(RELEASE_OF_ROOT).join(' or ')})`);
  const { release } = RELEASE_OF_ROOT[rootName]!;
  const root = doc.root()!;
  const customizationId = childElements(root, 'CustomizationID', root.namespace()?.href())[0]?.text().trim() ?? '';
  const files = getRegistry().byIds([REPORTING_PACK], 'xml');
  const file = files.find((f) => customizationId !== '' && f.version.startsWith(release.split('-')[0]!)
      && (f.select.customizationIdContains ?? []).some((c) => customizationId.includes(c)))
    ?? files.find((f) => f.version === release);
  if (!file) throw packMissing(`${REPORTING_PACK}@${release}`);
  return runSinglePack(file, text, doc, options);
}
