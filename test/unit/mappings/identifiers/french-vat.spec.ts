import { frenchVatOfSiren, sirenOfFrenchVat } from '../../../../mappings/identifiers/vat.ts';

it('gives a SIREN its French VAT number (numeric key (12 + 3 × (SIREN mod 97)) mod 97), and back', () => {
  // The administration's published example: SIREN 404 833 048 is FR 83 404 833 048.
  expect(frenchVatOfSiren('404833048')).toBe('FR83404833048');
  // A key under 10 keeps its leading zero.
  expect(frenchVatOfSiren('100090000')).toBe('FR13100090000');
  expect(frenchVatOfSiren('000000000')).toBe('FR12000000000');
  expect(frenchVatOfSiren('000000001')).toBe('FR15000000001');
  expect(frenchVatOfSiren('000000029')).toBe('FR02000000029');
  expect(sirenOfFrenchVat(frenchVatOfSiren('732829320'))).toBe('732829320');
});
