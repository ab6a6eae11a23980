/**
 * A Peppol-shaped test PKI, generated at test time (peppol-transport.md §10 level 2; no private key
 * is ever committed): the G3 test hierarchy (`PEPPOL Root TEST CA - G3` → `PEPPOL ACCESS POINT
 * TEST CA - G3` and `PEPPOL SERVICE METADATA PUBLISHER TEST CA - G3`), AP leaves shaped like the
 * real ones (§4: C, O, OU=PEPPOL TEST AP, CN=seat id; KU digitalSignature+keyEncipherment+
 * dataEncipherment critical; EKU clientAuth; AIA OCSP and CRL distribution point on loopback), an
 * SMP leaf, a revoked AP, an expired AP, an AP of an impostor CA (same names, other keys) and an AP
 * under a separate "production" root; plus a loopback OCSP responder and CRL server (pkijs).
 *
 *   const server = await startRevocationServer();
 *   const pki = createPeppolTestPki(server.url);
 *   server.serve(pki);
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { X509Certificate, createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import forge from 'node-forge';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { trustStoreOf, type TrustStore } from '../../adapters/peppol-kit/pki.ts';

export interface TestPkiEntity {
  /** The subject CN. */
  name: string;
  certificate: X509Certificate;
  certificatePem: string;
  privateKey: KeyObject;
  /** PKCS#8 PEM, generated now, never written to the repository. */
  privateKeyPem: string;
  /** The serial number, upper-case hex without leading zeros. */
  serial: string;
  /** For the CAs: where their CRL is served (`<baseUrl>/crl/<slug>.crl`). */
  slug?: string;
}

export interface PeppolTestPki {
  baseUrl: string;
  ocspUrl: string;
  root: TestPkiEntity;
  apCa: TestPkiEntity;
  smpCa: TestPkiEntity;
  /** POP000001, POP000002: good APs. */
  ap1: TestPkiEntity;
  ap2: TestPkiEntity;
  /** PXX000001, issued by the SMP CA. */
  smp: TestPkiEntity;
  /** POP000003, listed as revoked by the OCSP responder and the CRL. */
  revokedAp: TestPkiEntity;
  /** POP000004, expired yesterday. */
  expiredAp: TestPkiEntity;
  /** POP000007, a good AP whose subject names no country (no C=). */
  apWithoutCountry: TestPkiEntity;
  /** An impostor hierarchy with the very same names as ours, and its AP POP000005. */
  foreignRoot: TestPkiEntity;
  foreignApCa: TestPkiEntity;
  foreignAp: TestPkiEntity;
  /** `PEPPOL Root CA - G3` → `PEPPOL ACCESS POINT CA - G3` → POP000006 (OU=PEPPOL PRODUCTION AP). */
  productionRoot: TestPkiEntity;
  productionApCa: TestPkiEntity;
  productionAp: TestPkiEntity;
  /** The test hierarchy: root, AP CA and SMP CA. */
  trust: TrustStore;
  /** The "production" hierarchy: its root and AP CA. */
  productionTrust: TrustStore;
  /** Every CA, with the serials it revoked (hex) and when. */
  cas: Array<{ ca: TestPkiEntity; revoked: Map<string, Date> }>;
}

const DAY = 86_400_000;
const OID_AIA = '1.3.6.1.5.5.7.1.1';
const OID_AD_OCSP = '1.3.6.1.5.5.7.48.1';
const OID_OCSP_NONCE = '1.3.6.1.5.5.7.48.1.2';
const TEST_ORG = [{ shortName: 'C', value: 'BE' }, { shortName: 'O', value: 'OpenPEPPOL AISBL' }];

interface CertSpec {
  subject: forge.pki.CertificateField[];
  issuer?: { entity: TestPkiEntity; forgeCert: forge.pki.Certificate };
  ca: boolean;
  notBefore?: Date;
  notAfter?: Date;
  /** Leaves: the loopback AIA OCSP and CRL URLs. */
  ocspUrl?: string;
  crlUrl?: string;
  slug?: string;
}

