import { MONTH, monthPeriod } from '../../../../services/shared/usage-period.ts';

describe('monthPeriod', () => {
  it('is the calendar month (UTC) of now, or the month named, end exclusive', () => {
    expect(monthPeriod(undefined, new Date('2026-11-26T23:59:59Z'))).toEqual({ month: '2026-11', start: '2026-11-01T00:00:00.000Z', end: '2026-12-01T00:00:00.000Z' });
    expect(monthPeriod('2026-12')).toEqual({ month: '2026-12', start: '2026-12-01T00:00:00.000Z', end: '2027-01-01T00:00:00.000Z' });
    expect(monthPeriod('2024-02').end).toBe('2024-03-01T00:00:00.000Z');
  });

  it('accepts months 01 to 12 only', () => {
    expect(['2026-01', '2026-12'].every((m) => MONTH.test(m))).toBe(true);
    expect(['2026-00', '2026-13', '2026-1', '26-01', '2026-01-01'].some((m) => MONTH.test(m))).toBe(false);
  });
});
