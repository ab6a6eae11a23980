/**
 * The rule ids the API shows for findings whose official id is not the one the spec names.
 *
 * The spec (Errors) says Belgian validation errors appear as `BR-BE-*` on the synchronous send
 * response. Belgium has no official BR-BE rule set: the Belgian rules we ship (schematrons/br-be) are
 * UBL.BE's, whose official ids are `ubl-BE-NN`, and the pack keeps them (the conformance runs count
 * official ids). So the API publishes each under `BR-BE-NN`, the same number and the same rule, and
 * keeps the UBL.BE id beside it in `sourceRule`:
 *
 *   ubl-BE-01 … ubl-BE-15  →  BR-BE-01 … BR-BE-15
 */
const UBL_BE = /^ubl-BE-(\d{2})$/;

/** `rule` as the API shows it, and the official id when that differs. */
export function publishedRuleId(rule: string): { rule: string; sourceRule?: string } {
  const be = UBL_BE.exec(rule);
  if (be) return { rule: `BR-BE-${be[1]}`, sourceRule: rule };
  return { rule };
}