/** Upper-case hex without leading zeros, however it was printed. */
const normalSerial = (hex: string) => hex.toUpperCase().replace(/^0+(?=.)/, '');

interface Made { entity: TestPkiEntity; forgeCert: forge.pki.Certificate }

function aiaOcsp(url: string): forge.asn1.Asn1 {
  const { asn1 } = forge;
  return asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [
    asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [
      asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OID, false, asn1.oidToDer(OID_AD_OCSP).getBytes()),
      asn1.create(asn1.Class.CONTEXT_SPECIFIC, 6, false, url),
    ]),
  ]);
}

function makeCertificate(spec: CertSpec): Made {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const privateKeyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }) as string);
  cert.serialNumber = `01${randomBytes(15).toString('hex')}`; // positive, 16 bytes
  cert.validity.notBefore = spec.notBefore ?? new Date(Date.now() - DAY);
  cert.validity.notAfter = spec.notAfter ?? new Date(Date.now() + (spec.ca ? 3650 : 730) * DAY);
  cert.setSubject(spec.subject);
  cert.setIssuer(spec.issuer ? spec.issuer.forgeCert.subject.attributes : spec.subject);
  const ski = cert.generateSubjectKeyIdentifier().getBytes();
  const aki = spec.issuer ? spec.issuer.forgeCert.generateSubjectKeyIdentifier().getBytes() : ski;
  const extensions: unknown[] = spec.ca
    ? [
        { name: 'basicConstraints', critical: true, cA: true },
        { name: 'keyUsage', critical: true, keyCertSign: true, cRLSign: true },
      ]
    : [
        { name: 'basicConstraints', critical: true, cA: false },
        { name: 'keyUsage', critical: true, digitalSignature: true, keyEncipherment: true, dataEncipherment: true },
        { name: 'extKeyUsage', critical: true, clientAuth: true },
      ];
  extensions.push({ name: 'subjectKeyIdentifier', subjectKeyIdentifier: forge.util.bytesToHex(ski) }, { name: 'authorityKeyIdentifier', keyIdentifier: aki });
  if (spec.ocspUrl) extensions.push({ id: OID_AIA, value: aiaOcsp(spec.ocspUrl) });
  if (spec.crlUrl) extensions.push({ name: 'cRLDistributionPoints', altNames: [{ type: 6, value: spec.crlUrl }] });
  cert.setExtensions(extensions as never[]);
  // node-forge lays out the certificate; node:crypto signs its TBS bytes (forge's JavaScript RSA is slow under jest).
  const signerKey = spec.issuer ? spec.issuer.entity.privateKey : privateKey;
  const nativeSigner = { sign: () => sign('sha256', Buffer.from(forge.asn1.toDer(cert.tbsCertificate).getBytes(), 'binary'), signerKey).toString('binary') };
  cert.sign(nativeSigner as unknown as forge.pki.rsa.PrivateKey, forge.md.sha256.create());
  const certificatePem = forge.pki.certificateToPem(cert);
  const certificate = new X509Certificate(certificatePem);
  const name = String(spec.subject.find((f) => f.shortName === 'CN')!.value);
  return {
    entity: { name, certificate, certificatePem, privateKey, privateKeyPem, serial: normalSerial(certificate.serialNumber), ...(spec.slug ? { slug: spec.slug } : {}) },
    forgeCert: cert,
  };
}

