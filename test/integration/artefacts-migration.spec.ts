/**
 * Moving existing artefacts to an object store (services/documents/artefact-migration.ts): a
 * platform that ran on PostgreSQL (originals in documents rows from before the store, and in the
 * store's PostgreSQL table) configures S3 and runs the migration. Blobs are copied, checked and
 * their references swapped; a lost blob fails alone; a second run changes nothing; reads through
 * the API still give the same bytes.
 */
import { createHash } from 'node:crypto';
import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import pg from 'pg';
import { unzipSync } from 'fflate';
import { startTestApp, api, bootstrap, expectEnvelope, type TestApp } from '../support/app.ts';
import { createTestDatabase } from '../support/database.ts';
import { largeJsonInvoice } from '../support/hostile-inputs.ts';
import { eventually } from '../support/webhook-receiver.ts';
import { startS3Server, type TestS3 } from '../support/s3-server.ts';
import { ormConfig } from '../../services/shared/persistence/orm.config.ts';
import { artefactsFromEnv } from '../../services/shared/artefacts/settings.ts';
import { retentionPolicyFromEnv } from '../../services/shared/artefacts/retention.ts';
import { migrateArtefacts } from '../../services/documents/artefact-migration.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let s3: TestS3;
let t: TestApp | undefined;
beforeAll(async () => {
  db = await createTestDatabase();
  s3 = await startS3Server();
}, 60_000);
afterAll(async () => {
  await t?.stop({ keepDatabase: true });
  for (const name of Object.keys(s3?.env ?? {})) delete process.env[name];
  await s3?.stop();
  await db?.drop();
});

async function sql<T>(text: string, params: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  try { return (await c.query(text, params)).rows as T[]; } finally { await c.end(); }
}

async function original(app: TestApp, id: string, key: string): Promise<{ status: number; bytes: Buffer; text: string }> {
  const res = await fetch(`${app.baseUrl}/v1/documents/${id}/original`, { headers: { authorization: `Bearer ${key}` } });
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, bytes, text: bytes.toString('utf8') };
}

async function migrate() {
  const orm = await MikroORM.init(ormConfig(db.url));
  try {
    const em = orm.em as EntityManager;
    const artefacts = artefactsFromEnv(em, s3.env);
    try {
      return await migrateArtefacts(em, artefacts, retentionPolicyFromEnv({}), { batch: 2 });
    } finally {
      (artefacts.primary as { destroy?: () => void }).destroy?.();
    }
  } finally {
    await orm.close(true);
  }
}

