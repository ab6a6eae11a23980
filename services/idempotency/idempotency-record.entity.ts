import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const IDEMPOTENCY_STATES = ['processing', 'completed'] as const;
export type IdempotencyState = (typeof IDEMPOTENCY_STATES)[number];

/**
 * An `Idempotency-Key` claimed by one calling credential (`scope`: the API key id, or the user /
 * machine id). Claimed with an insert-on-conflict, so concurrent identical requests execute once;
 * the first response is kept for 24 hours and replayed byte for byte.
 */
export const IdempotencyRecord = defineEntity({
  name: 'IdempotencyRecord',
  tableName: 'idempotency_keys',
  indexes: [{ properties: ['expiresAt'] }],
  properties: {
    scope: p.string().primary(),
    key: p.string().length(255).primary(),
    organizationId: p.string(),
    method: p.string().length(8),
    path: p.string().length(2048),
    /** SHA-256 (hex) of the request body: a different body under the same key is a 409. */
    requestHash: p.string().length(64),
    state: p.enum(IDEMPOTENCY_STATES),
    /** A processing claim older than this is abandoned (its gateway died) and may be taken over. */
    lockedUntil: p.datetime(),
    responseStatus: p.smallint().nullable(),
    /** The replayed headers (Content-Type, Location). */
    responseHeaders: p.json<Record<string, string>>().nullable(),
    responseBody: p.blob().nullable(),
    createdAt: p.datetime(),
    expiresAt: p.datetime(),
  },
});
export type IdempotencyRecord = InferEntity<typeof IdempotencyRecord>;
