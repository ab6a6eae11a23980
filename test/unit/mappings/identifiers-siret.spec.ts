import { isValidSiren, isValidSiret, sirenOfSiret } from '../../../mappings/identifiers/siret.ts';

describe('SIRET and SIREN check digits', () => {
  it('accepts real numbers and refuses a changed digit', () => {
    // INSEE's own SIRET (Direction générale) and SIREN.
    expect(isValidSiren('120027016')).toBe(true);
    expect(isValidSiret('12002701600357')).toBe(true);
    expect(isValidSiret('12002701600358')).toBe(false);
    expect(isValidSiren('120027017')).toBe(false);
    expect(isValidSiret('1200270160035')).toBe(false);
    expect(isValidSiret('1200270160035A')).toBe(false);
    expect(sirenOfSiret('12002701600357')).toBe('120027016');
  });

  it('La Poste establishments follow the digit-sum rule instead of Luhn', () => {
    expect(isValidSiret('35600000000047')).toBe(true); // digit sum 25
    expect(isValidSiret('35600000000048')).toBe(false);
  });
});
