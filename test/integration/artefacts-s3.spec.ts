/**
 * The documents path with an S3-compatible artefact store configured (s3rver on 127.0.0.1): an
 * invoice sent and received keeps its original in the object store, for the sender and the
 * recipient, read back byte for byte; the archive export streams a ZIP whose manifest's hashes
 * match its files; a sandbox reset deletes the test originals through the store.
 */
import { createHash } from 'node:crypto';
import { unzipSync, strFromU8 } from 'fflate';
import { ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import pg from 'pg';
import type { EntityManager } from '@mikro-orm/postgresql';
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';
import { largeJsonInvoice } from '../support/hostile-inputs.ts';
import { eventually } from '../support/webhook-receiver.ts';
import { startS3Server, type TestS3 } from '../support/s3-server.ts';
import type { ArchiveManifest } from '../../services/documents/archive.contract.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';

let t: TestApp;
let s3: TestS3;
let client: S3Client;
beforeAll(async () => {
  s3 = await startS3Server();
  Object.assign(process.env, s3.env);
  client = s3.client();
  t = await startTestApp();
}, 60_000);
afterAll(async () => {
  await t?.stop();
  client?.destroy();
  await s3?.stop();
  for (const name of Object.keys(s3?.env ?? {})) delete process.env[name];
});

async function objectKeys(prefix: string): Promise<string[]> {
  const listed = await client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: prefix }));
  return (listed.Contents ?? []).map((o) => o.Key!);
}

async function sql<T>(text: string, params: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: t.databaseUrl });
  await c.connect();
  try { return (await c.query(text, params)).rows as T[]; } finally { await c.end(); }
}

