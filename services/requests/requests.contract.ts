/**
 * requests: the request log. The gateway captures every mutation and every error (successful
 * reads too when EINV_REQUEST_LOG_READS=true) and writes them here in batches; the organization
 * lists, summarises and charts them.
 */
import { defineAction, STRICT_REMOVE } from '../shared/contract.ts';
import { PAGE_PARAMS, pageSchema, type Page } from '../shared/pagination.ts';

/** One service call the request made while it was handled (observed at the gateway). */
export interface UpstreamCall {
  /** The action called, e.g. `tenancy.createApiKey`. */
  action: string;
  durationMs: number;
  /** Call depth: 1 for the route's action, 2 for what it calls, … */
  level?: number;
  /** Error code when the call failed. */
  errorCode?: string;
}

/** Field-level validation findings of a 400, as the error envelope carried them. */
export interface ValidationDiffEntry {
  field: string;
  rule: string;
  message: string;
}


export interface RequestLogInput {
  id: string;
  organizationId: string;
  method: string;
  path: string;
  status: number;
  errorCode: string | null;
  apiKeyId: string | null;
  userId: string | null;
  action: string | null;
  durationMs: number;
  upstreamCalls: UpstreamCall[] | null;
  validation: ValidationDiffEntry[] | null;
  idempotencyKey: string | null;
  replayed: boolean;
  /** ISO 8601: when the request arrived. */
  createdAt: string;
}

/** Internal: deletes entries older than the retention (EINV_REQUEST_LOG_RETENTION_DAYS); runs hourly. */
export const prune = defineAction<{ olderThanDays?: number }, { deleted: number }>('requests', 'prune', {
  params: { olderThanDays: { type: 'number', integer: true, min: 1, optional: true } },
});

export const ingest = defineAction<{ entries: RequestLogInput[] }, { written: number }>('requests', 'ingest', {
  params: { entries: { type: 'array', items: 'object', max: 5000 } },
});

/** The list view (spec: Request log entry) plus what a client filters on. */
export interface RequestView {
  id: string;
  method: string;
  path: string;
  status: number;
  apiKeyId: string | null;
  userId: string | null;
  errorCode: string | null;
  durationMs: number;
  createdAt: string;
}

export interface RequestTrace extends RequestView {
  organizationId: string;
  action: string | null;
  upstreamCalls: UpstreamCall[];
  validation: ValidationDiffEntry[];
  idempotencyKey: string | null;
  replayed: boolean;
  timing: { receivedAt: string; completedAt: string; durationMs: number };
}

const nullableString = { type: ['string', 'null'] };
const requestView = {
  type: 'object',
  required: ['id', 'method', 'path', 'status', 'apiKeyId', 'createdAt'],
  properties: {
    id: { type: 'string' }, method: { type: 'string' }, path: { type: 'string' }, status: { type: 'integer' },
    apiKeyId: nullableString, userId: nullableString, errorCode: nullableString, durationMs: { type: 'number' },
    createdAt: { type: 'string', format: 'date-time' },
  },
};

const SINCE_UNTIL = {
  since: { type: 'date', convert: true, optional: true },
  until: { type: 'date', convert: true, optional: true },
} as const;

export interface ListRequestsParams {
  method?: string; path?: string; status?: number; apiKeyId?: string; userId?: string; since?: Date; until?: Date; limit?: number; cursor?: string;
}

