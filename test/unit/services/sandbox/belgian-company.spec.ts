import { randomBelgianEnterpriseNumber, isValidBelgianEnterpriseNumber, seededBelgianCompany } from '../../../../services/sandbox/belgian-company.ts';

it('mints valid Belgian enterprise numbers (mod-97 check digits) and a matching VAT and 0208 Peppol id', () => {
  for (let i = 0; i < 1000; i++) expect(isValidBelgianEnterpriseNumber(randomBelgianEnterpriseNumber())).toBe(true);
  expect(isValidBelgianEnterpriseNumber('0417497106')).toBe(true); // a published enterprise number
  expect(isValidBelgianEnterpriseNumber('0417497107')).toBe(false);
  const company = seededBelgianCompany('demo');
  expect(company.vatNumber).toBe(`BE${company.registrationNumber}`);
  expect(company.peppolId).toBe(`0208:${company.registrationNumber}`);
  expect(company.country).toBe('BE');
});
