/**
 * Peppol AS4 between two access points on 127.0.0.1, no platform and no database: A (POP000001)
 * and B (POP000002) are each the peppol-as4 connector under an in-memory host whose HTTP is the
 * platform's real client; B's route is served by a node:http server. Discovery is real (a DNS
 * server answering the SML zone, an SMP stand-in serving signed metadata that points at B), the PKI
 * is the generated Peppol test PKI with its OCSP responder and CRLs on loopback (revocation soft).
 *
 * For a ~100 KB and a ~10 MB UBL invoice (the Peppol BIS 3 base example of the corpus with its
 * invoice line repeated): sequential latency (p50, p99, max of one `send` = discovery from cache,
 * sign + encrypt, POST, B decrypts + verifies + stores + signs its receipt, A verifies the receipt)
 * and throughput with concurrency (messages/s, MB/s of invoice), with the peak RSS and the largest
 * event-loop delay of each phase. Only `{ outcome: 'delivered' }` counts; anything else is an error.
 * Both access points share this process (and its event loop), so a figure is the cost of both ends.
 *
 *   node bench/as4.bench.ts [tenMbSequential=2] [tenMbConcurrent=2]
 *
 * The 10 MB counts are small because one 10 MB exchange takes ~20 s today, nearly all of it in
 * the receiver's readSbd (mappings/peppol/sbdh.ts `standalone`: an XPath union over every node of
 * the payload, quadratic in libxml2), which also blocks the event loop for as long; on a busy
 * machine that passes the connector's 60 s sendTimeoutMs and the send fails (HTTP_TIMEOUT) though
 * B stored the document. Raise the counts once that is fixed.
 *
 * Writes bench/results/as4.json.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { corpusAvailable, corpusPath, CORPUS_MISSING } from '../test/support/corpus.ts';
import { startSmlDns } from '../test/support/sml-dns.ts';
import { createPeppolTestPki, startRevocationServer, type TestPkiEntity } from '../test/support/peppol-pki.ts';
import { smpKeys } from '../services/smp/smp-keys.ts';
import { signedServiceMetadataXml, serviceGroupXml } from '../services/smp/smp-documents.ts';
import { createHttpClient, type HttpClient } from '../services/connectors/http-client.ts';
import { memoryHost, type MemoryHost } from '../adapters/sdk/contract-suite.ts';
import { acquireWorkerPool, releaseWorkerPool } from '../services/shared/worker-pool.ts';
import type { DirectoryEntry, OutboundMessage, SendResult } from '../adapters/sdk/index.ts';
import peppolAs4 from '../adapters/peppol-as4/peppol-as4.connector.ts';
import { DOCUMENT_SCHEME, PARTICIPANT_SCHEME } from '../mappings/identifiers/peppol-network.ts';
import { percentile, writeResults } from './support/bench-app.ts';

const SIZES = [
  { name: '100 KB', bytes: 100 * 1024, latencyRuns: 30, throughputCount: 200, concurrency: 8 },
  { name: '10 MB', bytes: 10 * 1024 * 1024, latencyRuns: Number(process.argv[2] ?? 2), throughputCount: Number(process.argv[3] ?? 2), concurrency: 2 },
];
const WARM_UP = 3;
const A_PARTICIPANT = '0088:5790000000097';
const B_PARTICIPANT = '0088:5790000000011';

if (!corpusAvailable()) {
  console.log(`as4 bench skipped: ${CORPUS_MISSING}`);
  process.exit(0);
}

/** The base example with its first invoice line repeated (fresh line ids) until the document reaches `bytes`. */
function invoiceOf(base: string, bytes: number): string {
  const line = /<cac:InvoiceLine>[\s\S]*?<\/cac:InvoiceLine>/.exec(base)?.[0];
  const end = base.lastIndexOf('</cac:InvoiceLine>');
  if (!line || end < 0) throw new Error('the base example has no cac:InvoiceLine');
  const head = base.slice(0, end + '</cac:InvoiceLine>'.length);
  const tail = base.slice(end + '</cac:InvoiceLine>'.length);
  const parts: string[] = [head];
  let size = Buffer.byteLength(head) + Buffer.byteLength(tail);
  for (let i = 1; size < bytes; i++) {
    const extra = `\n${line.replace(/<cbc:ID>[^<]*<\/cbc:ID>/, `<cbc:ID>R${i}</cbc:ID>`)}`;
    parts.push(extra);
    size += Buffer.byteLength(extra);
  }
  parts.push(tail);
  return parts.join('');
}

