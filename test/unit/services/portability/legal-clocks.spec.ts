/**
 * The portability clocks on dated cases: 5 business days skip weekends and French public holidays
 * (from date-holidays), the filing day is the Paris calendar day, the objection window closes at
 * the end of its last day in Paris (summer and winter time), and the continuity runs 12 months (or
 * the override) from the effective date.
 */
import { addBusinessDays, addMonths, defaultEffectiveDate, isBusinessDay, legalClocks, parisDate, parisMidnight, publicHolidays } from '../../../../services/portability/legal-clocks.ts';

it('knows the eleven French public holidays of a year, and not the observances', () => {
  const days = publicHolidays(2026);
  expect(days.size).toBe(11);
  for (const d of ['2026-01-01', '2026-04-06', '2026-05-01', '2026-05-08', '2026-05-14', '2026-05-25', '2026-07-14', '2026-08-15', '2026-11-01', '2026-11-11', '2026-12-25']) expect(days.has(d)).toBe(true);
  expect(days.has('2026-05-24')).toBe(false); // Pentecost Sunday is an observance
  expect(isBusinessDay('2026-05-14')).toBe(false); // Ascension, a Thursday
  expect(isBusinessDay('2026-05-16')).toBe(false); // Saturday
  expect(isBusinessDay('2026-05-15')).toBe(true);
});

it('counts 5 business days past weekends and holidays (May 2026: 8 May and Ascension)', () => {
  // Wed 6 May → Thu 7, (Fri 8 holiday), Mon 11, Tue 12, Wed 13, (Thu 14 Ascension), Fri 15.
  expect(addBusinessDays('2026-05-06', 5)).toBe('2026-05-15');
  // Fri 24 Dec 2027 → (25, 26 weekend) Mon 27 … Fri 31.
  expect(addBusinessDays('2027-12-24', 5)).toBe('2027-12-31');
});

it('files on the Paris calendar day and closes the window at the end of its last day in Paris', () => {
  const filed = new Date('2026-05-06T09:00:00Z');
  const clocks = legalClocks(filed, defaultEffectiveDate(filed));
  expect(clocks.notifyBy).toBe('2026-05-07T09:00:00.000Z');
  expect(clocks.objectionWindowEnds).toBe('2026-05-15T21:59:59.999Z'); // 23:59:59.999 CEST
  expect(defaultEffectiveDate(filed)).toBe('2026-05-18'); // Monday after
  expect(clocks.annuaireUpdateBy).toBe('2026-05-14T22:00:00.000Z'); // the business day before, 00:00 Paris (Fri 15)
  expect(clocks.continuityUntil).toBe('2027-05-18');

  // 22:30 UTC on Wednesday is already Thursday in Paris: the count starts a day later.
  const late = new Date('2026-05-06T22:30:00Z');
  expect(parisDate(late)).toBe('2026-05-07');
  expect(legalClocks(late, '2026-06-01').objectionWindowEnds).toBe('2026-05-18T21:59:59.999Z');

  // Winter time: the window ends at 22:59:59.999 UTC.
  expect(legalClocks(new Date('2026-01-12T10:00:00Z'), '2026-02-02').objectionWindowEnds).toBe('2026-01-19T22:59:59.999Z');
  expect(parisMidnight('2026-03-29').toISOString()).toBe('2026-03-28T23:00:00.000Z'); // DST starts that day at 02:00
});

it('runs the continuity for the override, ending on the month\'s last day when needed', () => {
  expect(legalClocks(new Date('2026-01-12T10:00:00Z'), '2026-02-02', 18).continuityUntil).toBe('2027-08-02');
  expect(addMonths('2026-01-31', 1)).toBe('2026-02-28');
});

it('starts Paris days right on both daylight-saving changes', () => {
  expect(parisMidnight('2026-10-25').toISOString()).toBe('2026-10-24T22:00:00.000Z'); // back to winter time at 03:00
  expect(parisMidnight('2026-10-26').toISOString()).toBe('2026-10-25T23:00:00.000Z');
});
