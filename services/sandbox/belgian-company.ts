import { randomInt } from 'node:crypto';

/**
 * A random but valid Belgian enterprise number for a seeded sandbox company: ten digits starting
 * with 0 or 1 whose last two digits are 97 − (first eight mod 97), as the Belgian register checks.
 * The Peppol id uses ICD 0208 (Belgian enterprise number).
 */
export function randomBelgianEnterpriseNumber(): string {
  const first8 = `0${randomInt(1_000_000, 10_000_000)}`;
  const check = 97 - (Number(first8) % 97);
  return `${first8}${String(check).padStart(2, '0')}`;
}

export function isValidBelgianEnterpriseNumber(digits: string): boolean {
  return /^[01]\d{9}$/.test(digits) && 97 - (Number(digits.slice(0, 8)) % 97) === Number(digits.slice(8));
}

export function seededBelgianCompany(label: string) {
  const enterprise = randomBelgianEnterpriseNumber();
  return {
    name: `${label} Sandbox BV`,
    country: 'BE',
    vatNumber: `BE${enterprise}`,
    registrationNumber: enterprise,
    peppolId: `0208:${enterprise}`,
    address: { street: 'Rue de la Loi 16', city: 'Brussels', postalCode: '1000', country: 'BE' },
  };
}