const readBody = (req: IncomingMessage): Promise<Buffer> => new Promise((resolve, reject) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c)).on('end', () => resolve(Buffer.concat(chunks))).on('error', reject);
});

const dir = mkdtempSync(join(tmpdir(), 'einv-as4-bench-'));
const revocation = await startRevocationServer();
const pki = createPeppolTestPki(revocation.url);
revocation.serve(pki);
const sml = await startSmlDns();
const servers: Server[] = [];
const clients: HttpClient[] = [];
const workers = acquireWorkerPool();

const smpTrustFile = join(dir, 'smp-trust.pem');
writeFileSync(smpTrustFile, smpKeys().certificatePem);
const apTrustFile = join(dir, 'ap-trust.pem');
writeFileSync(apTrustFile, [pki.root, pki.apCa].map((e) => e.certificatePem).join('\n'));

/** One access point: the connector under a memory host of its own, on the real HTTP client. */
function accessPoint(name: string, key: TestPkiEntity, directory: DirectoryEntry[]): MemoryHost {
  const certificateFile = join(dir, `${name}-cert.pem`);
  writeFileSync(certificateFile, key.certificatePem);
  const host = memoryHost(directory, {
    config: { smlZone: sml.zone, dnsServers: sml.server, trustFile: smpTrustFile, requireHttps: false, pki: 'test', apTrustFile, revocation: 'soft', certificateFile },
    secrets: { privateKey: key.privateKeyPem },
  });
  const http = createHttpClient();
  clients.push(http);
  (host as { http: MemoryHost['http'] }).http = http;
  // As on the platform: the SBD work of a large document runs on the document worker processes.
  (host as { workers: MemoryHost['workers'] }).workers = { run: (moduleUrl, fn, args, size) => workers.run(moduleUrl, fn, args, size) };
  return host;
}

async function listen(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const hostA = accessPoint('a', pki.ap1, [{ organizationId: 'org_a', companyId: 'cmp_a1', peppolId: A_PARTICIPANT, name: 'A One', country: 'SE', documentTypes: ['invoice', 'credit-note'] }]);
const hostB = accessPoint('b', pki.ap2, [{ organizationId: 'org_b', companyId: 'cmp_b1', peppolId: B_PARTICIPANT, name: 'B One', country: 'DK', documentTypes: ['invoice', 'credit-note'] }]);

/** Access point B's server: its AS4 route at /as4. */
const route = peppolAs4.routes[0]!;
const bUrl = await listen(createServer((req, res) => {
  void (async () => {
    const body = await readBody(req);
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)]));
    const answer = await route.handle({ method: 'POST', path: req.url ?? '/', headers, query: {}, body }, hostB);
    res.writeHead(answer.status, answer.headers ?? {}).end(answer.body);
  })().catch((err: Error) => { if (!res.headersSent) res.writeHead(500).end(err.message); });
}));

/** B's SMP: signed metadata for B's participant, pointing at B's /as4 with B's certificate. */
const keys = { ...smpKeys(), apCertificateDer: pki.ap2.certificate.raw.toString('base64') };
let smpUrl = '';
smpUrl = await listen(createServer((req, res) => {
  const path = decodeURIComponent(req.url ?? '');
  const send = (status: number, body = '') => res.writeHead(status, { 'content-type': 'application/xml' }).end(body);
  if (path === `/${PARTICIPANT_SCHEME}::${B_PARTICIPANT}`) return send(200, serviceGroupXml(smpUrl, B_PARTICIPANT));
  const prefix = `/${PARTICIPANT_SCHEME}::${B_PARTICIPANT}/services/${DOCUMENT_SCHEME}::`;
  if (path.startsWith(prefix)) {
    return send(200, signedServiceMetadataXml(B_PARTICIPANT, path.slice(prefix.length), { address: `${bUrl}/as4`, serviceDescription: 'B', technicalContactUrl: 'mailto:b@example.com' }, keys));
  }
  return send(404);
}));
sml.register(B_PARTICIPANT, smpUrl);

