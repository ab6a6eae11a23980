/**
 * The artefact store's contract, run the same against both backends: bytes in PostgreSQL (the
 * embedded default) and in an S3-compatible object store (s3rver on 127.0.0.1). Content-addressed,
 * stored once per namespace, immutable, refusing deletion before the end of retention; and, for the
 * object store, failures that arrive as typed errors.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { MikroORM, EntityManager } from '@mikro-orm/postgresql';
import { HeadObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { Artefacts } from '../../../../../services/shared/artefacts/artefacts.ts';
import { PgBlobBackend } from '../../../../../services/shared/artefacts/pg-blob-backend.ts';
import { S3BlobBackend } from '../../../../../services/shared/artefacts/s3-blob-backend.ts';
import { artefactsFromEnv, s3SettingsFromEnv } from '../../../../../services/shared/artefacts/settings.ts';
import type { ArtefactNamespace } from '../../../../../services/shared/artefacts/artefact-store.ts';
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
const hex = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');
const later = (years: number): Date => new Date(Date.now() + years * 365 * 86_400_000);
let orgs = 0;
const freshNamespace = (livemode = true): ArtefactNamespace => ({ organizationId: `org_contract_${++orgs}_${randomBytes(3).toString('hex')}`, livemode });

/** How many copies of these bytes the backend holds, whatever the namespace. */
async function copiesOf(location: 'pg' | 's3', sha256: string): Promise<number> {
  if (location === 'pg') {
    const rows = await em().fork().execute<Array<{ n: string }>>('select count(*) as n from artefact_contents where sha256 = ?', [sha256], 'all');
    return Number(rows[0]!.n);
  }
  const listed = await s3Backend.client.send(new ListObjectsV2Command({ Bucket: s3.bucket }));
  return (listed.Contents ?? []).filter((o) => o.Key!.endsWith(`/${sha256}`)).length;
}

