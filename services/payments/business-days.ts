/**
 * TARGET2 business days, the calendar SEPA credit transfers settle on: every weekday except the
 * TARGET closing days the ECB publishes (New Year's Day, Good Friday, Easter Monday, 1 May, 25 and
 * 26 December). A requested execution date that falls on a closing day is not processed that day,
 * so the export's default is the next business day.
 *
 * Dates are plain calendar dates (`YYYY-MM-DD`), computed in UTC so no time zone or daylight-saving
 * shift can move a day; Easter comes from the standard Gregorian computus (Meeus/Jones/Butcher).
 */

const DAY_MS = 86_400_000;

/** The date as `YYYY-MM-DD`, read in UTC. */
export function isoDate(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/** A `YYYY-MM-DD` that names a real day (2026-02-30 does not), as a UTC midnight, or undefined. */
export function parseIsoDate(value: string): Date | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return undefined;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return isoDate(d) === value ? d : undefined;
}

/** Easter Sunday of a Gregorian year (anonymous Gregorian algorithm, valid for every year from 1583). */
export function easterSunday(year: number): Date {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return new Date(Date.UTC(year, month - 1, day));
}

/** The TARGET closing days of a year, as `YYYY-MM-DD`. */
export function targetHolidays(year: number): string[] {
  const easter = easterSunday(year).getTime();
  const y = String(year).padStart(4, '0');
  return [
    `${y}-01-01`,
    isoDate(new Date(easter - 2 * DAY_MS)), // Good Friday
    isoDate(new Date(easter + DAY_MS)), // Easter Monday
    `${y}-05-01`,
    `${y}-12-25`,
    `${y}-12-26`,
  ].sort();
}

export function isTargetBusinessDay(d: Date): boolean {
  const weekday = d.getUTCDay();
  if (weekday === 0 || weekday === 6) return false;
  return !targetHolidays(d.getUTCFullYear()).includes(isoDate(d));
}

/** The first TARGET business day strictly after `d` (its calendar day, read in UTC). */
export function nextBusinessDay(d: Date): string {
  let day = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) + DAY_MS;
  // At most 4 closing days follow each other (Good Friday to Easter Monday plus a weekend is 4).
  for (let i = 0; i < 10 && !isTargetBusinessDay(new Date(day)); i++) day += DAY_MS;
  return isoDate(new Date(day));
}