let sequence = 0;
function messageOf(xml: string, normalized: Record<string, unknown>): OutboundMessage {
  const documentId = `bench_${process.pid}_${++sequence}`;
  return {
    documentId, livemode: false, type: 'invoice', number: documentId,
    sender: { peppolId: A_PARTICIPANT, name: 'A One', organizationId: 'org_a', companyId: 'cmp_a1' },
    recipient: { peppolId: B_PARTICIPANT },
    payload: { content: Buffer.from(xml).toString('base64'), contentType: 'application/xml', xml, syntax: 'ubl-2.1', normalized },
    attempt: 1,
  };
}

interface Payload { name: string; xml: string; bytes: number; normalized: Record<string, unknown> }

/** Errors by what came back: an outcome other than delivered, or what was thrown. */
const errors = new Map<string, number>();
async function sendOnce(payload: Payload): Promise<number | undefined> {
  const message = messageOf(payload.xml, payload.normalized);
  const t0 = performance.now();
  let result: SendResult | undefined;
  let failure: string | undefined;
  try {
    result = await peppolAs4.send!(message, hostA);
  } catch (err) {
    failure = `thrown ${(err as { code?: string }).code ?? ''} ${(err as Error).message}`.slice(0, 160);
  }
  const ms = performance.now() - t0;
  if (result?.outcome === 'delivered') return ms;
  const key = failure ?? `${result?.outcome} ${'errorCode' in (result ?? {}) ? (result as { errorCode?: string }).errorCode : ''} ${'errorMessage' in (result ?? {}) ? (result as { errorMessage?: string }).errorMessage : ''}`.slice(0, 160);
  errors.set(`${payload.name}: ${key}`, (errors.get(`${payload.name}: ${key}`) ?? 0) + 1);
  return undefined;
}

/** Keeps B's memory host bounded: it holds every document it stored. */
function clearB(): void {
  hostB.inboxed.length = 0;
  hostB.acceptCalls.length = 0;
  hostB.logged.length = 0;
  hostA.logged.length = 0;
}

interface Phase { sent: number; delivered: number; failed: number; seconds: number; latencies: number[]; peakRssMb: number; heapAfterMb: number; loopDelayMaxMs: number }

/** Runs `count` sends from `concurrency` loops, sampling RSS and the event-loop delay meanwhile. */
async function phase(payload: Payload, count: number, concurrency: number): Promise<Phase> {
  clearB();
  const loop = monitorEventLoopDelay({ resolution: 10 });
  let peakRss = process.memoryUsage.rss();
  const sampler = setInterval(() => { peakRss = Math.max(peakRss, process.memoryUsage.rss()); }, 25);
  loop.enable();
  const latencies: number[] = [];
  let next = 0;
  let failed = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < count) {
      next++;
      const ms = await sendOnce(payload);
      if (ms === undefined) failed++; else latencies.push(ms);
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  loop.disable();
  clearInterval(sampler);
  peakRss = Math.max(peakRss, process.memoryUsage.rss());
  const stored = hostB.inboxed.length;
  // More stored than delivered: A gave up (timeout) while B was still working; the platform would re-send them.
  if (stored !== latencies.length) errors.set(`${payload.name}: B stored ${stored} documents, A counted ${latencies.length} delivered`, 1);
  clearB();
  latencies.sort((x, y) => x - y);
  return { sent: count, delivered: latencies.length, failed, seconds, latencies, peakRssMb: peakRss / 1048576, heapAfterMb: process.memoryUsage().heapUsed / 1048576, loopDelayMaxMs: loop.max / 1e6 };
}

