import { checkIssuer } from '../../../../mappings/canonical/issuer.ts';
import type { CanonicalInvoice } from '../../../../mappings/canonical/model.ts';

const company = { vatNumber: 'BE0123456749', registrationNumber: '0123456749', peppolId: '0208:0123456749' };
type Parties = Pick<CanonicalInvoice, 'typeCode' | 'seller' | 'buyer' | 'payee' | 'taxRepresentative'>;
const other = { name: 'Someone Else', vatId: 'FR40303265045' };
const doc = (p: Partial<Parties>): Parties => ({ typeCode: '380', seller: other, buyer: { name: 'Client', vatId: 'NL123456789B01' }, ...p });

describe('checkIssuer: the company must be the issuing party', () => {
  it('accepts a seller carrying any of the company identifiers, in any usual spelling', () => {
    expect(checkIssuer(doc({ seller: { name: 'Us', vatId: 'BE0123456749' } }), company)).toEqual({ ok: true, role: 'seller' });
    expect(checkIssuer(doc({ seller: { name: 'Us', vatId: 'be 0123.456.749' } }), company)).toEqual({ ok: true, role: 'seller' });
    expect(checkIssuer(doc({ seller: { name: 'Us', legalRegistration: { value: '0123456749', scheme: '0208' } } }), company)).toEqual({ ok: true, role: 'seller' });
    expect(checkIssuer(doc({ seller: { name: 'Us', electronicAddress: { scheme: '0208', value: '0123456749' } } }), company)).toEqual({ ok: true, role: 'seller' });
    expect(checkIssuer(doc({ seller: { name: 'Us', electronicAddress: { scheme: '9925', value: 'BE0123456749' } } }), company)).toEqual({ ok: true, role: 'seller' });
    expect(checkIssuer(doc({ seller: { name: 'Us', identifiers: [{ value: '0123456749' }] } }), company)).toEqual({ ok: true, role: 'seller' });
  });

  it('refuses another seller, naming what the document carries', () => {
    expect(checkIssuer(doc({ seller: { name: 'Them', vatId: 'BE0403170701', electronicAddress: { scheme: '0208', value: '0403170701' } } }), company))
      .toEqual({ ok: false, expected: 'seller', named: ['VAT BE0403170701', 'electronic address 0208:0403170701'] });
  });

  it('accepts the seller\'s tax representative and the payee as the sending company', () => {
    expect(checkIssuer(doc({ taxRepresentative: { name: 'Rep', vatId: 'BE0123456749', address: { country: 'BE' } } }), company)).toEqual({ ok: true, role: 'taxRepresentative' });
    expect(checkIssuer(doc({ payee: { name: 'Factor', legalRegistration: { value: '0123456749' } } }), company)).toEqual({ ok: true, role: 'payee' });
  });

  it('self-billing: the buyer issues, so the buyer must be the company and the seller may be anyone', () => {
    expect(checkIssuer(doc({ typeCode: '389', buyer: { name: 'Us', vatId: 'BE0123456749' } }), company)).toEqual({ ok: true, role: 'buyer' });
    expect(checkIssuer(doc({ typeCode: '261', buyer: { name: 'Us', electronicAddress: { scheme: '0208', value: '0123456749' } } }), company)).toEqual({ ok: true, role: 'buyer' });
    expect(checkIssuer(doc({ typeCode: '389', seller: { name: 'Us', vatId: 'BE0123456749' } }), company)).toMatchObject({ ok: false, expected: 'buyer' });
  });

  it('short values never match, and a company without identifiers cannot be checked', () => {
    expect(checkIssuer(doc({ seller: { name: 'X', identifiers: [{ value: '1' }] } }), { registrationNumber: '1' })).toEqual({ ok: true, role: null });
    expect(checkIssuer(doc({ seller: { name: 'X', identifiers: [{ value: '1234' }] } }), { registrationNumber: '1234', vatNumber: 'BE0123456749' })).toMatchObject({ ok: false });
    expect(checkIssuer(doc({}), {})).toEqual({ ok: true, role: null });
  });
});
