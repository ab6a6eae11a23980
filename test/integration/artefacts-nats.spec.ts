/**
 * The artefact store in scaled mode: the gateway on one broker, documents (with an S3-compatible
 * store, s3rver) on another, joined by a real nats-server. The original is read back and the archive
 * export streams across NATS as a ZIP whose manifest's hashes match its files.
 */
import { createHash, randomBytes } from 'node:crypto';
import { unzipSync, strFromU8 } from 'fflate';
import { startTestApp, api, bootstrap, type TestApp } from '../support/app.ts';
import { largeJsonInvoice } from '../support/hostile-inputs.ts';
import { startS3Server, type TestS3 } from '../support/s3-server.ts';
import type { ArchiveManifest } from '../../services/documents/archive.contract.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';

let edge: TestApp;
let core: TestApp;
let s3: TestS3;

beforeAll(async () => {
  s3 = await startS3Server();
  Object.assign(process.env, s3.env);
  const { SERVICE_CATALOGUE } = await import('../../services/index.ts');
  const namespace = `t${randomBytes(4).toString('hex')}`;
  const transporter = { type: 'NATS' as const, options: { url: process.env.EINV_TEST_NATS_URL! } };
  const domain = Object.keys(SERVICE_CATALOGUE).filter((s) => s !== 'gateway');
  core = await startTestApp({ services: domain, broker: { namespace, nodeID: 'core-artefacts', transporter } });
  edge = await startTestApp({ services: ['gateway'], databaseUrl: core.databaseUrl, broker: { namespace, nodeID: 'edge-artefacts', transporter } });
  await edge.app.broker.waitForServices(['tenancy', 'sandbox', 'documents', 'adapter.sandbox-network'], 10_000);
}, 60_000);
afterAll(async () => {
  await edge?.stop({ keepDatabase: true });
  await core?.stop();
  for (const name of Object.keys(s3?.env ?? {})) delete process.env[name];
  await s3?.stop();
});

it('serves originals and streams the archive export across NATS', async () => {
  const [seller, buyer] = [await bootstrap(edge.baseUrl), await bootstrap(edge.baseUrl)];
  const rendered = await api<{ renderedXml: string }>(edge.baseUrl, 'POST', '/v1/documents/validate', { key: seller.apiKey, body: { format: 'json', type: 'invoice', document: largeJsonInvoice('NATS-ARCHIVE-1', 400, seller.company.vatNumber) } });
  const xml = rendered.body.renderedXml;
  const sent = await api<{ id: string }>(edge.baseUrl, 'POST', '/v1/documents/send', { key: seller.apiKey, body: { type: 'invoice', format: 'ubl-xml', to: buyer.company.peppolId, xml } });
  expect(sent.status).toBe(201);

  const original = await fetch(`${edge.baseUrl}/v1/documents/${sent.body.id}/original`, { headers: { authorization: `Bearer ${seller.apiKey}` } });
  expect(Buffer.from(await original.arrayBuffer()).equals(Buffer.from(xml))).toBe(true);

  const res = await fetch(`${edge.baseUrl}/v1/archive/export`, { headers: { authorization: `Bearer ${seller.apiKey}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/zip');
  const files = unzipSync(new Uint8Array(await res.arrayBuffer()));
  const manifest = JSON.parse(strFromU8(files['manifest.json']!)) as ArchiveManifest;
  expect(manifest.artefacts).toEqual([{ path: `documents/${sent.body.id}/original.xml`, documentId: sent.body.id, kind: 'original', sha256: createHash('sha256').update(xml).digest('hex'), size: Buffer.byteLength(xml), contentType: 'application/xml' }]);
  const bytes = files[manifest.artefacts[0]!.path]!;
  expect(createHash('sha256').update(bytes).digest('hex')).toBe(manifest.artefacts[0]!.sha256);
}, 90_000);