/** The whole PKI; leaves point their AIA OCSP and CRL DP at `baseUrl` (http://127.0.0.1:port). */
export function createPeppolTestPki(baseUrl: string): PeppolTestPki {
  const base = baseUrl.replace(/\/+$/, '');
  const ocspUrl = `${base}/ocsp`;
  const ca = (cn: string, ou: string | undefined, slug: string, issuer?: Made): Made => makeCertificate({
    subject: [...TEST_ORG, ...(ou ? [{ shortName: 'OU', value: ou }] : []), { shortName: 'CN', value: cn }],
    ca: true, slug, notBefore: new Date(Date.now() - 30 * DAY), ...(issuer ? { issuer } : {}),
  });
  const leaf = (cn: string, ou: string, issuer: Made, extra: Partial<CertSpec> = {}, country: string | null = 'NO'): Made => makeCertificate({
    subject: [...(country ? [{ shortName: 'C', value: country }] : []), { shortName: 'O', value: `Test AP ${cn} AS` }, { shortName: 'OU', value: ou }, { shortName: 'CN', value: cn }],
    ca: false, issuer, ocspUrl, crlUrl: `${base}/crl/${issuer.entity.slug}.crl`, ...extra,
  });

  const root = ca('PEPPOL Root TEST CA - G3', 'FOR TEST ONLY', 'root-test-g3');
  const apCa = ca('PEPPOL ACCESS POINT TEST CA - G3', 'FOR TEST ONLY', 'ap-test-g3', root);
  const smpCa = ca('PEPPOL SERVICE METADATA PUBLISHER TEST CA - G3', 'FOR TEST ONLY', 'smp-test-g3', root);
  const ap1 = leaf('POP000001', 'PEPPOL TEST AP', apCa);
  const ap2 = leaf('POP000002', 'PEPPOL TEST AP', apCa);
  const smp = leaf('PXX000001', 'PEPPOL TEST SMP', smpCa);
  const revokedAp = leaf('POP000003', 'PEPPOL TEST AP', apCa);
  const expiredAp = leaf('POP000004', 'PEPPOL TEST AP', apCa, { notBefore: new Date(Date.now() - 731 * DAY), notAfter: new Date(Date.now() - DAY) });
  const apWithoutCountry = leaf('POP000007', 'PEPPOL TEST AP', apCa, {}, null);
  const foreignRoot = ca('PEPPOL Root TEST CA - G3', 'FOR TEST ONLY', 'root-foreign', undefined);
  const foreignApCa = ca('PEPPOL ACCESS POINT TEST CA - G3', 'FOR TEST ONLY', 'ap-foreign', foreignRoot);
  const foreignAp = leaf('POP000005', 'PEPPOL TEST AP', foreignApCa);
  const productionRoot = ca('PEPPOL Root CA - G3', undefined, 'root-prod-g3');
  const productionApCa = ca('PEPPOL ACCESS POINT CA - G3', undefined, 'ap-prod-g3', productionRoot);
  const productionAp = leaf('POP000006', 'PEPPOL PRODUCTION AP', productionApCa);

  const revoked = new Map([[revokedAp.entity.serial, new Date(Date.now() - DAY)]]);
  const e = (m: Made) => m.entity;
  return {
    baseUrl: base, ocspUrl,
    root: e(root), apCa: e(apCa), smpCa: e(smpCa), ap1: e(ap1), ap2: e(ap2), smp: e(smp), revokedAp: e(revokedAp), expiredAp: e(expiredAp), apWithoutCountry: e(apWithoutCountry),
    foreignRoot: e(foreignRoot), foreignApCa: e(foreignApCa), foreignAp: e(foreignAp),
    productionRoot: e(productionRoot), productionApCa: e(productionApCa), productionAp: e(productionAp),
    trust: trustStoreOf([root, apCa, smpCa].map((m) => m.entity.certificatePem)),
    productionTrust: trustStoreOf([productionRoot, productionApCa].map((m) => m.entity.certificatePem)),
    cas: [root, apCa, smpCa, foreignRoot, foreignApCa, productionRoot, productionApCa].map((m) => ({ ca: m.entity, revoked: m === apCa ? revoked : new Map() })),
  };
}

// ---- the loopback OCSP responder and CRL server -------------------------------------------------

export interface RevocationServer {
  /** http://127.0.0.1:<port> */
  url: string;
  /** Which PKI to answer for (the one given to startRevocationServer, else set here). */
  serve(pki: PeppolTestPki): void;
  /** Simulated outages: the connection is dropped without an answer. */
  outage: { ocsp: boolean; crl: boolean };
  /** When set, OCSP answers are signed by this entity (and carry its certificate) instead of the issuing CA. */
  ocspSigner: TestPkiEntity | undefined;
  /** Requests answered so far, per kind. */
  requests: { ocsp: number; crl: number };
  close(): Promise<void>;
}

