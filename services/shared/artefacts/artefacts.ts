/**
 * The artefact store (services/shared/artefacts/artefact-store.ts): an index table in PostgreSQL
 * (`artefacts`: namespace, hash, size, where the bytes are, retention) over a blob backend that
 * holds the bytes (PostgreSQL or an S3-compatible store).
 *
 * Order of writes: bytes first, then the index row; a delete removes the index row first, then
 * the bytes. The retention sweep (sweep.ts) claims a row (`sweep_claimed_at`), deletes its bytes,
 * then leaves the row as a tombstone (`expired_at`): a put meeting a claimed row is refused with a
 * retryable error (the bytes may be going), one meeting a tombstone writes the bytes again and
 * revives it, so no row ever names bytes a sweep is deleting. A crash between the two leaves bytes nobody names (harmless: content-addressed, a
 * later put of the same bytes finds them), never a row naming bytes that are gone. None of these
 * statements runs inside a caller's transaction: the object store is a network call, and a
 * transaction held across it would hold its locks for as long as the store takes.
 *
 * This is a library, not a service of its own: the service that owns the rows naming artefacts
 * (documents) stores and reads them in-process, so the bytes go straight between that service and
 * the store and never cross NATS as an extra hop (messages there are capped, docker-compose.yml).
 */
import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { systemClock } from '../clock.ts';
import {
  ArtefactBeingDeletedError, ArtefactCorruptError, ArtefactExpiredError, ArtefactNotFoundError, ArtefactStoreUnavailableError, RetentionPeriodActiveError, namespaceKey, parseNamespaceKey, SHA256_HEX,
  type ArtefactInput, type ArtefactLocation, type ArtefactNamespace, type ArtefactStore, type PutResult, type StoredArtefact,
} from './artefact-store.ts';
import type { BlobBackend } from './blob-backend.ts';

interface IndexRow {
  namespace: string;
  sha256: string;
  size: string | number;
  content_type: string;
  location: ArtefactLocation;
  retain_until: Date | null;
  country: string | null;
  created_at: Date;
  sweep_claimed_at: Date | null;
  expired_at: Date | null;
}

const COLUMNS = 'namespace, sha256, size, content_type, location, retain_until, country, created_at, sweep_claimed_at, expired_at';

export const sha256Hex = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

function toStored(row: IndexRow): StoredArtefact {
  return {
    namespace: parseNamespaceKey(row.namespace), sha256: row.sha256, size: Number(row.size), contentType: row.content_type,
    location: row.location, retainUntil: row.retain_until ? new Date(row.retain_until) : null, country: row.country, createdAt: new Date(row.created_at),
    expiredAt: row.expired_at ? new Date(row.expired_at) : null,
  };
}

export class Artefacts implements ArtefactStore {
  private readonly backends: Map<ArtefactLocation, BlobBackend>;
  private readonly em: EntityManager;
  readonly primary: BlobBackend;
  /** The sweep's lease (EINV_ARTEFACT_SWEEP_LEASE_MINUTES): a claim older than this is a crashed sweep's. */
  private readonly sweepLeaseMs: number;

  /**
   * `primary`: where new bytes are written. `others`: backends still read from (the PostgreSQL
   * table while a migration to the object store runs).
   */
  constructor(em: EntityManager, primary: BlobBackend, others: BlobBackend[] = [], options: { sweepLeaseMs?: number } = {}) {
    this.em = em;
    this.primary = primary;
    this.backends = new Map([...others, primary].map((b) => [b.location, b]));
    this.sweepLeaseMs = options.sweepLeaseMs ?? 3_600_000;
  }

