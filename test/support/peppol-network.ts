/**
 * A Peppol network on 127.0.0.1 for the platform under test to be access point A (POP000001) on:
 * a generated G3-shaped test PKI with its OCSP responder and CRL, the SML's DNS zone, the files the
 * peppol-as4 connector reads (A's certificate, the AP trust, the SMP trust) and the environment
 * that enables it on a fixed port (so the SMP publishes a reachable endpoint). Call it before
 * `startTestApp`; `close` stops the servers and clears the environment it set.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { smpKeys } from '../../services/smp/smp-keys.ts';
import { signedServiceMetadataXml, serviceGroupXml } from '../../services/smp/smp-documents.ts';
import { createHttpClient, type HttpClient } from '../../services/connectors/http-client.ts';
import { memoryHost, type MemoryHost } from '../../adapters/sdk/contract-suite.ts';
import type { DirectoryEntry } from '../../adapters/sdk/index.ts';
import peppolAs4 from '../../adapters/peppol-as4/peppol-as4.connector.ts';
import { DOCUMENT_SCHEME, PARTICIPANT_SCHEME } from '../../mappings/identifiers/peppol-network.ts';
import { createPeppolTestPki, startRevocationServer, type PeppolTestPki, type RevocationServer, type TestPkiEntity } from './peppol-pki.ts';
import { freePort } from './servers.ts';
import { startSmlDns, type SmlDns } from './sml-dns.ts';

export interface LoopbackPeppol {
  pki: PeppolTestPki;
  revocation: RevocationServer;
  sml: SmlDns;
  dir: string;
  /** Access point A's certificate, and the trust files every access point of this network reads. */
  files: { aCertificate: string; apTrust: string; smpTrust: string };
  /** The options of a peppol-as4 connector on this network (strings, as the environment gives them). */
  connectorOptions: Record<string, string>;
  close(): Promise<void>;
}

export async function startLoopbackPeppol(prefix: string, extraOptions: Record<string, string> = {}): Promise<LoopbackPeppol> {
  const revocation = await startRevocationServer();
  const pki = createPeppolTestPki(revocation.url);
  revocation.serve(pki);
  const sml = await startSmlDns();
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const files = { aCertificate: join(dir, 'a-cert.pem'), apTrust: join(dir, 'ap-trust.pem'), smpTrust: join(dir, 'smp-trust.pem') };
  writeFileSync(files.aCertificate, pki.ap1.certificatePem);
  writeFileSync(files.apTrust, [pki.root, pki.apCa].map((e) => e.certificatePem).join('\n'));
  const set: string[] = [];
  const setEnv = (values: Record<string, string>) => { for (const [k, v] of Object.entries(values)) { process.env[k] = v; set.push(k); } };
  // The platform's SMP publishes A's certificate for its companies; set before its keys are made.
  setEnv({ EINV_AP_CERTIFICATE_FILE: files.aCertificate });
  writeFileSync(files.smpTrust, smpKeys().certificatePem);
  const connectorOptions = { smlZone: sml.zone, dnsServers: sml.server, trustFile: files.smpTrust, requireHttps: 'false', pki: 'test', apTrustFile: files.apTrust, revocation: 'hard', ...extraOptions };
  const port = await freePort();
  setEnv({
    PORT: String(port), EINV_PUBLIC_URL: `http://127.0.0.1:${port}`,
    EINV_CONNECTORS: 'sandbox-network,peppol-as4',
    ...Object.fromEntries(Object.entries({ ...connectorOptions, certificateFile: files.aCertificate, privateKey: pki.ap1.privateKeyPem })
      .map(([k, v]) => [`EINV_CONNECTOR_PEPPOL_AS4_${k.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`, v])),
  });
  return {
    pki, revocation, sml, dir, files, connectorOptions,
    async close() {
      await sml.close();
      await revocation.close();
      for (const k of set) delete process.env[k];
    },
  };
}

export const readBody = (req: IncomingMessage): Promise<Buffer> => new Promise((resolve, reject) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c)).on('end', () => resolve(Buffer.concat(chunks))).on('error', reject);
});

/** Access point B: the peppol-as4 connector under a host of its own (its key, its directory) behind its own HTTP server. */
export interface RemoteAccessPoint {
  host: MemoryHost;
  http: HttpClient;
  server: Server;
  url: string;
  /** Requests per path. */
  hits: Map<string, number>;
  close(): Promise<void>;
}

/**
 * Starts access point B on `net` with `key`, serving `directory`. `intercept` sees every request
 * first (a stand-in that misbehaves on purpose, another party's endpoint) and answers it by
 * returning true; the others go to the connector's AS4 route.
 */
export async function startRemoteAccessPoint(net: LoopbackPeppol, key: TestPkiEntity, directory: DirectoryEntry[], intercept?: (path: string, body: Buffer, req: IncomingMessage, res: ServerResponse) => boolean | Promise<boolean>): Promise<RemoteAccessPoint> {
  const certificateFile = join(net.dir, `remote-${key.name}.pem`);
  writeFileSync(certificateFile, key.certificatePem);
  const host = memoryHost(directory, { config: { ...net.connectorOptions, requireHttps: false, certificateFile }, secrets: { privateKey: key.privateKeyPem } });
  const http = createHttpClient();
  (host as { http: MemoryHost['http'] }).http = http;
  const hits = new Map<string, number>();
  const route = peppolAs4.routes[0]!;
  const server = createServer((req, res: ServerResponse) => {
    void (async () => {
      const body = await readBody(req);
      const path = req.url ?? '/';
      hits.set(path, (hits.get(path) ?? 0) + 1);
      if (intercept && await intercept(path, body, req, res)) return;
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)]));
      const answer = await route.handle({ method: 'POST', path: '/as4', headers, query: {}, body }, host);
      res.writeHead(answer.status, answer.headers ?? {}).end(answer.body);
    })().catch((err: Error) => { if (!res.headersSent) res.writeHead(500).end(err.message); });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    host, http, server, hits, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() { await http.close(); await new Promise((resolve) => server.close(resolve)); },
  };
}

/** B's SMP: signed metadata (every document type asked) for the participants it publishes, each at the path of B's server it names. */
export interface RemoteSmp {
  server: Server;
  url: string;
  publish(participantId: string, endpointPath: string): void;
  close(): Promise<void>;
}

export async function startRemoteSmp(net: LoopbackPeppol, key: TestPkiEntity, accessPointUrl: () => string): Promise<RemoteSmp> {
  const endpoints = new Map<string, string>();
  const keys = { ...smpKeys(), apCertificateDer: key.certificate.raw.toString('base64') };
  let base = '';
  const server = createServer((req, res) => {
    const path = decodeURIComponent(req.url ?? '');
    const send = (status: number, body = '') => res.writeHead(status, { 'content-type': 'application/xml' }).end(body);
    for (const [participant, endpointPath] of endpoints) {
      if (path === `/${PARTICIPANT_SCHEME}::${participant}`) return send(200, serviceGroupXml(base, participant));
      const prefix = `/${PARTICIPANT_SCHEME}::${participant}/services/${DOCUMENT_SCHEME}::`;
      if (path.startsWith(prefix)) {
        return send(200, signedServiceMetadataXml(participant, path.slice(prefix.length), { address: `${accessPointUrl()}${endpointPath}`, serviceDescription: 'B', technicalContactUrl: 'mailto:b@example.com' }, keys));
      }
    }
    return send(404);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    server, url: base,
    publish(participantId, endpointPath) { endpoints.set(participantId, endpointPath); net.sml.register(participantId, base); },
    async close() { await new Promise((resolve) => server.close(resolve)); },
  };
}
