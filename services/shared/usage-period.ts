/**
 * The periods usage and statistics are counted over: calendar months (UTC), like the document
 * quota. `period=month` is the current month unless `month` (YYYY-MM) names another.
 */
import { systemClock } from './clock.ts';

export const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;

export interface UsagePeriod {
  /** `YYYY-MM` */
  month: string;
  /** First instant of the month (inclusive). */
  start: string;
  /** First instant of the next month (exclusive). */
  end: string;
}

export function monthPeriod(month?: string, now: Date = systemClock.now()): UsagePeriod {
  const [year, m] = month ? month.split('-').map(Number) as [number, number] : [now.getUTCFullYear(), now.getUTCMonth() + 1];
  const start = new Date(Date.UTC(year, m - 1, 1));
  const end = new Date(Date.UTC(year, m, 1));
  return { month: start.toISOString().slice(0, 7), start: start.toISOString(), end: end.toISOString() };
}

/** The query parameters of a monthly read, as both usage endpoints take them. */
export const PERIOD_PARAMS = {
  period: { type: 'enum', values: ['month'], optional: true, default: 'month' },
  month: { type: 'string', optional: true, pattern: MONTH, messages: { stringPattern: 'The \'month\' field must be a month YYYY-MM.' } },
} as const;

export const periodSchema = {
  type: 'object', required: ['month', 'start', 'end'],
  properties: { month: { type: 'string', examples: ['2026-11'] }, start: { type: 'string', format: 'date-time' }, end: { type: 'string', format: 'date-time', description: 'Exclusive' } },
};