it('copies blobs from PostgreSQL to the object store, swaps references, survives a bad row, and reads still work', async () => {
  // 1. On PostgreSQL (the embedded default): three invoices sent, each delivered to the buyer.
  t = await startTestApp({ databaseUrl: db.url });
  const [seller, buyer] = [await bootstrap(t.baseUrl), await bootstrap(t.baseUrl)];
  const sent: Array<{ id: string; number: string; xml: string }> = [];
  for (const number of ['MIG-1', 'MIG-2', 'MIG-3']) {
    const rendered = await api<{ renderedXml: string }>(t.baseUrl, 'POST', '/v1/documents/validate', { key: seller.apiKey, body: { format: 'json', type: 'invoice', document: largeJsonInvoice(number, 1, seller.company.vatNumber) } });
    const res = await api<{ id: string }>(t.baseUrl, 'POST', '/v1/documents/send', { key: seller.apiKey, body: { type: 'invoice', format: 'ubl-xml', to: buyer.company.peppolId, xml: rendered.body.renderedXml } });
    expect(res.status).toBe(201);
    sent.push({ id: res.body.id, number, xml: rendered.body.renderedXml });
  }
  const incoming = await eventually(async () => {
    const list = await api<{ data: Array<{ id: string; number: string }> }>(t!.baseUrl, 'GET', '/v1/documents?direction=incoming', { key: buyer.apiKey });
    return list.body.data.length === 3 ? list.body.data : undefined;
  }, 20_000, 'the buyer\'s three copies');
  await t.stop({ keepDatabase: true });
  t = undefined;
  const hashOf = (xml: string) => createHash('sha256').update(xml).digest('hex');
  expect(await sql('select count(*)::int as n from artefacts where location = $1', ['pg'])).toEqual([{ n: 6 }]);

  // MIG-1 as stored before the artefact store existed: its bytes in its documents row.
  const [legacy, lost, plain] = sent as [typeof sent[number], typeof sent[number], typeof sent[number]];
  const sellerNs = `${seller.organizationId}/test`;
  await sql(`update documents set original_content = c.content, original_sha256 = null from artefact_contents c where documents.id = $1 and c.namespace = $2 and c.sha256 = documents.original_sha256`, [legacy.id, sellerNs]);
  await sql('delete from artefact_contents where namespace = $1 and sha256 = $2', [sellerNs, hashOf(legacy.xml)]);
  await sql('delete from artefacts where namespace = $1 and sha256 = $2', [sellerNs, hashOf(legacy.xml)]);
  // MIG-3 carries a tax authority's receipt and signed original and a network receipt inline (base64), as before the store.
  const upo = Buffer.from('<UPO><NumerKSeF>1234567890-20260301-ABCDEF-01</NumerKSeF></UPO>');
  const signedOriginal = Buffer.from('<SignedInvoice>MIG-3</SignedInvoice>');
  const as4Receipt = Buffer.from('<eb:Receipt>MIG-3</eb:Receipt>');
  await sql(`update documents set clearance = $2::jsonb, evidence = $3::jsonb where id = $1`, [plain.id,
    JSON.stringify({ authority: 'KSeF', connectorId: 'pl-ksef', status: 'cleared', authorityId: 'K-1', at: '2026-03-01T10:00:00Z', receipt: { content: upo.toString('base64'), contentType: 'application/xml', filename: 'upo.xml' }, legalOriginal: { content: signedOriginal.toString('base64'), contentType: 'application/xml' } }),
    JSON.stringify({ messageId: 'msg-mig-3', exchangedAt: '2026-03-01T10:00:00Z', receipt: as4Receipt.toString('base64') })]);
  // MIG-2's bytes are lost from PostgreSQL: a bad row.
  await sql('delete from artefact_contents where namespace = $1 and sha256 = $2', [sellerNs, hashOf(lost.xml)]);

  // 2. The migration to the object store.
  const report = await migrate();
  expect(report.originals).toEqual({ moved: 1, failed: [] });
  expect(report.receipts).toEqual({ moved: 1, failed: [] });
  const [moved] = await sql<{ clearance: { receipt: { content: string }; legalOriginal: { content: string } }; evidence: { receipt: string } }>('select clearance, evidence from documents where id = $1', [plain.id]);
  expect([moved!.clearance.receipt.content, moved!.clearance.legalOriginal.content, moved!.evidence.receipt]).toEqual([upo, signedOriginal, as4Receipt].map((b) => `sha256:${createHash('sha256').update(b).digest('hex')}`));
  expect(report.relocated.moved).toBe(4);
  expect(report.relocated.failed).toEqual([{ namespace: sellerNs, sha256: hashOf(lost.xml), error: expect.stringMatching(/^The artefact store could not find artefact .+missing there/) }]);
  expect(await sql('select original_sha256, original_content from documents where id = $1', [legacy.id])).toEqual([{ original_sha256: hashOf(legacy.xml), original_content: null }]);
  expect(await sql('select location, count(*)::int as n from artefacts group by location order by location')).toEqual([{ location: 'pg', n: 1 }, { location: 's3', n: 8 }]);
  expect(await sql('select count(*)::int as n from artefact_contents')).toEqual([{ n: 0 }]);
  const client = s3.client();
  const keys = ((await client.send(new ListObjectsV2Command({ Bucket: s3.bucket }))).Contents ?? []).map((o) => o.Key!);
  client.destroy();
  expect(keys).toHaveLength(8);
  expect(keys).toContain(`${sellerNs}/sha256/${hashOf(legacy.xml).slice(0, 2)}/${hashOf(legacy.xml)}`);

  // 3. Run again: nothing left to move but the bad row, which fails again alone.
  const again = await migrate();
  expect(again.originals).toEqual({ moved: 0, failed: [] });
  expect(again.receipts).toEqual({ moved: 0, failed: [] });
  expect(again.relocated.moved).toBe(0);
  expect(again.relocated.failed.map((f) => f.sha256)).toEqual([hashOf(lost.xml)]);

  // 4. The platform on the object store: the same bytes through the API, on both sides.
  Object.assign(process.env, s3.env);
  t = await startTestApp({ databaseUrl: db.url });
  for (const doc of [legacy, plain]) {
    const got = await original(t, doc.id, seller.apiKey);
    expect(got.status).toBe(200);
    expect(got.bytes.equals(Buffer.from(doc.xml))).toBe(true);
  }
  for (const copy of incoming) {
    const got = await original(t, copy.id, buyer.apiKey);
    expect(got.bytes.equals(Buffer.from(sent.find((s) => s.number === copy.number)!.xml))).toBe(true);
  }
  // The receipts read from the object store, as before.
  const receipt = await fetch(`${t.baseUrl}/v1/documents/${plain.id}/clearance/receipt`, { headers: { authorization: `Bearer ${seller.apiKey}` } });
  expect(Buffer.from(await receipt.arrayBuffer()).equals(upo)).toBe(true);
  const signed = await fetch(`${t.baseUrl}/v1/documents/${plain.id}/clearance/original`, { headers: { authorization: `Bearer ${seller.apiKey}` } });
  expect(Buffer.from(await signed.arrayBuffer()).equals(signedOriginal)).toBe(true);
  const evidence = await api<{ exchange: { receipt: string } }>(t.baseUrl, 'GET', `/v1/documents/${plain.id}/evidence`, { key: seller.apiKey });
  expect(evidence.body.exchange.receipt).toBe(as4Receipt.toString('utf8'));
  // The archive export holds them too, with their hashes.
  const zip = await fetch(`${t.baseUrl}/v1/archive/export`, { headers: { authorization: `Bearer ${seller.apiKey}` } });
  const files = unzipSync(new Uint8Array(await zip.arrayBuffer()));
  // The lost blob is named in the manifest; the rest of the archive is whole.
  expect(JSON.parse(Buffer.from(files['manifest.json']!).toString('utf8'))).toMatchObject({ documents: 3, complete: false, unavailable: [{ documentId: lost.id, kind: 'original', error: expect.stringContaining('missing there') }] });
  for (const [kind, bytes] of [['clearance-receipt', upo], ['clearance-original', signedOriginal], ['exchange-receipt', as4Receipt]] as const) {
    expect(Buffer.from(files[`documents/${plain.id}/${kind}.xml`]!).equals(bytes)).toBe(true);
  }
  // The lost blob is a typed, retryable error in the envelope, never a 500.
  expectEnvelope(await api(t.baseUrl, 'GET', `/v1/documents/${lost.id}/original`, { key: seller.apiKey }), 503, 'UPSTREAM_UNAVAILABLE');
}, 120_000);
