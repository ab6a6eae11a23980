/**
 * The FA(3) code lists the mapping needs: the form code KSeF's session and the schema fix, the VAT
 * rate codes (P_12) with the totals bucket (P_13_x / P_14_x) each falls in, the payment forms, and
 * the Polish tax identifier (NIP) with its check digit.
 */
import { Dec } from '../canonical/decimal.ts';

/** FA(3) target namespace (schemat_FA(3)_v1-0E.xsd). */
export const FA3_NS = 'http://crd.gov.pl/wzor/2025/06/25/13775/';
/** The form code as `Naglowek/KodFormularza` states it and as `POST /sessions/online` asks for it (`formCode`). */
export const FA3_FORM_CODE = { systemCode: 'FA (3)', schemaVersion: '1-0E', value: 'FA' } as const;

/**
 * A totals bucket of `Fa`: the net field and, where the schema has one, its VAT field. The order is the
 * schema's element order.
 */
export interface Fa3Bucket { net: string; vat?: string; vatPln?: string }
export const FA3_BUCKETS: readonly Fa3Bucket[] = [
  { net: 'P_13_1', vat: 'P_14_1', vatPln: 'P_14_1W' }, // basic rate 23 % (or 22 %)
  { net: 'P_13_2', vat: 'P_14_2', vatPln: 'P_14_2W' }, // first reduced rate 8 % (or 7 %)
  { net: 'P_13_3', vat: 'P_14_3', vatPln: 'P_14_3W' }, // second reduced rate 5 %
  { net: 'P_13_4', vat: 'P_14_4', vatPln: 'P_14_4W' }, // taxi flat rate 4 % (or 3 %)
  { net: 'P_13_5', vat: 'P_14_5' }, // OSS special procedure (not produced from EN 16931)
  { net: 'P_13_6_1' }, // 0 % domestic
  { net: 'P_13_6_2' }, // 0 % intra-Community supply of goods (WDT)
  { net: 'P_13_6_3' }, // 0 % export
  { net: 'P_13_7' }, // exempt (zw)
  { net: 'P_13_8' }, // supply outside Poland (np I)
  { net: 'P_13_9' }, // services of art. 100(1)(4): EU B2B services, reverse charged abroad (np II)
  { net: 'P_13_10' }, // domestic reverse charge (oo)
  { net: 'P_13_11' }, // margin scheme (not produced from EN 16931)
];

/** Standard-rated percentages FA(3) knows (P_12) and their bucket. */
const STANDARD_RATES: Record<string, { code: string; bucket: string }> = {
  23: { code: '23', bucket: 'P_13_1' }, 22: { code: '22', bucket: 'P_13_1' },
  8: { code: '8', bucket: 'P_13_2' }, 7: { code: '7', bucket: 'P_13_2' },
  5: { code: '5', bucket: 'P_13_3' },
  4: { code: '4', bucket: 'P_13_4' }, 3: { code: '3', bucket: 'P_13_4' },
};

/** What one EN 16931 VAT category and rate (BT-151/BT-152, BT-118/BT-119) is in FA(3). */
export interface Fa3Rate { code: string; bucket: string }

/**
 * The P_12 code and bucket of a VAT category (UNCL5305) and rate; undefined when FA(3) has none.
 * AE (reverse charge) is `oo` (domestic reverse charge, P_13_10) for a Polish buyer and `np II`
 * (services taxed where the buyer is, P_13_9) for a foreign one: EN 16931 does not distinguish them,
 * the buyer's country does.
 */
export function fa3RateOf(category: string, rate: string | undefined, buyerCountry: string | undefined): Fa3Rate | undefined {
  switch (category) {
    case 'S': {
      if (rate === undefined) return undefined;
      let key: string;
      try { key = new Dec(rate).toFixed(); } catch { return undefined; }
      return STANDARD_RATES[key];
    }
    case 'Z': return { code: '0 KR', bucket: 'P_13_6_1' };
    case 'K': return { code: '0 WDT', bucket: 'P_13_6_2' };
    case 'G': return { code: '0 EX', bucket: 'P_13_6_3' };
    case 'E': return { code: 'zw', bucket: 'P_13_7' };
    case 'O': return { code: 'np I', bucket: 'P_13_8' };
    case 'AE': return buyerCountry && buyerCountry !== 'PL' ? { code: 'np II', bucket: 'P_13_9' } : { code: 'oo', bucket: 'P_13_10' };
    default: return undefined;
  }
}

/** The EN 16931 category and rate of a P_12 code (the reverse, for FA(3) → canonical). */
export function canonicalRateOf(code: string): { category: string; rate: string } | undefined {
  if (/^\d+$/.test(code) && STANDARD_RATES[code]) return { category: 'S', rate: new Dec(code).toFixed(2) };
  const table: Record<string, string> = { '0 KR': 'Z', '0 WDT': 'K', '0 EX': 'G', zw: 'E', 'np I': 'O', 'np II': 'AE', oo: 'AE' };
  const category = table[code];
  return category ? { category, rate: '0.00' } : undefined;
}

/**
 * FA(3) payment forms (TFormaPlatnosci: 1 cash, 2 card, 3 voucher, 4 cheque, 5 credit, 6 transfer,
 * 7 mobile) by UNCL4461 payment means code (BT-81); a code not listed travels as `PlatnoscInna`.
 */
export const PAYMENT_FORM_BY_UNCL4461: Readonly<Record<string, string>> = {
  10: '1', 48: '2', 54: '2', 55: '2', 20: '4', 30: '6', 31: '6', 42: '6', 58: '6', 68: '7',
};

const NIP_WEIGHTS = [6, 5, 7, 2, 3, 4, 5, 6, 7];

/** True for a 10-digit NIP whose check digit holds and that fits the schema's TNrNIP pattern. */
export function isValidNip(nip: string): boolean {
  if (!/^[1-9]((\d[1-9])|([1-9]\d))\d{7}$/.test(nip)) return false;
  const digits = [...nip].map(Number);
  const check = NIP_WEIGHTS.reduce((s, w, i) => s + w * digits[i]!, 0) % 11;
  return check !== 10 && check === digits[9];
}

/**
 * The NIP of a party: its VAT identifier (BT-31 / BT-48) `PL` + ten digits, else a ten-digit tax
 * registration (BT-32). Separators (`-`, spaces) are dropped. Undefined when the party names none.
 */
export function nipOf(party: { vatId?: string; taxRegistrationId?: string }): string | undefined {
  const vat = party.vatId?.replace(/[\s-]/g, '').toUpperCase();
  if (vat?.startsWith('PL') && /^\d{10}$/.test(vat.slice(2))) return vat.slice(2);
  const local = party.taxRegistrationId?.replace(/[\s-]/g, '');
  if (local && /^(PL)?\d{10}$/i.test(local)) return local.slice(-10);
  return undefined;
}

/** EU member-state codes of FA(3)'s TKodyKrajowUE (VAT prefixes: Greece is EL, Northern Ireland XI). */
export const EU_VAT_PREFIXES: ReadonlySet<string> = new Set(['AT', 'BE', 'BG', 'CY', 'CZ', 'DK', 'EE', 'FI', 'FR', 'DE', 'EL', 'HR', 'HU', 'IE', 'IT', 'LV', 'LT', 'LU', 'MT', 'NL', 'PL', 'PT', 'RO', 'SK', 'SI', 'ES', 'SE', 'XI']);
