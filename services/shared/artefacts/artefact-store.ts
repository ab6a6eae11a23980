/**
 * The artefact store port: where the legal record's bytes live (originals as received or
 * rendered, tax-authority receipts, signed versions), apart from the rows that describe them.
 *
 * - **Content-addressed**: an artefact is named by the SHA-256 of its bytes within a namespace
 *   (one organization and mode); the same bytes are stored once per namespace, and its key is
 *   derived from the hash, so a reference is also its integrity check.
 * - **Immutable**: a put of content already stored writes nothing (it may only lengthen the
 *   retention); there is no overwrite path.
 * - **Retained**: an artefact keeps a `retainUntil` (services/shared/artefacts/retention.ts); a
 *   delete before it refuses with RETENTION_PERIOD_ACTIVE. Every path that deletes artefacts goes
 *   through `delete`, or through the retention sweep (sweep.ts), which deletes only what has ended
 *   its retention and no legal hold keeps.
 *
 * The bytes sit in PostgreSQL (embedded default) or in an S3-compatible object store; the index of
 * what is stored (hash, size, where, retention) is always a PostgreSQL table, so retention and
 * export never depend on listing a bucket.
 */
import { DomainError } from '../errors.ts';

/** Whose artefacts: one organization in one mode (test artefacts carry no legal retention). */
export interface ArtefactNamespace {
  organizationId: string;
  livemode: boolean;
}

/** Where an artefact's bytes are: the `artefact_contents` table or the object store. */
export type ArtefactLocation = 'pg' | 's3';

export interface ArtefactInput {
  namespace: ArtefactNamespace;
  bytes: Uint8Array;
  contentType: string;
  /** Null: deletable at any time (test data). Otherwise the end of its statutory retention. */
  retainUntil: Date | null;
  /** ISO 3166-1 alpha-2 country whose retention applied, kept for the audit of a refusal. */
  country?: string | null;
}

export interface StoredArtefact {
  namespace: ArtefactNamespace;
  /** SHA-256 of the bytes, lowercase hex: the artefact's name. */
  sha256: string;
  size: number;
  contentType: string;
  location: ArtefactLocation;
  retainUntil: Date | null;
  country: string | null;
  createdAt: Date;
  /** When its bytes were deleted at the end of retention (the row stays as a tombstone); null while stored. */
  expiredAt: Date | null;
}

export interface PutResult {
  sha256: string;
  size: number;
  /** False: the namespace held these bytes already; nothing was written. */
  created: boolean;
}

export interface ArtefactStore {
  /** Stores bytes (never inside a database transaction: the object store may be remote). */
  put(input: ArtefactInput): Promise<PutResult>;
  /** The bytes, checked against their hash; ArtefactNotFoundError when the namespace has none. */
  get(namespace: ArtefactNamespace, sha256: string): Promise<Buffer>;
  stat(namespace: ArtefactNamespace, sha256: string): Promise<StoredArtefact | null>;
  /** Removes an artefact whose retention has ended; RetentionPeriodActiveError before. False when absent. */
  delete(namespace: ArtefactNamespace, sha256: string): Promise<boolean>;
  /** A page of the namespace's artefacts in hash order, after `after`. */
  list(namespace: ArtefactNamespace, options?: { after?: string; limit?: number }): Promise<StoredArtefact[]>;
}

/** The namespace as one path segment pair: `<organization id>/<live|test>`. */
export function namespaceKey(ns: ArtefactNamespace): string {
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(ns.organizationId)) throw new Error(`Not an organization id usable as an artefact namespace: ${JSON.stringify(ns.organizationId)}`);
  return `${ns.organizationId}/${ns.livemode ? 'live' : 'test'}`;
}

export function parseNamespaceKey(key: string): ArtefactNamespace {
  const [organizationId, mode] = key.split('/');
  return { organizationId: organizationId!, livemode: mode === 'live' };
}

