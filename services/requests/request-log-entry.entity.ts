import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { UpstreamCall, ValidationDiffEntry } from './requests.contract.ts';

/**
 * One request as the gateway saw it. Written in batches from the gateway's bounded buffer; the id
 * is the request id (`req_…`, a ULID, so ordering by id is ordering by arrival).
 */
export const RequestLogEntry = defineEntity({
  name: 'RequestLogEntry',
  tableName: 'request_log',
  indexes: [{ properties: ['organizationId', 'createdAt'] }],
  properties: {
    id: p.string().primary(),
    organizationId: p.string(),
    method: p.string().length(8),
    path: p.string().length(2048),
    status: p.smallint(),
    /** The error envelope's code for error answers (`RATE_LIMITED` counts throttled requests). */
    errorCode: p.string().nullable(),
    apiKeyId: p.string().nullable(),
    userId: p.string().nullable(),
    /** The contract action the route maps to. */
    action: p.string().nullable(),
    durationMs: p.double(),
    upstreamCalls: p.json<UpstreamCall[]>().nullable(),
    validation: p.json<ValidationDiffEntry[]>().nullable(),
    idempotencyKey: p.string().length(255).nullable(),
    /** True when the answer was an idempotent replay of a stored response. */
    replayed: p.boolean().default(false),
    createdAt: p.datetime(),
  },
});
export type RequestLogEntry = InferEntity<typeof RequestLogEntry>;
