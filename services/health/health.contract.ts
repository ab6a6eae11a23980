/** health: liveness, readiness (circuit breakers + database) and the upstream contract monitor. */
import { defineAction } from '../shared/contract.ts';

export type CircuitState = 'closed' | 'open' | 'half_open';

export interface CircuitView {
  state: CircuitState;
  failures: number;
  /** Seconds until an open circuit lets a trial request through; 0 unless open. */
  cooldown_remaining: number;
}

export interface Readiness {
  status: 'ok' | 'degraded';
  circuits: Record<string, CircuitView>;
  database: { status: 'ok' | 'down' | 'not_configured'; responseMs: number | null; error?: string };
  /** Connectors that tell their own health (a key that loads, a certificate not about to expire). */
  connectors?: Record<string, { status: 'ok' | 'warning' | 'failed'; message: string }>;
}

export interface ContractStatus {
  /** `warning`: it works, but needs attention soon (`error` says what, e.g. a certificate expiring). */
  status: 'ok' | 'warning' | 'failed' | 'unknown';
  responseMs: number | null;
  lastCheck: string | null;
  error: string | null;
}

export interface ContractsReport {
  status: 'ok' | 'degraded';
  services: Record<string, ContractStatus>;
}

const circuitSchema = {
  type: 'object',
  properties: { state: { type: 'string', enum: ['closed', 'open', 'half_open'] }, failures: { type: 'integer' }, cooldown_remaining: { type: 'number' } },
};

export const liveness = defineAction<Record<string, never>, { status: 'ok' }>('health', 'liveness', {
  params: {},
  http: {
    method: 'GET', path: '/health/liveness', access: 'public', tag: 'Health', summary: 'The process is up (no error envelope)',
    response: { type: 'object', required: ['status'], properties: { status: { const: 'ok' } } },
  },
});

export const readiness = defineAction<Record<string, never>, Readiness>('health', 'readiness', {
  params: {},
  http: {
    method: 'GET', path: '/health/readiness', access: 'public', tag: 'Health',
    summary: 'Circuit-breaker state of upstream dependencies, a database check and the connectors\' own health; 503 `degraded` when a circuit is open, the database is down or a connector cannot work (an access point key that does not load)',
    alsoAnswers: { 503: '`degraded`: a circuit is open, the database is down or a connector failed its health check' },
    response: {
      type: 'object', required: ['status', 'circuits'],
      properties: {
        status: { type: 'string', enum: ['ok', 'degraded'] },
        circuits: { type: 'object', additionalProperties: circuitSchema },
        database: { type: 'object', properties: { status: { type: 'string' }, responseMs: { type: ['number', 'null'] }, error: { type: 'string' } } },
        connectors: {
          type: 'object',
          additionalProperties: { type: 'object', required: ['status', 'message'], properties: { status: { type: 'string', enum: ['ok', 'warning', 'failed'] }, message: { type: 'string' } } },
        },
      },
    },
  },
});

export const contracts = defineAction<Record<string, never>, ContractsReport>('health', 'contracts', {
  params: {},
  http: {
    method: 'GET', path: '/health/contracts', access: 'public', tag: 'Health',
    summary: 'Last check of each tracked upstream contract; 503 `degraded` when one failed its last check',
    alsoAnswers: { 503: '`degraded`: a tracked upstream failed its last check' },
    response: {
      type: 'object', required: ['status', 'services'],
      properties: {
        status: { type: 'string', enum: ['ok', 'degraded'] },
        services: {
          type: 'object',
          additionalProperties: {
            type: 'object',
            properties: { status: { type: 'string', enum: ['ok', 'warning', 'failed', 'unknown'] }, responseMs: { type: ['number', 'null'] }, lastCheck: { type: ['string', 'null'] }, error: { type: ['string', 'null'] } },
          },
        },
      },
    },
  },
});

/**
 * The convention the contract monitor relies on: a service that depends on an upstream API exposes
 * `<service>.checkContract`, which exercises the upstream's contract (a cheap, side-effect-free
 * call) and throws when the upstream no longer honours it. The monitor finds these by name.
 */
export const CHECK_CONTRACT_ACTION = 'checkContract';
