/**
 * The legal clocks of a change of approved platform (spec: Limits, "Portability clocks"): the
 * outgoing platform acknowledges within 24 hours and decides within 5 business days — weekends and
 * French public holidays excluded, silence being agreement — and keeps receiving for 12 months after
 * the effective date (`minimalServiceMonths` overrides).
 *
 * Business days are French calendar days, read in Europe/Paris: a request filed at 23:30 in Paris on
 * a Friday is filed on that Friday, whatever UTC says. Public holidays come from date-holidays
 * (country FR, type `public`: the eleven jours fériés), never from a list of ours. Every instant is
 * computed from the time it is given, which callers take from the platform clock (the sandbox's
 * virtual clock moves it).
 */
import Holidays from 'date-holidays';

export const PARIS = 'Europe/Paris';
export const ACKNOWLEDGE_HOURS = 24;
export const DECISION_BUSINESS_DAYS = 5;
export const DEFAULT_SERVICE_MONTHS = 12;

const DAY_MS = 86_400_000;
const frenchCalendar = new Holidays('FR');
const holidaysByYear = new Map<number, ReadonlySet<string>>();

/** The French public holidays of a year, as `YYYY-MM-DD` (date-holidays, type `public`). */
export function publicHolidays(year: number): ReadonlySet<string> {
  let days = holidaysByYear.get(year);
  if (!days) {
    days = new Set(frenchCalendar.getHolidays(year).filter((h) => h.type === 'public').map((h) => h.date.slice(0, 10)));
    holidaysByYear.set(year, days);
  }
  return days;
}

const parisDay = new Intl.DateTimeFormat('en-CA', { timeZone: PARIS, year: 'numeric', month: '2-digit', day: '2-digit' });
const parisOffset = new Intl.DateTimeFormat('en-US', { timeZone: PARIS, timeZoneName: 'longOffset' });

/** The calendar date (`YYYY-MM-DD`) of an instant in Paris. */
export function parisDate(at: Date): string {
  return parisDay.format(at);
}

/** `YYYY-MM-DD` plus `days` calendar days. */
export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/** `YYYY-MM-DD` plus `months` calendar months (the 31st becomes the month's last day). */
export function addMonths(date: string, months: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const target = new Date(Date.UTC(y, m - 1 + months, 1));
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(d, lastDay));
  return target.toISOString().slice(0, 10);
}

export function isBusinessDay(date: string): boolean {
  const weekday = new Date(`${date}T12:00:00Z`).getUTCDay();
  if (weekday === 0 || weekday === 6) return false;
  return !publicHolidays(Number(date.slice(0, 4))).has(date);
}

/** The `n`th business day strictly after `date`. */
export function addBusinessDays(date: string, n: number): string {
  let day = date;
  for (let counted = 0; counted < n;) {
    day = addDays(day, 1);
    if (isBusinessDay(day)) counted++;
  }
  return day;
}

/** The first business day strictly after `date`. */
export const nextBusinessDay = (date: string): string => addBusinessDays(date, 1);

/** The last business day strictly before `date`. */
export function previousBusinessDay(date: string): string {
  let day = addDays(date, -1);
  while (!isBusinessDay(day)) day = addDays(day, -1);
  return day;
}

/** Paris's offset from UTC at an instant, in minutes. */
function parisOffsetMinutes(at: Date): number {
  const name = parisOffset.formatToParts(at).find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
  const m = /GMT([+-])(\d{2}):(\d{2})/.exec(name);
  return m ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : 0;
}

/**
 * The instant a Paris calendar day starts (00:00 Europe/Paris). The offset is read at the guessed
 * instant itself, so a day on which daylight saving changes (at 02:00 or 03:00) starts right.
 */
export function parisMidnight(date: string): Date {
  const utcMidnight = Date.parse(`${date}T00:00:00Z`);
  const guess = new Date(utcMidnight - parisOffsetMinutes(new Date(`${date}T12:00:00Z`)) * 60_000);
  return new Date(utcMidnight - parisOffsetMinutes(guess) * 60_000);
}

export interface LegalClocks {
  /** The outgoing platform acknowledges by then (24 hours after filing). */
  notifyBy: string;
  /** The end of the 5th business day after the filing day (Paris): an objection after it is late, silence is agreement. */
  objectionWindowEnds: string;
  /** The new directory line must be published by then: the business day before the effective date, at 00:00 Paris. */
  annuaireUpdateBy: string;
  /** The outgoing platform keeps receiving until then (the effective date plus `minimalServiceMonths`). */
  continuityUntil: string;
}

/** The first business day after the objection window could close: the default effective date. */
export function defaultEffectiveDate(filedAt: Date): string {
  return nextBusinessDay(addBusinessDays(parisDate(filedAt), DECISION_BUSINESS_DAYS));
}

export function legalClocks(filedAt: Date, effectiveDate: string, serviceMonths = DEFAULT_SERVICE_MONTHS): LegalClocks {
  const lastDecisionDay = addBusinessDays(parisDate(filedAt), DECISION_BUSINESS_DAYS);
  return {
    notifyBy: new Date(filedAt.getTime() + ACKNOWLEDGE_HOURS * 3_600_000).toISOString(),
    objectionWindowEnds: new Date(parisMidnight(addDays(lastDecisionDay, 1)).getTime() - 1).toISOString(),
    annuaireUpdateBy: parisMidnight(previousBusinessDay(effectiveDate)).toISOString(),
    continuityUntil: addMonths(effectiveDate, serviceMonths),
  };
}
