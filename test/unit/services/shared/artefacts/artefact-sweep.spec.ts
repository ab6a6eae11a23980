/**
 * The retention sweep (services/shared/artefacts/sweep.ts), run the same against both backends:
 * bytes in PostgreSQL and in an S3-compatible store (s3rver on 127.0.0.1). Time is injected (the
 * sweep's `now`), never slept: artefacts stored today are swept "in 2034", when a French period
 * (6 years from 1 January 2027) has ended and an Italian one (10 years) has not.
 */
import { randomBytes } from 'node:crypto';
import type { MikroORM, EntityManager } from '@mikro-orm/postgresql';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { Artefacts } from '../../../../../services/shared/artefacts/artefacts.ts';
import { PgBlobBackend } from '../../../../../services/shared/artefacts/pg-blob-backend.ts';
import { S3BlobBackend } from '../../../../../services/shared/artefacts/s3-blob-backend.ts';
import { sweepSettingsFromEnv } from '../../../../../services/shared/artefacts/settings.ts';
import { retainUntil, retentionPolicyFromEnv, type RetentionPolicy } from '../../../../../services/shared/artefacts/retention.ts';
import { sweepArtefacts, type SweepOptions } from '../../../../../services/shared/artefacts/sweep.ts';
import { ArtefactBeingDeletedError, ArtefactExpiredError, namespaceKey, type ArtefactNamespace } from '../../../../../services/shared/artefacts/artefact-store.ts';
import { startArtefactBackends, type ArtefactBackends } from '../../../../support/artefact-backends.ts';

let backends: ArtefactBackends;
let orm: MikroORM;
let s3: ArtefactBackends['s3'];
let s3Backend: S3BlobBackend;

beforeAll(async () => {
  backends = await startArtefactBackends();
  ({ orm, s3, s3Backend } = backends);
}, 60_000);
afterAll(async () => { await backends?.stop(); });

const em = (): EntityManager => orm.em as EntityManager;
const policy = retentionPolicyFromEnv({});
const storedAt = new Date();
/** 1 June of the year the French period has ended (1 January, storage year + 7) and the Italian has not. */
const IN_FR_EXPIRY = new Date(Date.UTC(storedAt.getUTCFullYear() + 7, 5, 1));
const HOUR = 3_600_000;
let orgs = 0;
const freshNamespace = (): ArtefactNamespace => ({ organizationId: `org_sweep_${++orgs}_${randomBytes(3).toString('hex')}`, livemode: true });

async function sql<T>(text: string, params: unknown[] = []): Promise<T[]> {
  return em().fork().execute<T[]>(text, params, 'all');
}

async function hold(organizationId: string, sha256: string | null = null): Promise<string> {
  const id = `hold_${randomBytes(6).toString('hex')}`;
  await sql('insert into artefact_holds (id, organization_id, sha256, reason, created_at) values (?, ?, ?, ?, now()) returning id', [id, organizationId, sha256, 'tax audit 2031']);
  return id;
}

