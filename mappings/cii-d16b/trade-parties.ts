/**
 * Readers of the trade-party parts CII shares across its versions (D16B, and the 2013 CII of
 * ZUGFeRD 1.0): identifiers with their scheme, postal address, contact. Element names are matched
 * by local name, so both vocabularies read alike.
 */
import type { Address, Contact, SchemedId } from '../canonical/model.ts';
import { defined, nonEmpty } from '../canonical/object.ts';
import { attr, kids, txt } from '../xml/tree.ts';
import type { XEl } from '../xml/tree.ts';

export function schemed(el: XEl | undefined, schemeAttr = 'schemeID'): SchemedId | undefined {
  const value = el?.text.trim();
  if (!el || !value) return undefined;
  return defined({ value, scheme: attr(el, schemeAttr) });
}

export function address(el: XEl | undefined): Address | undefined {
  if (!el) return undefined;
  return nonEmpty<Address>({
    line1: txt(el, 'LineOne'),
    line2: txt(el, 'LineTwo'),
    line3: txt(el, 'LineThree'),
    city: txt(el, 'CityName'),
    postalCode: txt(el, 'PostcodeCode'),
    subdivision: txt(el, 'CountrySubDivisionName'),
    country: txt(el, 'CountryID'),
  });
}

export function contact(el: XEl | undefined): Contact | undefined {
  if (!el) return undefined;
  return nonEmpty<Contact>({
    name: txt(el, 'PersonName') ?? txt(el, 'DepartmentName'),
    phone: txt(el, 'TelephoneUniversalCommunication', 'CompleteNumber'),
    email: txt(el, 'EmailURIUniversalCommunication', 'URIID'),
  });
}

/** BT-29 / BT-46 / BT-60: ram:ID (no scheme) and ram:GlobalID (ISO 6523 scheme). */
export function identifiers(p: XEl | undefined): SchemedId[] {
  const out: SchemedId[] = [];
  for (const id of kids(p, 'ID')) { const s = schemed(id); if (s) out.push(s); }
  for (const id of kids(p, 'GlobalID')) { const s = schemed(id); if (s) out.push(s); }
  return out;
}
