/**
 * idempotency: the durable store behind `Idempotency-Key` (PostgreSQL). The gateway claims a key
 * before running a POST, stores the response when it is done, and replays it for 24 hours.
 */
import { createHash } from 'node:crypto';
import { defineAction, STRICT_REMOVE } from '../shared/contract.ts';

/** The scope of an Idempotency-Key and of a rate-limit window: the calling credential. */
export function idempotencyScope(auth: { apiKeyId: string | null; userId: string | null; organizationId: string }): string {
  return auth.apiKeyId ?? (auth.userId ? `user:${auth.userId}` : `org:${auth.organizationId}`);
}

/**
 * One Idempotency-Key of one credential as a fixed-length digest: what an action that keeps the
 * key with its own effect (a sent document) stores, so keys never cross credentials there either.
 */
export function idempotencyDigest(scope: string, key: string): string {
  return createHash('sha256').update(`${scope}\n${key}`).digest('hex');
}

/** How long a stored response is replayed. */
export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

export interface ClaimParams {
  /** The calling credential: API key id, or user / machine id. Keys never cross credentials. */
  scope: string;
  key: string;
  organizationId: string;
  method: string;
  path: string;
  /** SHA-256 (hex) of method, path and body. */
  requestHash: string;
  /** How long this claim holds before it counts as abandoned (its gateway died mid-request). */
  lockMs: number;
}

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  /** The response body, base64: replayed byte for byte. */
  body: string;
}

export type ClaimResult =
  | { outcome: 'claimed' }
  | { outcome: 'in_progress' }
  | { outcome: 'mismatch' }
  | { outcome: 'replay'; response: StoredResponse };

const SCOPE_KEY = {
  scope: { type: 'string', min: 1, max: 255 },
  key: { type: 'string', min: 1, max: MAX_IDEMPOTENCY_KEY_LENGTH },
} as const;

export const claim = defineAction<ClaimParams, ClaimResult>('idempotency', 'claim', {
  params: {
    ...SCOPE_KEY,
    organizationId: { type: 'string', min: 1, max: 255 },
    method: { type: 'string', min: 1, max: 8 },
    path: { type: 'string', min: 1, max: 2048 },
    requestHash: { type: 'string', length: 64 },
    lockMs: { type: 'number', integer: true, min: 1 },
  },
});

export const complete = defineAction<{ scope: string; key: string; response: StoredResponse }, { stored: boolean }>('idempotency', 'complete', {
  params: {
    ...SCOPE_KEY,
    response: { type: 'object', props: { status: { type: 'number', integer: true }, headers: { type: 'record', key: { type: 'string' }, value: { type: 'string' } }, body: { type: 'string' } } },
  },
});

/** Extends a claim still processing by `lockMs` from now (its request is alive and still running). */
export const renew = defineAction<{ scope: string; key: string; lockMs: number }, { renewed: boolean }>('idempotency', 'renew', {
  params: { ...SCOPE_KEY, lockMs: { type: 'number', integer: true, positive: true } },
});

export const release = defineAction<{ scope: string; key: string }, { released: boolean }>('idempotency', 'release', { params: SCOPE_KEY });

export interface FlushResult {
  flushed: number;
}

export const flush = defineAction<Record<string, never>, FlushResult>('idempotency', 'flush', {
  params: { ...STRICT_REMOVE },
  http: {
    method: 'POST', path: '/v1/sandbox/idempotency/flush', access: 'authenticated', testModeOnly: true, tag: 'Sandbox',
    summary: 'Drop the 24-hour Idempotency-Key cache of the calling key (test keys only)',
    response: { type: 'object', required: ['flushed'], properties: { flushed: { type: 'integer', description: 'Stored keys dropped' } } },
  },
});

/** Internal: drops every stored key of an organization (for `POST /v1/sandbox/reset`, scope `idempotency`). */
export const flushOrganization = defineAction<{ organizationId: string }, FlushResult>('idempotency', 'flushOrganization', {
  params: { organizationId: { type: 'string', min: 1, max: 255 } },
});
