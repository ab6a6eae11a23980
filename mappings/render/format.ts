/**
 * How the readable renderings write amounts, quantities and dates. One place, so the HTML preview and
 * the PDF show the same text (the tests read one back and compare it with the other's source).
 * Amounts stay decimal strings: Intl formats the string itself (no binary floating point), and a
 * unit price keeps every digit the document states.
 */

/** Locale of the renderings: fixed, so a document always renders to the same bytes. */
export const RENDER_LOCALE = 'en-GB';

const currencyFormats = new Map<string, Intl.NumberFormat | null>();

function currencyFormat(currency: string, fractionDigits: number): Intl.NumberFormat | null {
  const key = `${currency}/${fractionDigits}`;
  let format = currencyFormats.get(key);
  if (format === undefined) {
    try {
      // The code rather than a symbol: "$" is ambiguous and many symbols are outside the PDF font.
      format = new Intl.NumberFormat(RENDER_LOCALE, { style: 'currency', currency, currencyDisplay: 'code', minimumFractionDigits: fractionDigits, maximumFractionDigits: fractionDigits });
    } catch {
      format = null;
    }
    currencyFormats.set(key, format);
  }
  return format;
}

const plainFormats = new Map<number, Intl.NumberFormat>();

function plainFormat(fractionDigits: number): Intl.NumberFormat {
  let format = plainFormats.get(fractionDigits);
  if (!format) {
    format = new Intl.NumberFormat(RENDER_LOCALE, { minimumFractionDigits: fractionDigits, maximumFractionDigits: fractionDigits });
    plainFormats.set(fractionDigits, format);
  }
  return format;
}

function decimalsOf(value: string): number {
  const dot = value.indexOf('.');
  return dot < 0 ? 0 : value.length - dot - 1;
}

/** Intl formats a decimal string exactly (ECMA-402 "Intl.NumberFormat v3"); the cast is for TS's lib, which types only number/bigint. */
const asFormattable = (value: string): number => value as unknown as number;

/**
 * An amount with its currency code: `EUR 1,234.50`. At least two decimals (the currency's own
 * minor unit would drop a unit price's third digit), more when the document states more. A value
 * that is no decimal, or a currency Intl does not know, is shown as written.
 */
export function formatAmount(value: string | undefined, currency: string): string {
  if (value === undefined || value === '') return '';
  const v = value.trim();
  if (!/^[+-]?(\d+\.?\d*|\.\d+)$/.test(v)) return `${v} ${currency}`.trim();
  const digits = Math.min(Math.max(2, decimalsOf(v)), 20);
  const format = currencyFormat(currency, digits);
  return format ? format.format(asFormattable(v)).replace(/\u00a0/g, ' ') : `${plainFormat(digits).format(asFormattable(v))} ${currency}`.trim();
}

/** A quantity or rate with the digits the document states: `1,000.5`. */
export function formatNumber(value: string | undefined): string {
  if (value === undefined || value === '') return '';
  const v = value.trim();
  if (!/^[+-]?(\d+\.?\d*|\.\d+)$/.test(v)) return v;
  return plainFormat(Math.min(decimalsOf(v), 20)).format(asFormattable(v));
}

/** A VAT rate: `20 %`, `5.5 %`; empty when the category carries none. */
export function formatRate(value: string | undefined): string {
  return value === undefined || value === '' ? '' : `${formatNumber(value)} %`;
}

/** An ISO date as written (YYYY-MM-DD): unambiguous in every language, and what the XML states. */
export function formatDate(value: string | undefined): string {
  return value ?? '';
}
