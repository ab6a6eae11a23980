/**
 * Code lists the mapping checks against. Values are the published code values (ISO 4217, UNCL1001,
 * UNCL5305, UNCL4461, VATEX, Incoterms); they are facts, written here so mappings/ stays self-contained.
 */

/** ISO 4217 alphabetic codes accepted by EN 16931 (BR-CL-03/04/05). */
export const CURRENCY_CODES: ReadonlySet<string> = new Set(
  ('AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BOV BRL BSD BTN BWP BYN BZD CAD CDF ' +
    'CHE CHF CHW CLF CLP CNY COP COU CRC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GNF ' +
    'GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD ' +
    'LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP ' +
    'PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP ' +
    'TRY TTD TWD TZS UAH UGX USD USN UYI UYU UYW UZS VED VES VND VUV WST XAF XAG XAU XBA XBB XBC XBD XCD XDR XOF XPD ' +
    'XPF XPT XSU XTS XUA YER ZAR ZMW ZWG XXX').split(' '),
);

/** UNCL1001 document type codes allowed for EN 16931 invoices and credit notes (BT-3). */
export const INVOICE_TYPE_CODES: ReadonlySet<string> = new Set(
  ('71 80 82 84 102 130 202 203 204 211 218 219 295 325 326 331 380 382 383 384 385 386 387 388 389 390 393 394 395 ' +
    '456 457 527 553 575 623 633 751 780 817 870 875 876 877 935').split(' '),
);
/** UNCL1001 codes whose document is a credit note (rendered as a UBL CreditNote). */
export const CREDIT_NOTE_TYPE_CODES: ReadonlySet<string> = new Set('81 83 261 262 296 308 381 396 420 458 532'.split(' '));

export const DOCUMENT_TYPE_CODES: ReadonlySet<string> = new Set([...INVOICE_TYPE_CODES, ...CREDIT_NOTE_TYPE_CODES]);

/** UNCL5305 duty/tax/fee category codes used by EN 16931 (BT-118, BT-151). */
export const VAT_CATEGORIES = ['S', 'Z', 'E', 'AE', 'K', 'G', 'O', 'L', 'M'] as const;
export type VatCategory = (typeof VAT_CATEGORIES)[number];

/** Categories that carry a 0 rate and need an exemption reason text or VATEX code. */
export const EXEMPT_CATEGORIES: ReadonlySet<string> = new Set(['E', 'AE', 'K', 'G', 'O']);

/** Incoterms accepted by the French extension (EXT-FR-FE-185); `1` and `2` are the reform's own values. */
export const INCOTERMS: ReadonlySet<string> = new Set(
  ['1', '2', 'EXW', 'FCA', 'CPT', 'CIP', 'DAP', 'DPU', 'DDP', 'FAS', 'FOB', 'CFR', 'CIF'],
);

/** UNCL4461 payment means codes (BT-81). */
export const PAYMENT_MEANS_CODES: ReadonlySet<string> = new Set(
  [...Array.from({ length: 68 }, (_, i) => String(i + 1)), '70', '74', '75', '76', '77', '78', '91', '92', '93', '94',
    '95', '96', '97', '98', 'ZZZ'],
);

/** Names the JSON API accepts for `payment.means`, with their UNCL4461 code. */
export const PAYMENT_MEANS_NAMES: Readonly<Record<string, string>> = {
  cash: '10',
  cheque: '20',
  check: '20',
  credit_transfer: '30',
  debit_transfer: '31',
  bank_giro: '42',
  bank_card: '48',
  card: '48',
  direct_debit: '49',
  standing_agreement: '57',
  sepa_credit_transfer: '58',
  sepa_direct_debit: '59',
  online_payment: '68',
  other: 'ZZZ',
};

/** ISO 3166-1 alpha-2 codes plus the EN 16931 extras `1A` (Kosovo) and `XI` (Northern Ireland). */
export const COUNTRY_CODES: ReadonlySet<string> = new Set(
  ('AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ ' +
    'CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO ' +
    'FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE ' +
    'JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO ' +
    'MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW ' +
    'PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM ' +
    'TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW 1A XI').split(' '),
);

/** VAT number prefixes that differ from the ISO country code. */
export function countryOfVatPrefix(prefix: string): string {
  if (prefix === 'EL') return 'GR';
  return prefix;
}

/** Peppol BIS Billing 3.0 identifiers (BT-24, BT-23). */
export const PEPPOL_BIS3_CUSTOMIZATION_ID = 'urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0';
export const PEPPOL_BIS3_PROFILE_ID = 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0';
