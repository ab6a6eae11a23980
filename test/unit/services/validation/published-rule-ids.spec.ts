/** The API's rule ids: UBL.BE's ubl-BE-NN shown as BR-BE-NN (spec, Errors), every other id as it is. */
import { publishedRuleId } from '../../../../services/validation/published-rule-ids.ts';

it('publishes ubl-BE-01 … ubl-BE-15 as BR-BE-01 … BR-BE-15, keeping the UBL.BE id', () => {
  for (let n = 1; n <= 15; n++) {
    const nn = String(n).padStart(2, '0');
    expect(publishedRuleId(`ubl-BE-${nn}`)).toEqual({ rule: `BR-BE-${nn}`, sourceRule: `ubl-BE-${nn}` });
  }
});

it('leaves every other rule id alone', () => {
  for (const rule of ['BR-CO-10', 'PEPPOL-EN16931-R001', 'BR-FR-12', 'XSD', 'RULE-EVALUATION-ERROR', 'ubl-BE-1', 'UBL-BE-01', 'BR-BE-01']) {
    expect(publishedRuleId(rule)).toEqual({ rule });
  }
});
