/**
 * What this deployment's SMP signs with: the configured Peppol SMP key and certificate (PEM files),
 * and the access point certificate its endpoints publish. Without configuration (a development
 * start) a self-signed pair is made in memory, never written anywhere: it changes on every restart,
 * which is fine for trying the API and wrong for the network.
 */
import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import forge from 'node-forge';
import { loadConfig } from '../shared/config.ts';
import { spidOfSeat } from '../../mappings/peppol/mls.ts';

export interface SmpKeys {
  privateKeyPem: string;
  certificatePem: string;
  /** The certificate's subject, as the signature's KeyInfo names it. */
  subjectName: string;
  /** Base64 DER of the access point certificate (SMP `Certificate`, no PEM armour). */
  apCertificateDer: string;
  /** True when made here for a development start. */
  generated: boolean;
  /**
   * Our service provider id (Peppol SPIS: 0242 + the seat id's digits) when the published access
   * point certificate carries a seat id as its CN: the participant MLS messages for us go to.
   */
  spid: string | null;
}

/** 0242:<digits> of a Peppol seat id CN (POP000306 → 0242:000306), or null. */
function spidOfCertificate(pem: string): string | null {
  const cn = /^CN=(P[A-Z]{2}[0-9]{6})$/m.exec(new X509Certificate(pem).subject)?.[1];
  return cn ? spidOfSeat(cn) : null;
}

const derOf = (pem: string) => new X509Certificate(pem).raw.toString('base64');

/** RFC 2253 order (most specific first), as X509SubjectName carries it. */
const subjectOf = (pem: string) => new X509Certificate(pem).subject.split('\n').reverse().join(',');

function developmentPair(): { privateKeyPem: string; certificatePem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }).toString());
  cert.serialNumber = `01${Date.now().toString(16)}`;
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + 365 * 86_400_000);
  const attrs = [{ name: 'commonName', value: 'PDK000000 development SMP' }, { name: 'organizationalUnitName', value: 'DEVELOPMENT SMP' }, { name: 'countryName', value: 'BE' }];
  cert.setSubject(attrs);
  cert.setIssuer(attrs);
  const key = forge.pki.privateKeyFromPem(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
  cert.sign(key, forge.md.sha256.create());
  return { privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), certificatePem: forge.pki.certificateToPem(cert) };
}

let keys: SmpKeys | undefined;

export function smpKeys(): SmpKeys {
  if (keys) return keys;
  const cfg = loadConfig().smp;
  const configured = cfg.keyFile && cfg.certificateFile;
  const pair = configured
    ? { privateKeyPem: readFileSync(cfg.keyFile!, 'utf8'), certificatePem: readFileSync(cfg.certificateFile!, 'utf8') }
    : developmentPair();
  const apPem = cfg.apCertificateFile ? readFileSync(cfg.apCertificateFile, 'utf8') : pair.certificatePem;
  keys = { ...pair, subjectName: subjectOf(pair.certificatePem), apCertificateDer: derOf(apPem), generated: !configured, spid: cfg.apCertificateFile ? spidOfCertificate(apPem) : null };
  return keys;
}