export const listRequests = defineAction<ListRequestsParams, Page<RequestView>>('requests', 'list', {
  params: {
    ...STRICT_REMOVE,
    ...PAGE_PARAMS,
    method: { type: 'enum', values: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'], optional: true },
    path: { type: 'string', optional: true, max: 2048 },
    status: { type: 'number', integer: true, min: 100, max: 599, convert: true, optional: true },
    apiKeyId: { type: 'string', optional: true, max: 255 },
    userId: { type: 'string', optional: true, max: 255 },
    ...SINCE_UNTIL,
  },
  http: {
    method: 'GET', path: '/v1/requests', access: 'stats', tag: 'Request log',
    summary: 'Requests of the organization, newest first (every mutation and every error; successful reads when the server logs them)',
    response: pageSchema(requestView),
  },
});

export interface SummaryRow {
  apiKeyId?: string | null;
  userId?: string | null;
  totalRequests: number;
  errorRequests: number;
  throttledRequests: number;
  peakRequestsPerMinute: number;
  rateLimitPerMinute: number;
  lastRequestAt: string;
}

export const summary = defineAction<{ by?: 'key' | 'user'; since?: Date; until?: Date }, { by: 'key' | 'user'; since: string; until: string; data: SummaryRow[] }>('requests', 'summary', {
  params: { ...STRICT_REMOVE, by: { type: 'enum', values: ['key', 'user'], optional: true }, ...SINCE_UNTIL },
  http: {
    method: 'GET', path: '/v1/requests/summary', access: 'stats', tag: 'Request log',
    summary: 'Per key (or user): total, errors, throttled (exact), peak requests per minute (lower bound), rate limit, last request',
    response: {
      type: 'object', required: ['by', 'since', 'until', 'data'],
      properties: {
        by: { type: 'string', enum: ['key', 'user'] }, since: { type: 'string', format: 'date-time' }, until: { type: 'string', format: 'date-time' },
        data: {
          type: 'array',
          items: {
            type: 'object',
            required: ['totalRequests', 'errorRequests', 'throttledRequests', 'peakRequestsPerMinute', 'rateLimitPerMinute', 'lastRequestAt'],
            properties: {
              apiKeyId: nullableString, userId: nullableString, totalRequests: { type: 'integer' }, errorRequests: { type: 'integer' },
              throttledRequests: { type: 'integer', description: 'Exact: every 429 is logged' },
              peakRequestsPerMinute: { type: 'integer', description: 'Lower bound: successful reads are only logged when the server flag is on' },
              rateLimitPerMinute: { type: 'integer' }, lastRequestAt: { type: 'string', format: 'date-time' },
            },
          },
        },
      },
    },
  },
});

export interface TimeseriesRow {
  ts: string;
  total: number;
  errors: number;
  throttled: number;
  maxDurationMs: number;
}

export const timeseries = defineAction<{ bucket?: 'minute' | 'hour'; apiKeyId?: string; organizationId?: string; since?: Date; until?: Date }, { bucket: 'minute' | 'hour'; since: string; until: string; data: TimeseriesRow[] }>('requests', 'timeseries', {
  params: {
    ...STRICT_REMOVE,
    bucket: { type: 'enum', values: ['minute', 'hour'], optional: true },
    apiKeyId: { type: 'string', optional: true, max: 255 },
    organizationId: { type: 'string', optional: true, max: 255 },
    ...SINCE_UNTIL,
  },
  http: {
    method: 'GET', path: '/v1/requests/timeseries', access: 'stats', tag: 'Request log',
    summary: 'Requests per minute or hour: total (lower bound), errors, throttled, slowest request',
    response: {
      type: 'object', required: ['bucket', 'since', 'until', 'data'],
      properties: {
        bucket: { type: 'string', enum: ['minute', 'hour'] }, since: { type: 'string', format: 'date-time' }, until: { type: 'string', format: 'date-time' },
        data: {
          type: 'array',
          items: {
            type: 'object', required: ['ts', 'total', 'errors', 'throttled', 'maxDurationMs'],
            properties: { ts: { type: 'string', format: 'date-time' }, total: { type: 'integer' }, errors: { type: 'integer' }, throttled: { type: 'integer' }, maxDurationMs: { type: 'number' } },
          },
        },
      },
    },
  },
});

export const getRequest = defineAction<{ id: string }, RequestTrace>('requests', 'get', {
  params: { id: { type: 'string', min: 1, max: 255 } },
  http: {
    method: 'GET', path: '/v1/requests/:id', access: 'stats', tag: 'Request log',
    summary: 'Full trace of one request: timing, service calls, validation diff, final status',
    response: {
      ...requestView,
      required: [...requestView.required, 'organizationId', 'upstreamCalls', 'validation', 'timing'],
      properties: {
        ...requestView.properties,
        organizationId: { type: 'string' }, action: nullableString, idempotencyKey: nullableString, replayed: { type: 'boolean' },
        upstreamCalls: { type: 'array', items: { type: 'object', properties: { action: { type: 'string' }, durationMs: { type: 'number' }, errorCode: { type: 'string' } } } },
        validation: { type: 'array', items: { type: 'object', properties: { field: { type: 'string' }, rule: { type: 'string' }, message: { type: 'string' } } } },
        timing: { type: 'object', properties: { receivedAt: { type: 'string', format: 'date-time' }, completedAt: { type: 'string', format: 'date-time' }, durationMs: { type: 'number' } } },
      },
    },
  },
});

/** Internal (statistics): the organization's answers in [from, to) with these error codes, by code (request_log's organization/time index). */
export const errorCounts = defineAction<{ organizationId: string; codes: string[]; from: string; to: string }, Record<string, number>>('requests', 'errorCounts', {
  params: { organizationId: { type: 'string', min: 1, max: 255 }, codes: { type: 'array', min: 1, max: 20, items: 'string' }, from: 'string', to: 'string' },
});

/** Internal (sandbox expiry): drops the request log of an organization being removed. */
export const forgetOrganization = defineAction<{ organizationId: string }, { deleted: number }>('requests', 'forgetOrganization', {
  params: { organizationId: { type: 'string', min: 1, max: 255 } },
});