async function download(path: string, key: string): Promise<{ status: number; type: string | null; bytes: Buffer }> {
  const res = await fetch(`${t.baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
}

async function sendUbl(seller: { apiKey: string; company: { vatNumber: string } }, to: string, number: string): Promise<{ id: string; xml: string }> {
  const rendered = await api<{ renderedXml: string }>(t.baseUrl, 'POST', '/v1/documents/validate', { key: seller.apiKey, body: { format: 'json', type: 'invoice', document: largeJsonInvoice(number, 2, seller.company.vatNumber) } });
  const xml = rendered.body.renderedXml;
  const sent = await api<{ id: string }>(t.baseUrl, 'POST', '/v1/documents/send', { key: seller.apiKey, body: { type: 'invoice', format: 'ubl-xml', to, xml } });
  expect(sent.status).toBe(201);
  return { id: sent.body.id, xml };
}

it('an invoice sent and received keeps its original in the object store, read back byte for byte on both sides', async () => {
  const [seller, buyer] = [await bootstrap(t.baseUrl), await bootstrap(t.baseUrl)];
  const { id, xml } = await sendUbl(seller, buyer.company.peppolId, 'S3-ORIGINAL-1');
  const sha256 = createHash('sha256').update(xml).digest('hex');

  const mine = await download(`/v1/documents/${id}/original`, seller.apiKey);
  expect(mine.status).toBe(200);
  expect(mine.bytes.equals(Buffer.from(xml))).toBe(true);
  // In the bucket under the sender's namespace, named by its hash; nothing of it in PostgreSQL.
  expect(await objectKeys(`${seller.organizationId}/test/`)).toEqual([`${seller.organizationId}/test/sha256/${sha256.slice(0, 2)}/${sha256}`]);
  expect(await sql(`select original_sha256, original_content from documents where id = $1`, [id])).toEqual([{ original_sha256: sha256, original_content: null }]);
  expect(await sql(`select location from artefacts where namespace = $1`, [`${seller.organizationId}/test`])).toEqual([{ location: 's3' }]);
  expect(await sql(`select count(*)::int as n from artefact_contents`)).toEqual([{ n: 0 }]);
  const evidence = await api<{ originalSha256: string }>(t.baseUrl, 'GET', `/v1/documents/${id}/evidence`, { key: seller.apiKey });
  expect(evidence.body.originalSha256).toBe(sha256);

  // Delivered over the sandbox network: the recipient's copy is in its own namespace, same bytes.
  const incoming = await eventually(async () => {
    const list = await api<{ data: Array<{ id: string; number: string }> }>(t.baseUrl, 'GET', '/v1/documents?direction=incoming', { key: buyer.apiKey });
    return list.body.data.find((d) => d.number === 'S3-ORIGINAL-1');
  }, 15_000, 'the recipient\'s copy');
  const theirs = await download(`/v1/documents/${incoming.id}/original`, buyer.apiKey);
  expect(theirs.bytes.equals(Buffer.from(xml))).toBe(true);
  expect(await objectKeys(`${buyer.organizationId}/test/`)).toEqual([`${buyer.organizationId}/test/sha256/${sha256.slice(0, 2)}/${sha256}`]);
}, 60_000);

it('exports the archive as a streamed ZIP whose manifest gives the SHA-256 of every artefact', async () => {
  const [seller, buyer] = [await bootstrap(t.baseUrl), await bootstrap(t.baseUrl)];
  const sent = [await sendUbl(seller, buyer.company.peppolId, 'S3-ARCHIVE-1'), await sendUbl(seller, buyer.company.peppolId, 'S3-ARCHIVE-2')];

  const res = await download('/v1/archive/export', seller.apiKey);
  expect(res.status).toBe(200);
  expect(res.type).toBe('application/zip');
  const files = unzipSync(new Uint8Array(res.bytes));
  const manifest = JSON.parse(strFromU8(files['manifest.json']!)) as ArchiveManifest;
  expect(manifest).toMatchObject({ organizationId: seller.organizationId, livemode: false, algorithm: 'SHA-256', documents: 2, complete: true, unavailable: [] });
  expect(manifest.artefacts.map((a) => a.path).sort()).toEqual(sent.map((s) => `documents/${s.id}/original.xml`).sort());
  for (const entry of manifest.artefacts) {
    const bytes = files[entry.path]!;
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(entry.sha256);
    expect(bytes.length).toBe(entry.size);
    expect(Buffer.from(bytes).equals(Buffer.from(sent.find((s) => s.id === entry.documentId)!.xml))).toBe(true);
  }
  // SHA256SUMS says the same, in `sha256sum -c` form.
  expect(strFromU8(files['SHA256SUMS']!).trim().split('\n').sort()).toEqual(manifest.artefacts.map((a) => `${a.sha256}  ${a.path}`).sort());
  // Another organization's archive holds none of them.
  const other = unzipSync(new Uint8Array((await download('/v1/archive/export', (await bootstrap(t.baseUrl)).apiKey)).bytes));
  expect(JSON.parse(strFromU8(other['manifest.json']!))).toMatchObject({ documents: 0, artefacts: [] });
}, 60_000);

it('a sandbox reset deletes the test originals through the store, and keeps those other documents still name', async () => {
  const [seller, buyer] = [await bootstrap(t.baseUrl), await bootstrap(t.baseUrl)];
  await sendUbl(seller, buyer.company.peppolId, 'S3-RESET-1');
  expect(await objectKeys(`${seller.organizationId}/test/`)).toHaveLength(1);
  const reset = await api(t.baseUrl, 'POST', '/v1/sandbox/reset', { key: seller.apiKey, body: { confirm: 'yes', scope: 'documents' } });
  expect(reset.status).toBe(200);
  expect(await objectKeys(`${seller.organizationId}/test/`)).toEqual([]);
  expect(await sql(`select count(*)::int as n from artefacts where namespace = $1`, [`${seller.organizationId}/test`])).toEqual([{ n: 0 }]);
  // The recipient's copy lives in its own namespace: untouched.
  await eventually(async () => (await objectKeys(`${buyer.organizationId}/test/`)).length === 1 || undefined, 15_000, 'the recipient\'s original');
}, 60_000);

it('a live original is kept for its country\'s retention: the documents\' delete path is refused by the store', async () => {
  const { storeOriginal, purgeArtefacts, artefactsOf } = await import('../../services/documents/originals.ts');
  const { databaseOf } = await import('../../services/shared/persistence/database.ts');
  const broker = t.app.broker;
  const organizationId = (await bootstrap(t.baseUrl)).organizationId;
  const namespace = { organizationId, livemode: true };
  const storedAt = new Date();
  const year = storedAt.getUTCFullYear();
  const italian = await storeOriginal(broker, { organizationId, livemode: true, country: 'IT', storedAt, bytes: Buffer.from('<Invoice>IT live</Invoice>'), contentType: 'application/xml' });
  const french = await storeOriginal(broker, { organizationId, livemode: true, country: 'FR', storedAt, bytes: Buffer.from('<Invoice>FR live</Invoice>'), contentType: 'application/xml' });
  expect((await artefactsOf(broker).stat(namespace, italian))!.retainUntil).toEqual(new Date(Date.UTC(year + 11, 0, 1)));
  expect((await artefactsOf(broker).stat(namespace, french))!.retainUntil).toEqual(new Date(Date.UTC(year + 7, 0, 1)));

  const purged = await purgeArtefacts(broker, databaseOf(broker).em.fork() as EntityManager, namespace, [italian, french]);
  expect(purged.deleted).toBe(0);
  expect(purged.kept.map((k) => k.reason)).toEqual([
    expect.stringMatching(new RegExp(`under statutory retention \\(IT\\) until ${year + 11}-01-01T00:00:00.000Z`)),
    expect.stringMatching(new RegExp(`under statutory retention \\(FR\\) until ${year + 7}-01-01T00:00:00.000Z`)),
  ]);
  // Still in the object store, still readable.
  expect(await objectKeys(`${organizationId}/live/`)).toHaveLength(2);
  expect((await artefactsOf(broker).get(namespace, italian)).toString()).toBe('<Invoice>IT live</Invoice>');
});

it('with the object store down, a send and a read answer 503 UPSTREAM_UNAVAILABLE in the envelope, never a 500 (last: stops the store)', async () => {
  const [seller, buyer] = [await bootstrap(t.baseUrl), await bootstrap(t.baseUrl)];
  const { id, xml } = await sendUbl(seller, buyer.company.peppolId, 'S3-DOWN-1');
  const hash = createHash('sha256').update(xml).digest('hex');
  await s3.stop();
  const read = await api(t.baseUrl, 'GET', `/v1/documents/${id}/original`, { key: seller.apiKey });
  expectEnvelope(read, 503, 'UPSTREAM_UNAVAILABLE');
  expect(read.body.error.message).toBe(`The artefact store could not read object ${seller.organizationId}/test/sha256/${hash.slice(0, 2)}/${hash} (ECONNREFUSED); retry after the delay given`);
  expect(read.headers.get('retry-after')).toBe('5');
  const rendered = await api<{ renderedXml: string }>(t.baseUrl, 'POST', '/v1/documents/validate', { key: seller.apiKey, body: { format: 'json', type: 'invoice', document: largeJsonInvoice('S3-DOWN-2', 1, seller.company.vatNumber) } });
  const sent = await api(t.baseUrl, 'POST', '/v1/documents/send', { key: seller.apiKey, body: { type: 'invoice', format: 'ubl-xml', to: buyer.company.peppolId, xml: rendered.body.renderedXml } });
  expectEnvelope(sent, 503, 'UPSTREAM_UNAVAILABLE');
  // Nothing was recorded for the refused send: the row is written only after its bytes are stored.
  expect(await sql(`select count(*)::int as n from documents where number = 'S3-DOWN-2'`)).toEqual([{ n: 0 }]);
}, 60_000);