  async put(input: ArtefactInput): Promise<PutResult> {
    const sha256 = sha256Hex(input.bytes);
    const size = input.bytes.byteLength;
    const ns = namespaceKey(input.namespace);
    let known = await this.row(input.namespace, sha256);
    if (known?.sweep_claimed_at) known = await this.finishCrashedSweep(input.namespace, known);
    if (known && !known.expired_at) {
      if (!(await this.extendRetention(ns, sha256, input.retainUntil))) throw new ArtefactBeingDeletedError(input.namespace, sha256);
      return { sha256, size, created: false };
    }
    await this.primary.write(input.namespace, sha256, input.bytes, input.contentType);
    if (known) {
      // A tombstone (bytes deleted at the end of an earlier retention): the bytes are back, the row lives again.
      const revived = await this.em.fork().execute<unknown[]>(
        `update artefacts set expired_at = null, size = ?, content_type = ?, location = ?, retain_until = ?, country = ?, created_at = ?
         where namespace = ? and sha256 = ? and expired_at is not null and sweep_claimed_at is null returning 1`,
        [size, input.contentType.slice(0, 255), this.primary.location, input.retainUntil, input.country ?? null, systemClock.now(), ns, sha256], 'all');
      if (!revived.length) throw new ArtefactBeingDeletedError(input.namespace, sha256);
      return { sha256, size, created: true };
    }
    // A concurrent put of the same bytes wrote the same object: the row is kept, with the longer
    // retention. A row the sweep claimed or tombstoned meanwhile is not touched (nothing returned):
    // its bytes may be going, so the caller retries and writes them again.
    const inserted = await this.em.fork().execute<Array<{ created: boolean }>>(
      `insert into artefacts (namespace, sha256, size, content_type, location, retain_until, country, created_at)
       values (?, ?, ?, ?, ?, ?, ?, ?)
       on conflict (namespace, sha256) do update set retain_until = ${GREATEST_RETENTION}
       where artefacts.sweep_claimed_at is null and artefacts.expired_at is null
       returning (xmax = 0) as created`,
      [ns, sha256, size, input.contentType.slice(0, 255), this.primary.location, input.retainUntil, input.country ?? null, systemClock.now()], 'all');
    if (!inserted[0]) throw new ArtefactBeingDeletedError(input.namespace, sha256);
    return { sha256, size, created: inserted[0].created === true };
  }

  async get(namespace: ArtefactNamespace, sha256: string): Promise<Buffer> {
    const row = SHA256_HEX.test(sha256) ? await this.row(namespace, sha256) : null;
    if (!row) throw new ArtefactNotFoundError(namespace, sha256);
    if (row.expired_at || row.sweep_claimed_at) throw new ArtefactExpiredError(namespace, sha256, new Date(row.expired_at ?? row.sweep_claimed_at!));
    const bytes = await this.backendFor(row.location).read(namespace, sha256);
    if (!bytes) throw new ArtefactStoreUnavailableError(`find artefact ${sha256} of ${row.namespace}`, `indexed in ${row.location}, missing there`);
    const actual = sha256Hex(bytes);
    if (actual !== sha256) throw new ArtefactCorruptError(namespace, sha256, actual);
    return bytes;
  }

  async stat(namespace: ArtefactNamespace, sha256: string): Promise<StoredArtefact | null> {
    const row = SHA256_HEX.test(sha256) ? await this.row(namespace, sha256) : null;
    return row ? toStored(row) : null;
  }

  async delete(namespace: ArtefactNamespace, sha256: string): Promise<boolean> {
    const row = await this.row(namespace, sha256);
    if (!row || row.sweep_claimed_at) return false;
    if (row.expired_at) {
      // Its bytes went at the end of retention: only the tombstone is left to remove.
      await this.em.fork().execute('delete from artefacts where namespace = ? and sha256 = ? and expired_at is not null and sweep_claimed_at is null', [row.namespace, sha256], 'run');
      return false;
    }
    const now = systemClock.now();
    if (row.retain_until && new Date(row.retain_until) > now) throw new RetentionPeriodActiveError(namespace, sha256, new Date(row.retain_until), row.country);
    // The retention is checked again in the statement: a put that lengthened it meanwhile wins.
    const gone = await this.em.fork().execute<Array<{ location: ArtefactLocation }>>(
      'delete from artefacts where namespace = ? and sha256 = ? and sweep_claimed_at is null and expired_at is null and (retain_until is null or retain_until <= ?) returning location',
      [row.namespace, sha256, now], 'all');
    if (!gone[0]) {
      const again = await this.row(namespace, sha256);
      if (again?.retain_until) throw new RetentionPeriodActiveError(namespace, sha256, new Date(again.retain_until), again.country);
      return false;
    }
    await this.backendFor(gone[0].location).remove(namespace, sha256);
    return true;
  }

  async list(namespace: ArtefactNamespace, options: { after?: string; limit?: number } = {}): Promise<StoredArtefact[]> {
    const limit = Math.min(Math.max(options.limit ?? 100, 1), 1000);
    const rows = await this.em.fork().execute<IndexRow[]>(
      `select ${COLUMNS} from artefacts where namespace = ? and sha256 > ? and expired_at is null order by sha256 limit ${limit}`,
      [namespaceKey(namespace), options.after ?? ''], 'all');
    return rows.map(toStored);
  }

