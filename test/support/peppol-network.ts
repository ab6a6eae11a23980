/**
 * A Peppol network on 127.0.0.1 for the platform under test to be access point A (POP000001) on:
 * a generated G3-shaped test PKI with its OCSP responder and CRL, the SML's DNS zone, the files the
 * peppol-as4 connector reads (A's certificate, the AP trust, the SMP trust) and the environment
 * that enables it on a fixed port (so the SMP publishes a reachable endpoint). Call it before
 * `startTestApp`; `close` stops the servers and clears the environment it set.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { smpKeys } from '../../services/smp/smp-keys.ts';
import { createPeppolTestPki, startRevocationServer, type PeppolTestPki, type RevocationServer } from './peppol-pki.ts';
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
