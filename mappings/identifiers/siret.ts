/**
 * French establishment (SIRET, 14 digits) and company (SIREN, its first nine digits) numbers. Both
 * carry a Luhn check digit, except establishments of La Poste (SIREN 356000000), whose SIRETs
 * instead have a digit sum that is a multiple of 5 (INSEE's published exception).
 */
const LA_POSTE_SIREN = '356000000';

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) { d *= 2; if (d > 9) d -= 9; }
    sum += d;
  }
  return sum % 10 === 0;
}

export function isValidSiren(siren: string): boolean {
  return /^\d{9}$/.test(siren) && luhn(siren);
}

export function isValidSiret(siret: string): boolean {
  if (!/^\d{14}$/.test(siret)) return false;
  if (siret.startsWith(LA_POSTE_SIREN)) return [...siret].reduce((s, c) => s + Number(c), 0) % 5 === 0;
  return luhn(siret) && isValidSiren(siret.slice(0, 9));
}

export const sirenOfSiret = (siret: string): string => siret.slice(0, 9);
