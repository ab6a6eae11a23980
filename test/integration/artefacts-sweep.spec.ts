/**
 * The retention sweep through the documents service, with the object store (s3rver on 127.0.0.1):
 * originals whose retention has ended are deleted, one under a legal hold is kept until the hold is
 * released, the documents naming them read as expired (a clear 404, never a 500), and the archive
 * export stays complete and verifiable: what went is listed as expired, what remains hashes right;
 * and the run shows in the metrics (einv_artefacts_swept_total) and the event log (artefacts.swept).
 */
import { createHash } from 'node:crypto';
import { unzipSync, strFromU8 } from 'fflate';
import { HeadObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import pg from 'pg';
import { startTestApp, api, bootstrap, type TestApp } from '../support/app.ts';
import { largeJsonInvoice } from '../support/hostile-inputs.ts';
import { startS3Server, type TestS3 } from '../support/s3-server.ts';
import { freePort } from '../support/servers.ts';
import { eventually } from '../support/webhook-receiver.ts';
import { parseExposition, valueOf } from '../support/prometheus.ts';
import type { ArchiveManifest } from '../../services/documents/archive.contract.ts';
import type { ArtefactHold } from '../../services/documents/artefacts.contract.ts';
import type { SweepReport } from '../../services/shared/artefacts/sweep.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';

let t: TestApp;
let s3: TestS3;
let client: S3Client;
let metricsUrl: string;
beforeAll(async () => {
  const metricsPort = await freePort();
  process.env.EINV_METRICS_PORT = String(metricsPort);
  process.env.EINV_METRICS_HOST = '127.0.0.1';
  metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
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
  delete process.env.EINV_METRICS_PORT;
  delete process.env.EINV_METRICS_HOST;
});

async function swept(outcome: string): Promise<number> {
  const res = await fetch(metricsUrl);
  expect(res.status).toBe(200);
  return valueOf(parseExposition(await res.text()), 'einv_artefacts_swept_total', { outcome }) ?? 0;
}

async function sql<T>(text: string, params: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: t.databaseUrl });
  await c.connect();
  try { return (await c.query(text, params)).rows as T[]; } finally { await c.end(); }
}

async function objectThere(key: string): Promise<boolean> {
  try {
    await client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: key }));
    return true;
  } catch {
    return false;
  }
}

async function sendUbl(seller: { apiKey: string; company: { vatNumber: string } }, to: string, number: string): Promise<{ id: string; sha256: string }> {
  const rendered = await api<{ renderedXml: string }>(t.baseUrl, 'POST', '/v1/documents/validate', { key: seller.apiKey, body: { format: 'json', type: 'invoice', document: largeJsonInvoice(number, 2, seller.company.vatNumber) } });
  const sent = await api<{ id: string }>(t.baseUrl, 'POST', '/v1/documents/send', { key: seller.apiKey, body: { type: 'invoice', format: 'ubl-xml', to, xml: rendered.body.renderedXml } });
  expect(sent.status).toBe(201);
  return { id: sent.body.id, sha256: createHash('sha256').update(rendered.body.renderedXml).digest('hex') };
}

async function exported(key: string): Promise<{ manifest: ArchiveManifest; files: Record<string, Uint8Array> }> {
  const res = await fetch(`${t.baseUrl}/v1/archive/export`, { headers: { authorization: `Bearer ${key}` } });
  expect(res.status).toBe(200);
  const files = unzipSync(new Uint8Array(await res.arrayBuffer()));
  const manifest = JSON.parse(strFromU8(files['manifest.json']!)) as ArchiveManifest;
  // Whatever the archive holds hashes to what its manifest and SHA256SUMS say.
  for (const entry of manifest.artefacts) expect(createHash('sha256').update(files[entry.path]!).digest('hex')).toBe(entry.sha256);
  expect(strFromU8(files['SHA256SUMS']!).split('\n').filter(Boolean).sort()).toEqual(manifest.artefacts.map((a) => `${a.sha256}  ${a.path}`).sort());
  return { manifest, files };
}

