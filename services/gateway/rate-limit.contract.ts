/** Sandbox control of the rate limiter, served by the gateway (which holds the limiter). */
import { defineAction, STRICT_REMOVE } from '../shared/contract.ts';

export interface ExhaustResult {
  organizationId: string;
  durationSeconds: number;
  exhaustedUntil: string;
}

export const exhaustRateLimit = defineAction<{ durationSeconds?: number }, ExhaustResult>('gateway', 'exhaustRateLimit', {
  params: { ...STRICT_REMOVE, durationSeconds: { type: 'number', integer: true, min: 1, max: 3600, convert: true, optional: true } },
  http: {
    method: 'POST', path: '/v1/sandbox/rate-limit/exhaust', access: 'authenticated', testModeOnly: true, tag: 'Sandbox',
    summary: 'Every request of the organization gets 429 RATE_LIMITED for durationSeconds (1 to 3600, default 60; test keys only)',
    response: {
      type: 'object', required: ['organizationId', 'durationSeconds', 'exhaustedUntil'],
      properties: { organizationId: { type: 'string' }, durationSeconds: { type: 'integer' }, exhaustedUntil: { type: 'string', format: 'date-time' } },
    },
  },
});
