/** Our French companies as the AFNOR directory shows them (pure). */
import { frenchEntity, matches, pageOf, pick, sirenOf, sortRows } from '../../../../../services/gateway/afnor/directory-lines.ts';
import type { FrenchCompany } from '../../../../../services/tenancy/tenancy.contract.ts';

const company = (over: Partial<FrenchCompany> = {}): FrenchCompany => ({
  id: 'comp_1', name: 'Atelier', legalName: 'Atelier SARL', siret: '73282932000017', registrationNumber: null, peppolId: '0009:732829320', vatNumber: 'FR44732829320',
  isPublic: false, address: { street: '2 rue de Lyon', city: 'Lyon', postalCode: '69001', country: 'FR' }, metadata: null, ...over,
});

it('tells the SIREN from the SIRET, the registration number, the Peppol id or the VAT number', () => {
  expect(sirenOf(company())).toBe('732829320');
  expect(sirenOf(company({ siret: null, registrationNumber: '303265045' }))).toBe('303265045');
  expect(sirenOf(company({ siret: null, peppolId: '0002:552100554' }))).toBe('552100554');
  expect(sirenOf(company({ siret: null, peppolId: null }))).toBe('732829320');
  expect(sirenOf(company({ siret: null, peppolId: null, vatNumber: 'BE0403170701' }))).toBeUndefined();
});

it('makes the legal unit, facility, valid routing codes and the three kinds of directory lines', () => {
  const e = frenchEntity(company({ isPublic: true, metadata: { routingCodes: [{ routingIdentifier: 'SVC-1', name: 'Achats' }, { routingIdentifier: 'no spaces allowed' }, 'junk'] } }))!;
  expect(e.legalUnit).toEqual({ siren: '732829320', businessName: 'Atelier SARL', entityType: 'Public', administrativeStatus: 'A' });
  expect(e.facility).toMatchObject({ siret: '73282932000017', name: 'Atelier', address: { addressLine1: '2 rue de Lyon', postalCode: '69001', locality: 'Lyon', countryCode: 'FR' } });
  expect(e.routingCodes.map((r) => [r.routingIdentifier, r.routingCodeName, r.routingIdentifierType])).toEqual([['SVC-1', 'Achats', '0224']]);
  expect(e.lines.map((l) => l.addressingIdentifier)).toEqual(['732829320', '732829320_73282932000017', '732829320_73282932000017_SVC-1']);
  expect(frenchEntity(company({ siret: null }))!.lines).toHaveLength(1);
});

it('matches, selects, sorts and pages as the annex\'s search bodies ask', () => {
  expect(matches('Atelier SARL', { op: 'contains', value: 'sarl' })).toBe(true);
  expect(matches('Atelier SARL', { op: 'startWith', value: 'sarl' })).toBe(false);
  expect(matches('Atelier SARL', { op: 'strict', value: 'atelier sarl' })).toBe(true);
  expect(matches(undefined, { value: 'x' })).toBe(false);
  expect(pick({ siren: '1', businessName: 'x', legalUnit: {} }, ['siren'])).toEqual({ siren: '1', legalUnit: {} });
  expect(sortRows([{ a: 'b' }, { a: 'a' }], [{ field: 'a', order: 'descending' }])).toEqual([{ a: 'b' }, { a: 'a' }]);
  expect(pageOf([1, 2, 3, 4], 2, 1)).toEqual([2, 3]);
});