/** The key as pkijs signs with it (its own CryptoKey type, whichever of the DOM's and Node's the program has). */
async function signingKeyOf(entity: TestPkiEntity): Promise<Parameters<pkijs.CertificateRevocationList['sign']>[0]> {
  const der = entity.privateKey.export({ type: 'pkcs8', format: 'der' });
  return globalThis.crypto.subtle.importKey('pkcs8', der, { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, false, ['sign']);
}

const HASH_OF_OID: Record<string, string> = { '1.3.14.3.2.26': 'sha1', '2.16.840.1.101.3.4.2.1': 'sha256', '2.16.840.1.101.3.4.2.2': 'sha384', '2.16.840.1.101.3.4.2.3': 'sha512' };

function keyHash(ca: TestPkiEntity, hash: string): Buffer {
  const p = pkijs.Certificate.fromBER(ca.certificate.raw);
  return createHash(hash).update(p.subjectPublicKeyInfo.subjectPublicKey.valueBlock.valueHexView).digest();
}

const hexOfInteger = (i: asn1js.Integer) => normalSerial(Buffer.from(i.valueBlock.valueHexView).toString('hex'));

async function ocspAnswer(pki: PeppolTestPki, body: Buffer, signer?: TestPkiEntity): Promise<Buffer> {
  const request = pkijs.OCSPRequest.fromBER(new Uint8Array(body));
  const answer = new pkijs.OCSPResponse();
  const items = request.tbsRequest.requestList;
  const first = items[0]?.reqCert;
  const hash = first ? HASH_OF_OID[first.hashAlgorithm.algorithmId] : undefined;
  const issuer = first && hash ? pki.cas.find((c) => keyHash(c.ca, hash).equals(Buffer.from(first.issuerKeyHash.valueBlock.valueHexView))) : undefined;
  if (!issuer || items.some((r) => !r.reqCert.issuerKeyHash.isEqual(first!.issuerKeyHash))) {
    answer.responseStatus.valueBlock.valueDec = 6; // unauthorized: not one of our CAs
    return Buffer.from(answer.toSchema().toBER(false));
  }
  const signerP = pkijs.Certificate.fromBER((signer ?? issuer.ca).certificate.raw);
  const basic = new pkijs.BasicOCSPResponse();
  basic.tbsResponseData.responderID = signerP.subject;
  basic.tbsResponseData.producedAt = new Date();
  for (const item of items) {
    const single = new pkijs.SingleResponse();
    single.certID = item.reqCert;
    const revokedAt = issuer.revoked.get(hexOfInteger(item.reqCert.serialNumber));
    single.certStatus = revokedAt
      ? new asn1js.Constructed({ idBlock: { tagClass: 3, tagNumber: 1 }, value: [new asn1js.GeneralizedTime({ valueDate: revokedAt })] })
      : new asn1js.Primitive({ idBlock: { tagClass: 3, tagNumber: 0 } });
    single.thisUpdate = new Date(Date.now() - 60_000);
    single.nextUpdate = new Date(Date.now() + 3_600_000);
    basic.tbsResponseData.responses.push(single);
  }
  const nonce = request.tbsRequest.requestExtensions?.find((x) => x.extnID === OID_OCSP_NONCE);
  if (nonce) basic.tbsResponseData.responseExtensions = [nonce];
  basic.certs = [signerP];
  await basic.sign(await signingKeyOf(signer ?? issuer.ca), 'SHA-256');
  answer.responseStatus.valueBlock.valueDec = 0;
  answer.responseBytes = new pkijs.ResponseBytes({
    responseType: pkijs.id_PKIX_OCSP_Basic,
    response: new asn1js.OctetString({ valueHex: basic.toSchema().toBER(false) }),
  });
  return Buffer.from(answer.toSchema().toBER(false));
}

async function crlOf(issuer: { ca: TestPkiEntity; revoked: Map<string, Date> }): Promise<Buffer> {
  const issuerP = pkijs.Certificate.fromBER(issuer.ca.certificate.raw);
  const crl = new pkijs.CertificateRevocationList();
  crl.version = 1;
  crl.issuer = issuerP.subject;
  crl.thisUpdate = new pkijs.Time({ type: 0, value: new Date(Date.now() - 60_000) });
  crl.nextUpdate = new pkijs.Time({ type: 0, value: new Date(Date.now() + DAY) });
  if (issuer.revoked.size) {
    crl.revokedCertificates = [...issuer.revoked].map(([serial, at]) => new pkijs.RevokedCertificate({
      userCertificate: new asn1js.Integer({ valueHex: Buffer.from(serial.length % 2 ? `0${serial}` : serial, 'hex') }),
      revocationDate: new pkijs.Time({ type: 0, value: at }),
    }));
  }
  await crl.sign(await signingKeyOf(issuer.ca), 'SHA-256');
  return Buffer.from(crl.toSchema(true).toBER(false));
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 64 * 1024) throw new Error('request too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** OCSP (POST `/ocsp`, application/ocsp-request) and CRLs (GET `/crl/<ca slug>.crl`) on 127.0.0.1, random port. */
export async function startRevocationServer(pki?: PeppolTestPki): Promise<RevocationServer> {
  let served = pki;
  const outage = { ocsp: false, crl: false };
  const requests = { ocsp: 0, crl: 0 };
  const state: { ocspSigner: TestPkiEntity | undefined } = { ocspSigner: undefined };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    const send = (status: number, type: string, body: Buffer | string) => { res.writeHead(status, { 'content-type': type }); res.end(body); };
    if (!served) return send(503, 'text/plain', 'no PKI served yet');
    if (path === '/ocsp' && req.method === 'POST') {
      if (outage.ocsp) return void req.socket.destroy();
      if (!/^application\/ocsp-request\b/i.test(req.headers['content-type'] ?? '')) return send(415, 'text/plain', 'application/ocsp-request expected');
      requests.ocsp++;
      return send(200, 'application/ocsp-response', await ocspAnswer(served, await readBody(req), state.ocspSigner));
    }
    const crl = /^\/crl\/([a-z0-9-]+)\.crl$/.exec(path);
    if (crl && req.method === 'GET') {
      if (outage.crl) return void req.socket.destroy();
      const issuer = served.cas.find((c) => c.ca.slug === crl[1]);
      if (!issuer) return send(404, 'text/plain', 'no such CRL');
      requests.crl++;
      return send(200, 'application/pkix-crl', await crlOf(issuer));
    }
    send(404, 'text/plain', 'not found');
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((err: Error) => { if (!res.headersSent) { res.writeHead(500, { 'content-type': 'text/plain' }); res.end(err.message); } });
  });
  const port = pki ? Number(new URL(pki.baseUrl).port) : 0;
  await new Promise<void>((resolve, reject) => { server.once('error', reject); server.listen(port, '127.0.0.1', () => resolve()); });
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : port}`;
  return {
    url,
    serve(p) { served = p; },
    outage,
    get ocspSigner() { return state.ocspSigner; },
    set ocspSigner(e) { state.ocspSigner = e; },
    requests,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/** The `fetch` a RevocationChecker takes, over the global fetch (loopback in the tests). */
export async function loopbackFetch(url: string, request?: { body: Buffer; contentType: string }): Promise<{ status: number; body: Buffer }> {
  const res = await fetch(url, request
    ? { method: 'POST', body: new Uint8Array(request.body), headers: { 'content-type': request.contentType }, signal: AbortSignal.timeout(5000) }
    : { signal: AbortSignal.timeout(5000) });
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()) };
}

/**
 * An access point of the test PKI as a peppol-as4 connector reads it from files: AP POP000001's
 * certificate and the SMP CA (its discovery trust), in a fresh temporary folder; no network.
 */
export function accessPointFiles(prefix: string): { pki: PeppolTestPki; dir: string; certificateFile: string; smpTrustFile: string } {
  const pki = createPeppolTestPki('http://127.0.0.1:9');
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const certificateFile = join(dir, 'ap.pem');
  writeFileSync(certificateFile, pki.ap1.certificatePem);
  const smpTrustFile = join(dir, 'smp.pem');
  writeFileSync(smpTrustFile, pki.smpCa.certificatePem);
  return { pki, dir, certificateFile, smpTrustFile };
}
