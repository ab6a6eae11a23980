/**
 * Exact decimal arithmetic for money. EN 16931 rounds amounts to two decimals, half away from zero
 * (BR-DEC-*), which is decimal.js ROUND_HALF_UP.
 */
import { Decimal as DecimalJs } from 'decimal.js';

/** A private decimal.js constructor so no other module's global configuration can change our rounding. */
export const Dec = DecimalJs.clone({ precision: 60, rounding: DecimalJs.ROUND_HALF_UP, toExpNeg: -30, toExpPos: 60 });
export type Dec = InstanceType<typeof Dec>;

const DECIMAL_RE = /^[+-]?(\d+\.?\d*|\.\d+)$/;

/** True when the text is a plain decimal number (no exponent, no thousands separator). */
export function isDecimalText(text: string): boolean {
  return DECIMAL_RE.test(text.trim());
}

/**
 * A JSON number or numeric string as exact decimal text. A JSON number is taken through its shortest
 * round-trip representation (`0.1` stays `0.1`), never through binary arithmetic.
 */
export function toDecimalText(value: unknown): string | undefined {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return undefined;
    return new Dec(String(value)).toFixed();
  }
  if (typeof value === 'string' && isDecimalText(value)) {
    const t = value.trim();
    return t.startsWith('+') ? t.slice(1) : t;
  }
  return undefined;
}

export function dec(value: string | number | Dec): Dec {
  return new Dec(value);
}

/** Rounded to two decimals and written with exactly two decimals (amount fields of BG-22/BG-23). */
export function money(value: Dec | string): string {
  return new Dec(value).toDecimalPlaces(2, Dec.ROUND_HALF_UP).toFixed(2);
}

export function sum(values: Iterable<Dec | string>): Dec {
  let total = new Dec(0);
  for (const v of values) total = total.plus(v);
  return total;
}