describe.each([
  ['PostgreSQL', 'pg' as const],
  ['S3-compatible store (s3rver)', 's3' as const],
])('retention sweep on %s', (_name, location) => {
  const store = (options: { sweepLeaseMs?: number } = {}): Artefacts => (location === 'pg' ? new Artefacts(em(), new PgBlobBackend(em()), [], options) : new Artefacts(em(), s3Backend, [new PgBlobBackend(em())], options));
  const sweep = (now: Date, more: Partial<SweepOptions> = {}) => sweepArtefacts(store(), em(), { now, policy, batch: 2, maxBatches: 1000, leaseMs: HOUR, orphanGraceMs: 24 * HOUR, ...more });

  /** Whether the backend still holds the bytes (asked of the backend itself, not through the index). */
  async function bytesThere(ns: ArtefactNamespace, sha256: string): Promise<boolean> {
    if (location === 'pg') return (await new PgBlobBackend(em()).read(ns, sha256)) !== null;
    try {
      await s3Backend.client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: s3Backend.keyOf(ns, sha256) }));
      return true;
    } catch {
      return false;
    }
  }

  async function putLive(ns: ArtefactNamespace, country: string, bytes: Buffer = randomBytes(2048), when = storedAt): Promise<string> {
    return (await store().put({ namespace: ns, bytes, contentType: 'application/xml', country, retainUntil: retainUntil(policy, { livemode: true, country, storedAt: when }) })).sha256;
  }

  it('deletes what has ended its retention (French, 6 years) and keeps what has not (Italian, 10 years; test data has no sweep)', async () => {
    const ns = freshNamespace();
    const french = await putLive(ns, 'FR');
    const italian = await putLive(ns, 'IT');
    const testData = (await store().put({ namespace: { ...ns, livemode: false }, bytes: randomBytes(100), contentType: 'application/xml', retainUntil: null })).sha256;

    // The day before the French period ends: nothing goes.
    const before = await sweep(new Date(Date.UTC(storedAt.getUTCFullYear() + 7, 0, 1) - 1));
    expect(before.byOrganization[ns.organizationId]).toBeUndefined();

    const report = await sweep(IN_FR_EXPIRY);
    expect(report.byOrganization[ns.organizationId]).toEqual({ expired: 1, unnamed: 0 });
    expect(await bytesThere(ns, french)).toBe(false);
    await expect(store().get(ns, french)).rejects.toBeInstanceOf(ArtefactExpiredError);
    expect(await store().stat(ns, french)).toMatchObject({ expiredAt: IN_FR_EXPIRY });
    expect((await store().get(ns, italian)).length).toBe(2048);
    expect((await store().get({ ...ns, livemode: false }, testData)).length).toBe(100);
    // A second run finds nothing more of it.
    expect((await sweep(IN_FR_EXPIRY)).byOrganization[ns.organizationId]).toBeUndefined();
  });

  it('keeps an artefact whose country\'s retention was lengthened since it was stored: the longer one wins', async () => {
    const ns = freshNamespace();
    const french = await putLive(ns, 'FR');
    const lengthened: RetentionPolicy = retentionPolicyFromEnv({ EINV_ARTEFACTS_RETENTION: 'FR=9' });
    const report = await sweep(IN_FR_EXPIRY, { policy: lengthened });
    expect(report.byOrganization[ns.organizationId]).toBeUndefined();
    expect(report.lengthened).toBeGreaterThanOrEqual(1);
    expect(await bytesThere(ns, french)).toBe(true);
    expect((await store().stat(ns, french))!.retainUntil).toEqual(new Date(Date.UTC(storedAt.getUTCFullYear() + 10, 0, 1)));
  });

  it('keeps bytes shared by an expired and an unexpired reference, and never lets a new reference name bytes being deleted', async () => {
    const ns = freshNamespace();
    const bytes = randomBytes(4096);
    // The same bytes named by a French document of long ago and by one of this year (Italian): one row, the longer retention.
    const sha256 = await putLive(ns, 'FR', bytes, new Date(Date.UTC(storedAt.getUTCFullYear() - 8, 2, 1)));
    await putLive(ns, 'IT', bytes);
    await sweep(IN_FR_EXPIRY);
    expect((await store().get(ns, sha256)).equals(bytes)).toBe(true);

    // Expired content meeting a new reference while the sweep deletes it: the put is refused (retryable)...
    const old = randomBytes(1024);
    const oldSha = await putLive(ns, 'FR', old);
    let refused: unknown;
    await sweep(IN_FR_EXPIRY, { afterClaim: async () => { refused = await putLive(ns, 'FR', old).catch((err: unknown) => err); } });
    expect(refused).toBeInstanceOf(ArtefactBeingDeletedError);
    expect(await bytesThere(ns, oldSha)).toBe(false);
    // ...and, retried, stores the bytes again under a revived row.
    await putLive(ns, 'FR', old);
    expect((await store().get(ns, oldSha)).equals(old)).toBe(true);
    expect(await store().stat(ns, oldSha)).toMatchObject({ expiredAt: null });
  });

  it('deletes nothing under a legal hold (the organization\'s or the artefact\'s) until it is released', async () => {
    const [whole, one] = [freshNamespace(), freshNamespace()];
    const heldByOrg = await putLive(whole, 'FR');
    const [heldItself, free] = [await putLive(one, 'FR'), await putLive(one, 'FR')];
    const orgHold = await hold(whole.organizationId);
    await hold(one.organizationId, heldItself);

    await sweep(IN_FR_EXPIRY);
    expect(await bytesThere(whole, heldByOrg)).toBe(true);
    expect(await bytesThere(one, heldItself)).toBe(true);
    expect(await bytesThere(one, free)).toBe(false);

    await sql('update artefact_holds set released_at = now() where id = ?', [orgHold]);
    await sweep(IN_FR_EXPIRY);
    expect(await bytesThere(whole, heldByOrg)).toBe(false);
    expect(await bytesThere(one, heldItself)).toBe(true);
  });

  it('a crash between the steps leaves a state the next run completes (after the lease)', async () => {
    const ns = freshNamespace();
    const [a, b] = [await putLive(ns, 'FR'), await putLive(ns, 'FR')];
    const cBytes = randomBytes(300);
    const c = await putLive(ns, 'FR', cBytes);
    const crash = (): never => { throw new Error('simulated crash'); };

    // Crashed after the claim: bytes still there, rows claimed (read as expired, not served).
    await expect(sweep(IN_FR_EXPIRY, { batch: 1000, afterClaim: crash })).rejects.toThrow('simulated crash');
    expect(await bytesThere(ns, a)).toBe(true);
    await expect(store().get(ns, a)).rejects.toBeInstanceOf(ArtefactExpiredError);
    // A writer meeting the claim: refused while it is fresh; past the lease, it finishes the crashed deletion and stores the bytes again.
    await expect(putLive(ns, 'FR', cBytes)).rejects.toBeInstanceOf(ArtefactBeingDeletedError);
    await store({ sweepLeaseMs: 0 }).put({ namespace: ns, bytes: cBytes, contentType: 'application/xml', country: 'IT', retainUntil: retainUntil(policy, { livemode: true, country: 'IT', storedAt }) });
    expect((await store().get(ns, c)).equals(cBytes)).toBe(true);
    expect(await store().stat(ns, c)).toMatchObject({ expiredAt: null, country: 'IT' });
    // Within the lease another run leaves them to their (crashed) claimant.
    expect((await sweep(IN_FR_EXPIRY)).byOrganization[ns.organizationId]).toBeUndefined();
    // Crashed again after deleting the bytes, before the finish: the bytes are gone, the rows still claimed.
    await expect(sweep(IN_FR_EXPIRY, { leaseMs: 0, afterBytesDeleted: crash })).rejects.toThrow('simulated crash');
    expect(await bytesThere(ns, a)).toBe(false);
    expect((await sql<{ claimed: boolean }>('select sweep_claimed_at is not null as claimed from artefacts where namespace = ? and sha256 = ?', [namespaceKey(ns), a]))[0]!.claimed).toBe(true);

    const done = await sweep(IN_FR_EXPIRY, { leaseMs: 0 });
    expect(done.byOrganization[ns.organizationId]).toEqual({ expired: 2, unnamed: 0 });
    for (const sha of [a, b]) expect(await store().stat(ns, sha)).toMatchObject({ expiredAt: IN_FR_EXPIRY });
  });

  it('one artefact whose bytes cannot be deleted does not stop the others', async () => {
    const ns = freshNamespace();
    const [a, b] = [await putLive(ns, 'FR'), await putLive(ns, 'FR')];
    // An index row the store cannot act on (a namespace no key can be made of).
    const broken = randomBytes(32).toString('hex');
    await sql(`insert into artefacts (namespace, sha256, size, content_type, location, retain_until, country, created_at) values ('not an org!/live', ?, 1, 'application/xml', ?, '2000-01-01', 'FR', '1990-01-01')`, [broken, location]);
    const report = await sweep(IN_FR_EXPIRY);
    expect(report.failed).toBeGreaterThanOrEqual(1);
    expect(report.byOrganization[ns.organizationId]).toEqual({ expired: 2, unnamed: 0 });
    expect(await bytesThere(ns, a)).toBe(false);
    expect(await bytesThere(ns, b)).toBe(false);
    await sql(`delete from artefacts where namespace = 'not an org!/live'`);
  });

  it('deletes bytes no artefact names once past the grace period, not within it, nor under a hold', async () => {
    const [ns, held] = [freshNamespace(), freshNamespace()];
    const primary = store().primary;
    const bytes = randomBytes(512);
    const sha256 = (await import('../../../../../services/shared/artefacts/artefacts.ts')).sha256Hex(bytes);
    // A put that failed after writing its bytes: nothing names them.
    await primary.write(ns, sha256, bytes, 'application/xml');
    await primary.write(held, sha256, bytes, 'application/xml');
    await hold(held.organizationId);
    const named = await putLive(ns, 'IT');

    const within = await sweep(new Date(Date.now() + HOUR));
    expect(within.byOrganization[ns.organizationId]).toBeUndefined();
    expect(await bytesThere(ns, sha256)).toBe(true);

    const past = await sweep(new Date(Date.now() + 25 * HOUR));
    expect(past.byOrganization[ns.organizationId]).toEqual({ expired: 0, unnamed: 1 });
    expect(await bytesThere(ns, sha256)).toBe(false);
    expect(await bytesThere(held, sha256)).toBe(true);
    expect(await bytesThere(ns, named)).toBe(true);
    if (location === 'pg') {
      // Old unnamed bytes that a put is about to name: its write renews their time, so the sweep leaves them.
      const stale = randomBytes(256);
      const staleSha = (await import('../../../../../services/shared/artefacts/artefacts.ts')).sha256Hex(stale);
      await primary.write(ns, staleSha, stale, 'application/xml');
      await sql(`update artefact_contents set created_at = now() - interval '2 days' where namespace = ? and sha256 = ?`, [namespaceKey(ns), staleSha]);
      await primary.write(ns, staleSha, stale, 'application/xml');
      await sweep(new Date(Date.now() + HOUR));
      expect(await bytesThere(ns, staleSha)).toBe(true);
    }
    // Put again later, the same bytes are stored and read back whole.
    await putLive(ns, 'IT', bytes);
    expect((await store().get(ns, sha256)).equals(bytes)).toBe(true);
  });
});