describe.each([
  ['PostgreSQL', 'pg' as const],
  ['S3-compatible store (s3rver)', 's3' as const],
])('artefact store on %s', (_name, location) => {
  const store = (): Artefacts => (location === 'pg' ? new Artefacts(em(), new PgBlobBackend(em())) : new Artefacts(em(), s3Backend, [new PgBlobBackend(em())]));

  it('names bytes by their SHA-256 and gives them back unchanged', async () => {
    const ns = freshNamespace();
    const bytes = randomBytes(70_000);
    const put = await store().put({ namespace: ns, bytes, contentType: 'application/pdf', retainUntil: later(10), country: 'IT' });
    expect(put).toEqual({ sha256: hex(bytes), size: bytes.length, created: true });
    expect((await store().get(ns, put.sha256)).equals(bytes)).toBe(true);
    expect(await store().stat(ns, put.sha256)).toMatchObject({ sha256: hex(bytes), size: bytes.length, contentType: 'application/pdf', location, country: 'IT' });
  });

  it('stores the same bytes once per namespace, and once more in another namespace', async () => {
    const [a, b] = [freshNamespace(), freshNamespace()];
    const bytes = randomBytes(1024);
    const first = await store().put({ namespace: a, bytes, contentType: 'application/xml', retainUntil: null });
    const again = await store().put({ namespace: a, bytes: Buffer.from(bytes), contentType: 'application/xml', retainUntil: null });
    expect(first.created).toBe(true);
    expect(again).toEqual({ ...first, created: false });
    expect(await copiesOf(location, first.sha256)).toBe(1);
    await store().put({ namespace: b, bytes, contentType: 'application/xml', retainUntil: null });
    expect(await copiesOf(location, first.sha256)).toBe(2);
    // A namespace reads only its own artefacts.
    const stranger = freshNamespace();
    await expect(store().get(stranger, first.sha256)).rejects.toMatchObject({ type: 'RESOURCE_NOT_FOUND' });
  });

  it('never overwrites: a put of stored content keeps the first copy and its description', async () => {
    const ns = freshNamespace();
    const bytes = Buffer.from('<Invoice>immutable</Invoice>');
    const { sha256 } = await store().put({ namespace: ns, bytes, contentType: 'application/xml', retainUntil: later(6), country: 'FR' });
    const before = location === 's3' ? await s3Backend.client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: s3Backend.keyOf(ns, sha256) })) : undefined;
    await new Promise((r) => setTimeout(r, 1_100)); // a rewrite would show a later Last-Modified (second resolution)
    await store().put({ namespace: ns, bytes, contentType: 'text/plain', retainUntil: later(6), country: 'FR' });
    expect(await store().stat(ns, sha256)).toMatchObject({ contentType: 'application/xml' });
    if (before) {
      const after = await s3Backend.client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: s3Backend.keyOf(ns, sha256) }));
      expect(after.LastModified).toEqual(before.LastModified);
      expect(after.ContentType).toBe('application/xml');
    }
  });

  it('refuses to delete before the end of retention, deletes after it, and retention only grows', async () => {
    const ns = freshNamespace();
    const bytes = randomBytes(2048);
    const { sha256 } = await store().put({ namespace: ns, bytes, contentType: 'application/xml', retainUntil: new Date(Date.now() - 1_000), country: 'FR' });
    // A second document naming the same bytes keeps them for its own period.
    await store().put({ namespace: ns, bytes, contentType: 'application/xml', retainUntil: later(10), country: 'IT' });
    // A shorter one never shortens it.
    await store().put({ namespace: ns, bytes, contentType: 'application/xml', retainUntil: later(1), country: 'FR' });
    const refused = await store().delete(ns, sha256).catch((e: unknown) => e);
    expect(refused).toMatchObject({ type: 'RETENTION_PERIOD_ACTIVE', name: 'RetentionPeriodActiveError' });
    expect((refused as { data: { extra: { retainUntil: string } } }).data.extra.retainUntil.slice(0, 4)).toBe(String(later(10).getUTCFullYear()));
    expect((await store().get(ns, sha256)).equals(bytes)).toBe(true);
    expect(await copiesOf(location, sha256)).toBe(1);

    const expired = freshNamespace();
    const old = await store().put({ namespace: expired, bytes, contentType: 'application/xml', retainUntil: new Date(Date.now() - 1_000), country: 'FR' });
    expect(await store().delete(expired, old.sha256)).toBe(true);
    await expect(store().get(expired, old.sha256)).rejects.toMatchObject({ type: 'RESOURCE_NOT_FOUND' });
    expect(await store().delete(expired, old.sha256)).toBe(false);
  });

  it('deletes test data (no retention) at once', async () => {
    const ns = freshNamespace(false);
    const { sha256 } = await store().put({ namespace: ns, bytes: randomBytes(64), contentType: 'application/octet-stream', retainUntil: null });
    expect(await store().delete(ns, sha256)).toBe(true);
    expect(await store().stat(ns, sha256)).toBeNull();
    expect(await copiesOf(location, sha256)).toBe(0);
  });

  it('lists a namespace in hash order, page by page', async () => {
    const ns = freshNamespace();
    const hashes: string[] = [];
    for (let i = 0; i < 5; i++) hashes.push((await store().put({ namespace: ns, bytes: randomBytes(32), contentType: 'application/xml', retainUntil: null })).sha256);
    const first = await store().list(ns, { limit: 3 });
    const rest = await store().list(ns, { after: first.at(-1)!.sha256, limit: 3 });
    expect([...first, ...rest].map((a) => a.sha256)).toEqual([...hashes].sort());
  });

  it('never serves bytes that no longer match their name', async () => {
    const ns = freshNamespace();
    const { sha256 } = await store().put({ namespace: ns, bytes: Buffer.from('original'), contentType: 'text/plain', retainUntil: null });
    await (location === 'pg' ? new PgBlobBackend(em()) : s3Backend).remove(ns, sha256);
    await (location === 'pg'
      ? em().fork().execute('insert into artefact_contents (namespace, sha256, content) values (?, ?, ?)', [`${ns.organizationId}/live`, sha256, Buffer.from('tampered')], 'run')
      : s3Backend.write(ns, sha256, Buffer.from('tampered'), 'text/plain'));
    await expect(store().get(ns, sha256)).rejects.toMatchObject({ type: 'UPSTREAM_ERROR', name: 'ArtefactCorruptError' });
  });
});

describe('artefact store on an object store that fails', () => {
  it('gives typed, retryable errors (503 with Retry-After), never a raw SDK error', async () => {
    const down = new S3BlobBackend({ ...s3SettingsFromEnv(s3.env)!, endpoint: 'http://127.0.0.1:9', connectTimeoutMs: 500, requestTimeoutMs: 1_000 });
    const wrongBucket = new S3BlobBackend({ ...s3SettingsFromEnv(s3.env)!, bucket: 'no-such-bucket' });
    try {
      for (const backend of [down, wrongBucket]) {
        const err = await new Artefacts(em(), backend).put({ namespace: freshNamespace(), bytes: randomBytes(16), contentType: 'text/plain', retainUntil: null }).catch((e: unknown) => e);
        expect(err).toMatchObject({ name: 'ArtefactStoreUnavailableError', type: 'UPSTREAM_UNAVAILABLE', data: { retryAfter: 5 } });
        expect((err as Error).message).toMatch(/^The artefact store could not (check|write) object \S+ \((ECONNREFUSED|NoSuchBucket, HTTP 404: The specified bucket does not exist)\); retry after the delay given$/);
        expect((err as Error).message).not.toContain('127.0.0.1');
      }
    } finally {
      down.destroy();
      wrongBucket.destroy();
    }
  });

  it('an artefact indexed in the object store reads as unavailable when no object store is configured', async () => {
    const ns = freshNamespace();
    const { sha256 } = await new Artefacts(em(), s3Backend).put({ namespace: ns, bytes: randomBytes(16), contentType: 'text/plain', retainUntil: null });
    await expect(artefactsFromEnv(em(), {}).get(ns, sha256)).rejects.toMatchObject({ type: 'UPSTREAM_UNAVAILABLE' });
  });
});
