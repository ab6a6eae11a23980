/** TARGET business days: Easter by the computus, the six closing days, weekends, the next business day. */
import { easterSunday, isTargetBusinessDay, isoDate, nextBusinessDay, parseIsoDate, targetHolidays } from '../../../../services/payments/business-days.ts';

describe('Easter (Gregorian computus)', () => {
  // Published Easter Sundays, including the extremes of its range (22 March 2285, 25 April 2038).
  it.each([
    [2000, '2000-04-23'], [2008, '2008-03-23'], [2011, '2011-04-24'], [2019, '2019-04-21'], [2024, '2024-03-31'], [2025, '2025-04-20'],
    [2026, '2026-04-05'], [2027, '2027-03-28'], [2038, '2038-04-25'], [2285, '2285-03-22'],
  ])('%i → %s', (year, date) => {
    expect(isoDate(easterSunday(year))).toBe(date);
  });
});

describe('TARGET closing days', () => {
  it('are New Year, Good Friday, Easter Monday, 1 May, 25 and 26 December', () => {
    expect(targetHolidays(2026)).toEqual(['2026-01-01', '2026-04-03', '2026-04-06', '2026-05-01', '2026-12-25', '2026-12-26']);
    expect(targetHolidays(2024)).toEqual(['2024-01-01', '2024-03-29', '2024-04-01', '2024-05-01', '2024-12-25', '2024-12-26']);
  });

  it('weekends and closing days are not business days; ordinary weekdays are', () => {
    expect(isTargetBusinessDay(parseIsoDate('2026-11-28')!)).toBe(false); // Saturday
    expect(isTargetBusinessDay(parseIsoDate('2026-11-29')!)).toBe(false); // Sunday
    expect(isTargetBusinessDay(parseIsoDate('2026-05-01')!)).toBe(false); // Friday, Labour Day
    expect(isTargetBusinessDay(parseIsoDate('2026-11-27')!)).toBe(true);
    // Not TARGET closing days even though national holidays somewhere (Ascension, 8 May, Whit Monday, 24 December).
    expect(isTargetBusinessDay(parseIsoDate('2026-05-14')!)).toBe(true);
    expect(isTargetBusinessDay(parseIsoDate('2026-05-25')!)).toBe(true);
    expect(isTargetBusinessDay(parseIsoDate('2026-12-24')!)).toBe(true);
  });
});

describe('next business day', () => {
  it.each([
    ['2026-11-26T10:00:00Z', '2026-11-27'], // Thursday → Friday
    ['2026-11-27T23:59:00Z', '2026-11-30'], // Friday → Monday
    ['2026-04-02T08:00:00Z', '2026-04-07'], // Thursday before Easter → Tuesday after Easter Monday
    ['2026-12-24T08:00:00Z', '2026-12-28'], // Christmas, Boxing Day, weekend
    ['2026-12-31T08:00:00Z', '2027-01-04'], // New Year (Friday) then the weekend
    ['2026-04-30T08:00:00Z', '2026-05-04'], // 1 May is a Friday
  ])('after %s is %s', (now, next) => {
    expect(nextBusinessDay(new Date(now))).toBe(next);
  });
});

it('parseIsoDate refuses dates that do not exist', () => {
  expect(parseIsoDate('2026-02-29')).toBeUndefined();
  expect(parseIsoDate('2026-13-01')).toBeUndefined();
  expect(parseIsoDate('26-1-1')).toBeUndefined();
  expect(isoDate(parseIsoDate('2028-02-29')!)).toBe('2028-02-29');
});
