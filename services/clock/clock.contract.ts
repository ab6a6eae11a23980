/**
 * clock: the sandbox's per-company virtual clock (business time = wall time + offset; see
 * services/shared/clock.ts). Moving it wakes every scheduled job now due (webhook retries included).
 */
import { defineAction, STRICT_REMOVE } from '../shared/contract.ts';

const SERVICE = 'clock';

export interface ClockState {
  companyId: string;
  /** The company's business time now. */
  now: string;
  /** How far ahead of wall time it runs, in seconds. */
  offsetSeconds: number;
}

const clockResponse = {
  type: 'object',
  required: ['companyId', 'now', 'offsetSeconds'],
  properties: { companyId: { type: 'string' }, now: { type: 'string', format: 'date-time' }, offsetSeconds: { type: 'integer' } },
};

export const advanceClock = defineAction<{ companyId: string; by: string }, ClockState>(SERVICE, 'advanceClock', {
  params: {
    ...STRICT_REMOVE,
    companyId: { type: 'string', min: 1, max: 64 },
    by: { type: 'string', pattern: /^[1-9]\d{0,3}[hdwmy]$/, messages: { stringPattern: "'by' must be a compact duration such as 1h, 3d, 2w, 1m (30 days) or 1y (365 days)" } },
  },
  http: {
    method: 'POST', path: '/v1/sandbox/clock/advance', access: 'authenticated', testModeOnly: true, tag: 'Sandbox',
    errors: { 404: 'COMPANY_NOT_FOUND: no such company in the organization' },
    summary: 'Move a sandbox company\'s clock forward by `by` (1h, 3d, 2w, 1m = 30 days, 1y = 365 days) and wake every scheduled event now due',
    response: clockResponse,
  },
});

export const resetClock = defineAction<{ companyId: string }, ClockState>(SERVICE, 'resetClock', {
  params: { ...STRICT_REMOVE, companyId: { type: 'string', min: 1, max: 64 } },
  http: {
    method: 'POST', path: '/v1/sandbox/clock/reset', access: 'authenticated', testModeOnly: true, tag: 'Sandbox',
    errors: { 404: 'COMPANY_NOT_FOUND: no such company in the organization' },
    summary: 'Put a sandbox company back on wall-clock time',
    response: clockResponse,
  },
});

/** Internal (sandbox expiry): drops the clocks of companies that no longer exist. */
export const forgetCompanyClocks = defineAction<{ companyIds: string[] }, { forgotten: number }>(SERVICE, 'forgetCompanyClocks', {
  params: { companyIds: { type: 'array', max: 10_000, items: { type: 'string', min: 1, max: 255 } } },
});