  /**
   * Moves one artefact's bytes to the primary backend: read and checked against the hash, written,
   * read back and checked again, then the index points at the new place and the old copy goes.
   * Idempotent: an artefact already there is left alone.
   */
  async relocate(namespace: ArtefactNamespace, sha256: string): Promise<'moved' | 'already'> {
    const row = await this.row(namespace, sha256);
    if (!row) throw new ArtefactNotFoundError(namespace, sha256);
    if (row.location === this.primary.location || row.expired_at || row.sweep_claimed_at) return 'already';
    const bytes = await this.get(namespace, sha256);
    await this.primary.write(namespace, sha256, bytes, row.content_type);
    const back = await this.primary.read(namespace, sha256);
    if (!back || sha256Hex(back) !== sha256) throw new ArtefactCorruptError(namespace, sha256, back ? sha256Hex(back) : 'nothing (not written)');
    await this.em.fork().execute('update artefacts set location = ? where namespace = ? and sha256 = ? and location = ?', [this.primary.location, row.namespace, sha256, row.location], 'run');
    await this.backendFor(row.location).remove(namespace, sha256);
    return 'moved';
  }

  /** Artefacts whose bytes are not in the primary backend yet (what a migration still has to move). */
  async elsewhere(limit: number, after: { namespace: string; sha256: string } = { namespace: '', sha256: '' }): Promise<Array<{ namespace: string; sha256: string }>> {
    return this.em.fork().execute<Array<{ namespace: string; sha256: string }>>(
      `select namespace, sha256 from artefacts where location <> ? and expired_at is null and sweep_claimed_at is null and (namespace, sha256) > (?, ?) order by namespace, sha256 limit ${Math.max(1, Math.min(limit, 1000))}`,
      [this.primary.location, after.namespace, after.sha256], 'all');
  }

  private async row(namespace: ArtefactNamespace, sha256: string): Promise<IndexRow | undefined> {
    const rows = await this.em.fork().execute<IndexRow[]>(`select ${COLUMNS} from artefacts where namespace = ? and sha256 = ?`, [namespaceKey(namespace), sha256], 'all');
    return rows[0];
  }

  /**
   * A put meeting a sweep's claim: while the claim is fresh the sweep is deleting the bytes, so the
   * put is refused (retryable). A claim older than the lease is a crashed sweep's: the put finishes
   * its deletion (bytes removed, row tombstoned, only if the claim is still that one) and goes on as
   * over any tombstone, so a writer never waits for the next scheduled run.
   */
  private async finishCrashedSweep(namespace: ArtefactNamespace, row: IndexRow): Promise<IndexRow> {
    const claimedAt = new Date(row.sweep_claimed_at!);
    if (systemClock.now().getTime() - claimedAt.getTime() < this.sweepLeaseMs) throw new ArtefactBeingDeletedError(namespace, row.sha256);
    await this.backendFor(row.location).remove(namespace, row.sha256);
    const done = await this.em.fork().execute<IndexRow[]>(
      `update artefacts set expired_at = coalesce(expired_at, ?), sweep_claimed_at = null where namespace = ? and sha256 = ? and sweep_claimed_at = ? returning ${COLUMNS}`,
      [systemClock.now(), row.namespace, row.sha256, claimedAt], 'all');
    if (!done[0]) throw new ArtefactBeingDeletedError(namespace, row.sha256);
    return done[0];
  }

  /**
   * Retention only ever grows: a later document naming the same bytes keeps them for its own
   * period. False when the sweep has claimed or tombstoned the row meanwhile (nothing changed):
   * the row always takes the statement's lock, so a sweep's claim waits for it or it sees the claim.
   */
  private async extendRetention(ns: string, sha256: string, until: Date | null): Promise<boolean> {
    const touched = await this.em.fork().execute<unknown[]>(
      `update artefacts set retain_until = ${until ? 'case when retain_until is null then null else greatest(retain_until, ?::timestamptz) end' : 'retain_until'}
       where namespace = ? and sha256 = ? and sweep_claimed_at is null and expired_at is null returning 1`,
      [...(until ? [until] : []), ns, sha256], 'all');
    return touched.length > 0;
  }

  /** The backend at `location`; ArtefactStoreUnavailableError when none is configured there. */
  backendFor(location: ArtefactLocation): BlobBackend {
    const backend = this.backends.get(location);
    if (!backend) throw new ArtefactStoreUnavailableError(`reach its ${location} backend`, `artefacts stored in ${location} but no ${location} store is configured (EINV_ARTEFACTS_S3_*)`);
    return backend;
  }
}

/** On a concurrent insert: the longer of the two retentions (GREATEST skips a null: test data has none on either side). */
const GREATEST_RETENTION = 'greatest(artefacts.retain_until, excluded.retain_until)';