it('deletes originals whose retention has ended, keeps a held one until released, and the export stays complete and verifiable', async () => {
  const [seller, buyer] = [await bootstrap(t.baseUrl), await bootstrap(t.baseUrl)];
  const first = await sendUbl(seller, buyer.company.peppolId, 'SWEEP-1');
  const second = await sendUbl(seller, buyer.company.peppolId, 'SWEEP-2');
  const namespace = `${seller.organizationId}/test`;
  const keyOf = (sha256: string): string => `${seller.organizationId}/test/sha256/${sha256.slice(0, 2)}/${sha256}`;
  // As if both were French legal records stored in 2009 (six years from 1 January 2010: ended in 2016).
  await sql(`update artefacts set retain_until = '2016-01-01', created_at = '2009-03-01', country = 'FR' where namespace = $1 and sha256 = any($2)`, [namespace, [first.sha256, second.sha256]]);

  const broker = t.app.broker;
  const missing = await broker.call('documents.placeArtefactHold', { organizationId: seller.organizationId, sha256: 'f'.repeat(64), reason: 'audit' }).catch((err: { type?: string }) => err);
  expect((missing as { type?: string }).type).toBe('RESOURCE_NOT_FOUND');
  const hold = await broker.call<ArtefactHold, object>('documents.placeArtefactHold', { organizationId: seller.organizationId, sha256: second.sha256, reason: 'VAT audit 2026-114' });
  expect(hold).toMatchObject({ organizationId: seller.organizationId, sha256: second.sha256, releasedAt: null });

  const expiredBefore = await swept('expired');
  const report = await broker.call<SweepReport, object>('documents.sweepArtefacts', {});
  expect(report.byOrganization[seller.organizationId]).toEqual({ expired: 1, unnamed: 0 });
  expect(await swept('expired')).toBe(expiredBefore + 1);
  // One event per organization and mode in the event log (log-only: no webhook), counts and no content.
  const events = await api<{ data: Array<{ type: string; livemode: boolean; data: Record<string, unknown> }> }>(t.baseUrl, 'GET', '/v1/events?type=artefacts.swept', { key: seller.apiKey });
  expect(events.status).toBe(200);
  expect(events.body.data).toEqual([expect.objectContaining({ type: 'artefacts.swept', livemode: false, data: { expired: 1, unnamed: 0, sweptAt: expect.any(String) } })]);
  expect(await objectThere(keyOf(first.sha256))).toBe(false);
  expect(await objectThere(keyOf(second.sha256))).toBe(true);

  // The document still exists; its original reads as expired: a clear 404 in the envelope.
  const gone = await api<{ error: { code: string; message: string } }>(t.baseUrl, 'GET', `/v1/documents/${first.id}/original`, { key: seller.apiKey });
  expect(gone.status).toBe(404);
  expect(gone.body.error.message).toMatch(/end of its retention period/);

  const afterSweep = await exported(seller.apiKey);
  expect(afterSweep.manifest).toMatchObject({ complete: true, unavailable: [], documents: 2 });
  expect(afterSweep.manifest.expired).toEqual([{ documentId: first.id, kind: 'original', expiredAt: expect.any(String) }]);
  expect(afterSweep.manifest.artefacts.map((a) => [a.documentId, a.sha256])).toEqual([[second.id, second.sha256]]);

  // Released: the next run deletes it too.
  const released = await broker.call<ArtefactHold, object>('documents.releaseArtefactHold', { organizationId: seller.organizationId, id: hold.id });
  expect(released.releasedAt).not.toBeNull();
  const listed = await broker.call<{ data: ArtefactHold[] }, object>('documents.listArtefactHolds', { organizationId: seller.organizationId });
  expect(listed.data.map((h) => h.id)).toEqual([hold.id]);
  expect((await broker.call<SweepReport, object>('documents.sweepArtefacts', {})).byOrganization[seller.organizationId]).toEqual({ expired: 1, unnamed: 0 });
  expect(await objectThere(keyOf(second.sha256))).toBe(false);
  const afterRelease = await exported(seller.apiKey);
  expect(afterRelease.manifest).toMatchObject({ complete: true, artefacts: [] });
  expect(afterRelease.manifest.expired.map((e) => e.documentId).sort()).toEqual([first.id, second.id].sort());
}, 60_000);