export const SHA256_HEX = /^[0-9a-f]{64}$/;

/** The namespace has no artefact of that hash. */
export class ArtefactNotFoundError extends DomainError {
  constructor(ns: ArtefactNamespace, sha256: string) {
    super('RESOURCE_NOT_FOUND', `No artefact ${sha256} is stored for ${namespaceKey(ns)}`);
    this.name = 'ArtefactNotFoundError';
  }
}

/**
 * The artefact's retention ended and the sweep deleted its bytes (services/shared/artefacts/sweep.ts):
 * a document may still name it, but the legal record is no longer kept.
 */
export class ArtefactExpiredError extends DomainError {
  readonly expiredAt: Date;
  constructor(ns: ArtefactNamespace, sha256: string, expiredAt: Date) {
    super('RESOURCE_NOT_FOUND', `Artefact ${sha256} of ${namespaceKey(ns)} was deleted at the end of its retention period (${expiredAt.toISOString()})`, { extra: { expiredAt: expiredAt.toISOString() } });
    this.name = 'ArtefactExpiredError';
    this.expiredAt = expiredAt;
  }
}

/** A put of bytes the retention sweep is deleting right now: retried after a moment, it stores them again. */
export class ArtefactBeingDeletedError extends DomainError {
  constructor(ns: ArtefactNamespace, sha256: string) {
    super('UPSTREAM_UNAVAILABLE', `Artefact ${sha256} of ${namespaceKey(ns)} is being deleted at the end of its retention period; retry after the delay given to store it again`, { retryAfter: 5 });
    this.name = 'ArtefactBeingDeletedError';
  }
}

/** A delete before the end of the artefact's statutory retention. */
export class RetentionPeriodActiveError extends DomainError {
  constructor(ns: ArtefactNamespace, sha256: string, retainUntil: Date, country: string | null) {
    super('RETENTION_PERIOD_ACTIVE', `Artefact ${sha256} of ${namespaceKey(ns)} is under statutory retention${country ? ` (${country})` : ''} until ${retainUntil.toISOString()}; it cannot be deleted before`, {
      extra: { retainUntil: retainUntil.toISOString(), ...(country ? { country } : {}) },
    });
    this.name = 'RetentionPeriodActiveError';
  }
}

/**
 * The object store failed or cannot be reached: a clear error the caller retries (503 with
 * Retry-After) saying what failed, never the SDK's stack nor the store's address.
 */
export class ArtefactStoreUnavailableError extends DomainError {
  constructor(operation: string, cause: unknown) {
    super('UPSTREAM_UNAVAILABLE', `The artefact store could not ${operation} (${describe(cause)}); retry after the delay given`, { retryAfter: 5 });
    this.name = 'ArtefactStoreUnavailableError';
  }
}

/**
 * What the client may read of a store failure: the store's own answer (S3 error code, status and
 * message), or only the code of a network failure (ECONNREFUSED, TimeoutError): never the store's
 * address.
 */
function describe(cause: unknown): string {
  if (typeof cause === 'string') return cause;
  const e = cause as { name?: string; code?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  if (e?.$metadata?.httpStatusCode) return `${e.name ?? 'S3Error'}, HTTP ${e.$metadata.httpStatusCode}${e.message && e.message !== 'UnknownError' ? `: ${e.message}` : ''}`;
  const code = e?.code ?? (typeof e?.message === 'string' ? /\b(E[A-Z]{3,})\b/.exec(e.message)?.[1] : undefined);
  return code ?? e?.name ?? 'no detail';
}

/** Stored bytes that no longer hash to their name: never served as the legal record. */
export class ArtefactCorruptError extends DomainError {
  constructor(ns: ArtefactNamespace, sha256: string, actual: string) {
    super('UPSTREAM_ERROR', `Artefact ${sha256} of ${namespaceKey(ns)} is corrupt in the store (its bytes hash to ${actual})`);
    this.name = 'ArtefactCorruptError';
  }
}