const fmt = (n: number | undefined, digits = 0) => (n === undefined || Number.isNaN(n) ? '-' : n.toFixed(digits));
const rows: Array<Record<string, string | number>> = [];

try {
  const base = readFileSync(corpusPath('peppol-bis-invoice-3', 'rules', 'examples', 'base-example.xml'), 'utf8');
  // Built when their phases start, so the 100 KB figures do not carry the 10 MB document's memory.
  const payloadOf = (size: (typeof SIZES)[number]): Payload => {
    const xml = invoiceOf(base, size.bytes);
    // The platform hands a connector the document's normalised form with it (delivery.ts payloadOf).
    const { canonical } = hostA.translators.ublToCanonical(xml);
    return { name: size.name, xml, bytes: Buffer.byteLength(xml), normalized: canonical as unknown as Record<string, unknown> };
  };

  // Warm-up: discovery, the SMP signature, the receiver's certificate and its OCSP answer cached
  // (the same for every size: one recipient, one document type).
  const small = payloadOf(SIZES[0]!);
  for (let i = 0; i < WARM_UP; i++) await sendOnce(small);
  clearB();
  if (errors.size) console.log(`warm-up errors: ${JSON.stringify(Object.fromEntries(errors))}`);
  errors.clear();

  for (const size of SIZES) {
    const payload = size === SIZES[0] ? small : payloadOf(size);
    console.log(`payload ${payload.name}: ${payload.bytes} bytes of UBL`);
    const latency = await phase(payload, size.latencyRuns, 1);
    rows.push({
      payload: payload.name, phase: 'sequential', sent: latency.sent, errors: latency.failed, concurrency: 1,
      'msg/s': fmt(latency.delivered / latency.seconds, 1), 'MB/s': fmt((latency.delivered * payload.bytes) / 1048576 / latency.seconds, 1),
      'p50 ms': fmt(percentile(latency.latencies, 50)), 'p99 ms': fmt(percentile(latency.latencies, 99)), 'max ms': fmt(latency.latencies.at(-1)),
      'peak RSS MB': fmt(latency.peakRssMb), 'heap after MB': fmt(latency.heapAfterMb), 'loop delay max ms': fmt(latency.loopDelayMaxMs),
    });
    const throughput = await phase(payload, size.throughputCount, size.concurrency);
    rows.push({
      payload: payload.name, phase: 'concurrent', sent: throughput.sent, errors: throughput.failed, concurrency: size.concurrency,
      'msg/s': fmt(throughput.delivered / throughput.seconds, 1), 'MB/s': fmt((throughput.delivered * payload.bytes) / 1048576 / throughput.seconds, 1),
      'p50 ms': fmt(percentile(throughput.latencies, 50)), 'p99 ms': fmt(percentile(throughput.latencies, 99)), 'max ms': fmt(throughput.latencies.at(-1)),
      'peak RSS MB': fmt(throughput.peakRssMb), 'heap after MB': fmt(throughput.heapAfterMb), 'loop delay max ms': fmt(throughput.loopDelayMaxMs),
    });
  }

  const columns = Object.keys(rows[0]!);
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c]).length)));
  const line = (cells: string[]) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log(`\nPeppol AS4, A (POP000001) → B (POP000002) on 127.0.0.1, both in this process (node ${process.version})`);
  console.log(line(columns));
  for (const r of rows) console.log(line(columns.map((c) => String(r[c]))));
  console.log(errors.size ? `errors: ${JSON.stringify(Object.fromEntries(errors), null, 2)}` : 'errors: none (every send delivered on a verified receipt)');
  writeResults('as4', { rows, errors: Object.fromEntries(errors) });
} finally {
  await Promise.all(clients.map((c) => c.close()));
  await releaseWorkerPool(workers);
  await Promise.all(servers.map((s) => new Promise((resolve) => { s.closeAllConnections(); s.close(resolve); })));
  await sml.close();
  await revocation.close();
  rmSync(dir, { recursive: true, force: true });
}
