/**
 * Who may send a document: the company that issues it. A document names its issuer through its
 * parties; a company may send it when one of these carries one of the company's identifiers:
 *
 * - the seller (BG-4: BT-29 identifiers, BT-30 legal registration, BT-31 VAT, BT-32 tax
 *   registration, BT-34 electronic address);
 * - the seller's tax representative (BG-11, BT-63 VAT), who files on the seller's behalf;
 * - the payee (BG-10, BT-60 / BT-61), a factor collecting the seller's invoices;
 * - for a self-billed document (type codes 261, 389, 500, 501, 502, 527), the buyer (BG-7) instead
 *   of all three: the buyer issues it.
 *
 * Identifiers compare without spaces, dots or dashes and case-insensitively; a VAT number also
 * matches without its two-letter prefix (BE0123456789 ~ 0123456789, the Belgian enterprise number),
 * and an electronic address with or without its scheme (0208:0123456789 ~ 0123456789). Values
 * shorter than 5 characters never match. A company with no identifier at all cannot be checked
 * and may send anything.
 */
import type { CanonicalInvoice, Party } from './model.ts';

/** UNCL1001 codes of self-billed documents. */
export const SELF_BILLED_TYPE_CODES: ReadonlySet<string> = new Set(['261', '389', '500', '501', '502', '527']);

export interface CompanyIdentity {
  vatNumber?: string | null;
  registrationNumber?: string | null;
  /** `<icd>:<value>` */
  peppolId?: string | null;
}

export type IssuerRole = 'seller' | 'taxRepresentative' | 'payee' | 'buyer';

export type IssuerCheck =
  | { ok: true; role: IssuerRole | null }
  /** `expected`: the party that should have been the company; `named`: the identifiers it carries instead. */
  | { ok: false; expected: 'seller' | 'buyer'; named: string[] };

const MIN_LENGTH = 5;

const normalise = (value: string): string => value.replace(/[\s.\-/]/g, '').toUpperCase();

/** The comparable forms of one identifier value. */
function forms(value: string | null | undefined, kind: 'vat' | 'address' | 'plain'): string[] {
  if (!value) return [];
  const v = normalise(value);
  const out = [v];
  if (kind === 'vat' && /^[A-Z]{2}[0-9A-Z]+$/.test(v)) out.push(v.slice(2));
  if (kind === 'address' && v.includes(':')) out.push(v.slice(v.indexOf(':') + 1));
  return out.filter((f) => f.length >= MIN_LENGTH);
}

function companyForms(company: CompanyIdentity): Set<string> {
  return new Set([...forms(company.vatNumber, 'vat'), ...forms(company.registrationNumber, 'plain'), ...forms(company.peppolId, 'address')]);
}

function partyIds(party: Party | undefined): Array<{ shown: string; forms: string[] }> {
  if (!party) return [];
  const address = party.electronicAddress ? `${party.electronicAddress.scheme ? `${party.electronicAddress.scheme}:` : ''}${party.electronicAddress.value}` : undefined;
  return [
    ...(party.vatId ? [{ shown: `VAT ${party.vatId}`, forms: forms(party.vatId, 'vat') }] : []),
    ...(party.legalRegistration ? [{ shown: `registration ${party.legalRegistration.value}`, forms: forms(party.legalRegistration.value, 'vat') }] : []),
    ...(party.taxRegistrationId ? [{ shown: `tax registration ${party.taxRegistrationId}`, forms: forms(party.taxRegistrationId, 'vat') }] : []),
    ...(party.identifiers ?? []).map((id) => ({ shown: `identifier ${id.value}`, forms: forms(id.value, 'vat') })),
    ...(address ? [{ shown: `electronic address ${address}`, forms: forms(address, 'address') }] : []),
  ];
}

const carries = (ids: Array<{ forms: string[] }>, mine: Set<string>): boolean => ids.some((id) => id.forms.some((f) => mine.has(f)));

/** Whether `company` may send `invoice` (see the module comment), and as which party. */
export function checkIssuer(invoice: Pick<CanonicalInvoice, 'typeCode' | 'seller' | 'buyer' | 'payee' | 'taxRepresentative'>, company: CompanyIdentity): IssuerCheck {
  const mine = companyForms(company);
  if (!mine.size) return { ok: true, role: null };
  if (invoice.typeCode && SELF_BILLED_TYPE_CODES.has(invoice.typeCode)) {
    const buyer = partyIds(invoice.buyer);
    return carries(buyer, mine) ? { ok: true, role: 'buyer' } : { ok: false, expected: 'buyer', named: buyer.map((i) => i.shown) };
  }
  const seller = partyIds(invoice.seller);
  if (carries(seller, mine)) return { ok: true, role: 'seller' };
  if (invoice.taxRepresentative && carries([{ forms: forms(invoice.taxRepresentative.vatId, 'vat') }], mine)) return { ok: true, role: 'taxRepresentative' };
  const payee = invoice.payee ? [invoice.payee.identifier?.value, invoice.payee.legalRegistration?.value].map((v) => ({ forms: forms(v, 'vat') })) : [];
  if (carries(payee, mine)) return { ok: true, role: 'payee' };
  return { ok: false, expected: 'seller', named: seller.map((i) => i.shown) };
}
