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
import { getRegistry } from './index.ts';
import { parseXmlDocument, refuseRoot } from './xml-input.ts';
import { packMissing, runSinglePack, type EngineChoice, type PackFinding } from './single-pack.ts';

export const MLS_PACK = 'peppol-mls';
const APPLICATION_RESPONSE = '{urn:oasis:names:specification:ubl:schema:xsd:ApplicationResponse-2}ApplicationResponse';

/** SCH-MLS-NN (or RULE-EVALUATION-ERROR), severity, message and the offending node's XPath (prefixes ubl, cac, cbc). */
export type MlsFinding = PackFinding;

/**
 * The MLS rules' findings on an MLS document (empty: valid). `engine: 'saxon'` runs the pack's
 * SEF on saxon-js instead of the generated JavaScript (the reference the tests compare with).
 */
export function validateMls(xml: string | Uint8Array, options: EngineChoice = {}): MlsFinding[] {
  const { text, doc, rootName } = parseXmlDocument(xml);
  if (rootName !== APPLICATION_RESPONSE) refuseRoot(rootName, `an MLS (${APPLICATION_RESPONSE})`);
  const file = getRegistry().byIds([MLS_PACK], 'ubl')[0];
  if (!file) throw packMissing(MLS_PACK);
  return runSinglePack(file, text, doc, options);
}