it('an organization places and releases its own legal hold over HTTP; while it holds, the sweep keeps everything', async () => {
  const [seller, buyer] = [await bootstrap(t.baseUrl), await bootstrap(t.baseUrl)];
  const doc = await sendUbl(seller, buyer.company.peppolId, 'SWEEP-HTTP-1');
  const namespace = `${seller.organizationId}/test`;
  await sql(`update artefacts set retain_until = '2016-01-01', created_at = '2009-03-01', country = 'FR' where namespace = $1 and sha256 = $2`, [namespace, doc.sha256]);
  const key = seller.apiKey;

  const badHash = await api<{ error: { code: string } }>(t.baseUrl, 'POST', '/v1/archive/holds', { key, body: { sha256: 'not-a-hash', reason: 'audit' } });
  expect(badHash.status).toBe(400);
  expect(JSON.stringify(badHash.body)).toMatch(/sha256/);
  const noReason = await api<{ error: { code: string } }>(t.baseUrl, 'POST', '/v1/archive/holds', { key, body: {} });
  expect(noReason.status).toBe(400);
  const unknown = await api<{ error: { code: string } }>(t.baseUrl, 'POST', '/v1/archive/holds', { key, body: { sha256: 'e'.repeat(64), reason: 'audit' } });
  expect(unknown.status).toBe(404);
  expect(unknown.body.error.code).toBe('RESOURCE_NOT_FOUND');
  // The buyer holds the same bytes (its own received copy, once delivered): its hold is on its copy, never on the seller's.
  await eventually(async () => (await sql('select 1 from artefacts where namespace = $1 and sha256 = $2', [`${buyer.organizationId}/test`, doc.sha256])).length > 0 || undefined, 15_000, 'the buyer\'s copy');
  const buyerHold = await api<ArtefactHold>(t.baseUrl, 'POST', '/v1/archive/holds', { key: buyer.apiKey, body: { sha256: doc.sha256, reason: 'audit' } });
  expect(buyerHold.status).toBe(201);
  expect(buyerHold.body).toMatchObject({ organizationId: buyer.organizationId, sha256: doc.sha256 });

  const placed = await api<ArtefactHold>(t.baseUrl, 'POST', '/v1/archive/holds', { key, body: { reason: 'Dispute with a buyer, case 2026-77' } });
  expect(placed.status).toBe(201);
  expect(placed.body).toMatchObject({ organizationId: seller.organizationId, sha256: null, reason: 'Dispute with a buyer, case 2026-77', releasedAt: null });
  expect(placed.body.id).toMatch(/^hold_/);

  await t.app.broker.call('documents.sweepArtefacts', {});
  expect((await exported(key)).manifest.artefacts.map((a) => a.sha256)).toEqual([doc.sha256]);

  const listed = await api<{ data: ArtefactHold[] }>(t.baseUrl, 'GET', '/v1/archive/holds', { key });
  expect(listed.status).toBe(200);
  expect(listed.body.data.map((h) => h.id)).toEqual([placed.body.id]);
  expect((await api<{ data: ArtefactHold[] }>(t.baseUrl, 'GET', '/v1/archive/holds', { key: buyer.apiKey })).body.data.map((h) => h.id)).toEqual([buyerHold.body.id]);
  // Only the organization that placed it releases it.
  expect((await api(t.baseUrl, 'POST', `/v1/archive/holds/${placed.body.id}/release`, { key: buyer.apiKey })).status).toBe(404);

  const released = await api<ArtefactHold>(t.baseUrl, 'POST', `/v1/archive/holds/${placed.body.id}/release`, { key });
  expect(released.status).toBe(200);
  expect(released.body.releasedAt).toEqual(expect.any(String));
  // The buyer's hold on the same hash does not keep the seller's copy.
  await t.app.broker.call('documents.sweepArtefacts', {});
  const after = (await exported(key)).manifest;
  expect(after.artefacts).toEqual([]);
  expect(after.expired.map((e) => e.documentId)).toEqual([doc.id]);
}, 60_000);
