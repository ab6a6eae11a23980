/**
 * The EPC SEPA usage rules for text in a credit-transfer file (EPC132-08, "Character set"): banks
 * must accept only the basic Latin set `a-z A-Z 0-9 / - ? : ( ) . , ' +` and space, so every name
 * and remittance text is transliterated to it (diacritics dropped, a few letters spelled out, any
 * other character a space) and cut to its field's maximum length. Identifiers (message, payment
 * and end-to-end ids) follow the stricter rule: that set without spaces, and never starting or
 * ending with `/` nor holding `//`.
 */

const SPELLED: Readonly<Record<string, string>> = {
  ß: 'ss', Æ: 'AE', æ: 'ae', Ø: 'O', ø: 'o', Œ: 'OE', œ: 'oe', Ł: 'L', ł: 'l', Đ: 'D', đ: 'd', Þ: 'TH', þ: 'th', '&': '+', '€': 'EUR',
  '"': "'", '‘': "'", '’': "'", '“': "'", '”': "'", '–': '-', '—': '-', _: '-', '\\': '/',
};

const ALLOWED = /[A-Za-z0-9/\-?:().,'+ ]/;

/** Text in the EPC character set, whitespace collapsed, at most `max` characters (trailing space trimmed). */
export function sepaText(value: string, max: number): string {
  let out = '';
  for (const ch of value.normalize('NFD')) {
    if (/\p{M}/u.test(ch)) continue; // combining diacritic, its base letter is kept
    const spelled = SPELLED[ch];
    if (spelled !== undefined) out += spelled;
    else out += ALLOWED.test(ch) ? ch : ' ';
  }
  return out.replace(/\s+/g, ' ').trim().slice(0, max).trim();
}

/** An identifier in the EPC set: no spaces, no leading/trailing `/`, no `//`; at most `max` characters. */
export function sepaId(value: string, max = 35): string {
  const text = sepaText(value, 4 * max).replace(/ /g, '').replace(/\/{2,}/g, '/').replace(/^\/+|\/+$/g, '');
  return text.slice(0, max).replace(/\/+$/, '');
}