describe('a bounded run', () => {
  it('stops after its batches and the next run goes on where it stopped', async () => {
    const pgStore = new Artefacts(em(), new PgBlobBackend(em()));
    const ns = freshNamespace();
    // The oldest bytes in the table: first one a row names, then one nobody names.
    const named = (await pgStore.put({ namespace: ns, bytes: randomBytes(64), contentType: 'application/xml', retainUntil: null })).sha256;
    const orphan = randomBytes(64);
    const orphanSha = (await import('../../../../../services/shared/artefacts/artefacts.ts')).sha256Hex(orphan);
    await pgStore.primary.write(ns, orphanSha, orphan, 'application/xml');
    await sql(`update artefact_contents set created_at = '2000-01-01' where namespace = ? and sha256 = ?`, [namespaceKey(ns), named]);
    await sql(`update artefact_contents set created_at = '2000-01-02' where namespace = ? and sha256 = ?`, [namespaceKey(ns), orphanSha]);
    const run = () => sweepArtefacts(pgStore, em(), { now: new Date(), policy, batch: 1, maxBatches: 1, leaseMs: HOUR, orphanGraceMs: HOUR });

    expect((await run()).byOrganization[ns.organizationId]).toBeUndefined();
    expect(await pgStore.primary.read(ns, orphanSha)).not.toBeNull();
    expect((await run()).byOrganization[ns.organizationId]).toEqual({ expired: 0, unnamed: 1 });
    expect(await pgStore.primary.read(ns, orphanSha)).toBeNull();
    expect(await pgStore.primary.read(ns, named)).not.toBeNull();
  });
});

describe('sweep settings', () => {
  it('runs daily by default, can be switched off, and refuses a wrong schedule or bound', () => {
    expect(sweepSettingsFromEnv({})).toEqual({ cron: '30 3 * * *', batch: 100, maxBatches: 100, orphanGraceMs: 24 * HOUR, leaseMs: HOUR });
    expect(sweepSettingsFromEnv({ EINV_ARTEFACT_SWEEP_CRON: 'off' }).cron).toBeNull();
    expect(() => sweepSettingsFromEnv({ EINV_ARTEFACT_SWEEP_CRON: 'every day' })).toThrow(/EINV_ARTEFACT_SWEEP_CRON/);
    expect(() => sweepSettingsFromEnv({ EINV_ARTEFACT_SWEEP_BATCH: '0' })).toThrow(/EINV_ARTEFACT_SWEEP_BATCH/);
  });
});
