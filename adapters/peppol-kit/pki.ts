/**
 * Peppol PKI for our AS4 access point (peppol-transport.md §4, P13, P15, P16): our own identity
 * (key and certificate from PKCS#12 or PEM), the G3 trust anchors (test and production apart), the
 * checks an AP makes on a partner's AP certificate (chain to the AP CA, validity at an injected
 * `now`, seat id, AP not SMP, the expected party, revocation), and the revocation checker (OCSP
 * first, CRL as fallback, cached, soft-fail as a policy).
 *
 * Node's `crypto.X509Certificate` parses and verifies signatures; node-forge opens PKCS#12 (Node
 * cannot, and upstream files may use legacy RC2-40); pkijs builds OCSP requests and reads OCSP
 * responses and CRLs. No hand-written ASN.1. Network goes through the `fetch` the caller gives.
 */
import { X509Certificate, createPrivateKey, randomBytes, type KeyObject } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import forge from 'node-forge';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';

// ---- errors ------------------------------------------------------------------------------------

/** codes: KEY_UNREADABLE (keystore or key cannot be read), KEY_MISMATCH (no certificate for the key), CERTIFICATE_UNREADABLE, UNKNOWN_TRUST_STORE. */
export class PkiError extends Error {
  override name = 'PkiError';
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

// ---- names -------------------------------------------------------------------------------------

/** A Peppol seat id (the CN of an AP or SMP certificate), e.g. POP000306. */
export const SEAT_ID_PATTERN = /^P[A-Z]{2}[0-9]{6}$/;

/** The last CN of a distinguished name as Node prints it (`C=BE\nO=…\nCN=…`). */
export function commonNameOf(dn: string): string | undefined {
  let cn: string | undefined;
  for (const line of dn.split('\n')) if (line.startsWith('CN=')) cn = line.slice(3);
  return cn;
}

const oneLine = (dn: string) => dn.split('\n').join(', ');

// ---- reading certificates ----------------------------------------------------------------------

const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** Every certificate in PEM text (any number of blocks) or one DER buffer. */
function certificatesOf(source: string | Buffer, what: string): X509Certificate[] {
  const text = typeof source === 'string' ? source : source.includes('-----BEGIN CERTIFICATE-----') ? source.toString('latin1') : undefined;
  try {
    if (text === undefined) return [new X509Certificate(source as Buffer)];
    const blocks = text.match(PEM_CERT) ?? [];
    if (!blocks.length) throw new Error('no PEM CERTIFICATE block');
    return blocks.map((b) => new X509Certificate(b));
  } catch (err) {
    throw new PkiError('CERTIFICATE_UNREADABLE', `${what}: not a readable X.509 certificate (${(err as Error).message})`, { cause: err });
  }
}

function isSelfSigned(c: X509Certificate): boolean {
  return c.subject === c.issuer && c.checkIssued(c) && c.verify(c.publicKey);
}

// ---- our identity ------------------------------------------------------------------------------

/** Our AP's identity: key and certificate, from PKCS#12 (node-forge; legacy RC2-40 files too) or PEM. */
export interface ApIdentity {
  certificate: X509Certificate;
  certificatePem: string;
  privateKey: KeyObject;
  /** The other certificates that came with it (intermediates, root), issuer first when known. */
  chain: X509Certificate[];
  /** The certificate's CN, e.g. POP000306. */
  seatId: string;
}

export type ApIdentitySource =
  | { pkcs12: Buffer; passphrase: string }
  | { certificatePem: string; privateKeyPem: string; chainPem?: string; /** for an encrypted PKCS#8 key */ passphrase?: string };

export function loadApIdentity(source: ApIdentitySource): ApIdentity {
  if ('pkcs12' in source) return identityOfPkcs12(source.pkcs12, source.passphrase);
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(source.passphrase === undefined ? source.privateKeyPem : { key: source.privateKeyPem, passphrase: source.passphrase });
  } catch (err) {
    throw new PkiError('KEY_UNREADABLE', `the AP private key cannot be read (PEM, PKCS#1 or PKCS#8${source.passphrase === undefined ? ', unencrypted' : ', with the passphrase given'}): ${(err as Error).message}`, { cause: err });
  }
  const certs = [...certificatesOf(source.certificatePem, 'the AP certificate'), ...(source.chainPem ? certificatesOf(source.chainPem, 'the AP certificate chain') : [])];
  return identityOf(privateKey, certs, 'the PEM certificate');
}

function identityOfPkcs12(der: Buffer, passphrase: string): ApIdentity {
  let p12: forge.pkcs12.Pkcs12Pfx;
  try {
    p12 = forge.pkcs12.pkcs12FromAsn1(forge.asn1.fromDer(forge.util.createBuffer(der.toString('binary'))), false, passphrase);
  } catch (err) {
    const msg = (err as Error).message;
    const hint = /MAC could not be verified|Invalid password/i.test(msg) ? 'wrong passphrase' : 'not a PKCS#12 keystore node-forge can read';
    throw new PkiError('KEY_UNREADABLE', `the PKCS#12 keystore cannot be opened (${hint}): ${msg}`, { cause: err });
  }
  const keys: KeyObject[] = [];
  const certs: X509Certificate[] = [];
  try {
    for (const bagType of [forge.pki.oids.pkcs8ShroudedKeyBag!, forge.pki.oids.keyBag!]) {
      for (const bag of p12.getBags({ bagType })[bagType] ?? []) {
        if (bag.key) keys.push(createPrivateKey(forge.pki.privateKeyToPem(bag.key)));
        else if (bag.asn1) keys.push(createPrivateKey({ key: Buffer.from(forge.asn1.toDer(bag.asn1).getBytes(), 'binary'), format: 'der', type: 'pkcs8' }));
      }
    }
    const certBag = forge.pki.oids.certBag!;
    for (const bag of p12.getBags({ bagType: certBag })[certBag] ?? []) {
      const asn1 = bag.cert ? forge.pki.certificateToAsn1(bag.cert) : bag.asn1;
      if (asn1) certs.push(new X509Certificate(Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary')));
    }
  } catch (err) {
    throw new PkiError('KEY_UNREADABLE', `the PKCS#12 keystore opened, but a key or certificate in it cannot be read: ${(err as Error).message}`, { cause: err });
  }
  if (!keys.length) throw new PkiError('KEY_UNREADABLE', 'the PKCS#12 keystore holds no private key');
  for (const key of keys) {
    if (certs.some((c) => c.checkPrivateKey(key))) return identityOf(key, certs, 'the PKCS#12 keystore');
  }
  throw new PkiError('KEY_MISMATCH', 'the PKCS#12 keystore holds no certificate for its private key');
}

function identityOf(privateKey: KeyObject, certs: X509Certificate[], where: string): ApIdentity {
  if (privateKey.type !== 'private') throw new PkiError('KEY_UNREADABLE', `${where}: the key is not a private key`);
  const certificate = certs.find((c) => c.checkPrivateKey(privateKey));
  if (!certificate) throw new PkiError('KEY_MISMATCH', `${where}: no certificate matches the private key`);
  const others = certs.filter((c) => c !== certificate && c.fingerprint256 !== certificate.fingerprint256);
  // Issuer first: follow the issuer links from the leaf, then whatever is left.
  const chain: X509Certificate[] = [];
  for (let at = certificate; ;) {
    const next = others.find((c) => !chain.includes(c) && at.checkIssued(c) && at.verify(c.publicKey));
    if (!next || next === at) break;
    chain.push(next);
    if (isSelfSigned(next)) break;
    at = next;
  }
  chain.push(...others.filter((c) => !chain.includes(c)));
  return { certificate, certificatePem: certificate.toString(), privateKey, chain, seatId: commonNameOf(certificate.subject) ?? '' };
}

// ---- trust stores ------------------------------------------------------------------------------

/**
 * Trust anchors (`roots`, self-signed) and the CA certificates that lead to them (`intermediates`):
 * an intermediate is trusted only through a root of the same store, so a store is one PKI (test or
 * production), never a mix.
 */
export interface TrustStore { roots: X509Certificate[]; intermediates: X509Certificate[] }

/** A trust store of PEM texts (one or more blocks each) or DER buffers: self-signed → roots, others → intermediates. */
export function trustStoreOf(pems: Array<string | Buffer>): TrustStore {
  const store: TrustStore = { roots: [], intermediates: [] };
  const seen = new Set<string>();
  for (const [i, source] of pems.entries()) {
    for (const cert of certificatesOf(source, `trust store entry #${i + 1}`)) {
      if (seen.has(cert.fingerprint256)) continue;
      seen.add(cert.fingerprint256);
      (isSelfSigned(cert) ? store.roots : store.intermediates).push(cert);
    }
  }
  return store;
}

const TRUST_DIR = join(import.meta.dirname, 'trust');
const peppolStores = new Map<string, TrustStore>();

/** The G3 anchors shipped in `trust/<kind>/` (root, AP CA, SMP CA). Test and production never mixed. */
export function peppolTrustStore(kind: 'test' | 'production'): TrustStore {
  if (kind !== 'test' && kind !== 'production') throw new PkiError('UNKNOWN_TRUST_STORE', `unknown Peppol trust store "${String(kind)}" (test | production)`);
  let store = peppolStores.get(kind);
  if (!store) {
    const dir = join(TRUST_DIR, kind);
    const files = readdirSync(dir).filter((f) => f.endsWith('.pem')).sort();
    store = trustStoreOf(files.map((f) => readFileSync(join(dir, f), 'latin1')));
    peppolStores.set(kind, store);
  }
  return { roots: [...store.roots], intermediates: [...store.intermediates] };
}

// ---- checking an AP certificate ----------------------------------------------------------------

export type CertificateProblem = 'untrusted' | 'expired' | 'not-yet-valid' | 'revoked' | 'revocation-unknown' | 'not-an-ap-certificate' | 'bad-seat-id' | 'party-mismatch';

export interface CertificateCheck {
  ok: boolean;
  problem?: CertificateProblem;
  message?: string;
  seatId?: string;
  notAfter?: Date;
}

export interface ApCertificateCheckOptions {
  trust: TrustStore;
  now: Date;
  /** The seat id the certificate must carry (inbound: eb:From/PartyId; outbound: the one the SMP names, when known). */
  expectedSeatId?: string;
  revocation?: RevocationChecker;
}

const validAt = (c: X509Certificate, now: Date) => new Date(c.validFrom) <= now && now <= new Date(c.validTo);

/** The issuing chain from `leaf` (excluded) to a root of the store (included), each link's signature and validity checked. */
function buildChain(leaf: X509Certificate, trust: TrustStore, now: Date): { chain?: X509Certificate[]; reason: string } {
  const roots = new Set(trust.roots.map((c) => c.fingerprint256));
  const candidates = [...trust.intermediates, ...trust.roots];
  let reason = `no certificate of the trust store issued it (issuer ${oneLine(leaf.issuer)})`;
  const walk = (at: X509Certificate, path: X509Certificate[]): X509Certificate[] | undefined => {
    if (path.length > 6) return undefined;
    if (path.length) reason = `its chain stops at ${oneLine(at.subject)}: no root of the trust store issued that`;
    for (const ca of candidates) {
      if (path.includes(ca) || !ca.ca || !at.checkIssued(ca) || !at.verify(ca.publicKey)) continue;
      if (!validAt(ca, now)) {
        reason = `its issuing CA ${oneLine(ca.subject)} is not valid at ${now.toISOString()} (${ca.validFrom} – ${ca.validTo})`;
        continue;
      }
      if (roots.has(ca.fingerprint256)) return [...path, ca];
      const found = walk(ca, [...path, ca]);
      if (found) return found;
    }
    return undefined;
  };
  const chain = walk(leaf, []);
  return chain ? { chain, reason: '' } : { reason };
}

/**
 * An AP certificate as Peppol requires (§4 "Checks an AP must make"): the chain builds to the
 * store's AP CA (signatures through node:crypto, each link valid at `now`), the leaf is valid at
 * `now`, it is an AP certificate (issued by an ACCESS POINT CA, not an SMP CA), its CN is a seat id
 * (P[A-Z]{2}[0-9]{6}) equal to `expectedSeatId` when given, and it is not revoked when a
 * RevocationChecker is given (its softFail decides whether "could not tell" passes).
 */
export async function checkApCertificate(cert: X509Certificate, options: ApCertificateCheckOptions): Promise<CertificateCheck> {
  const { trust, now } = options;
  const cn = commonNameOf(cert.subject);
  const notAfter = new Date(cert.validTo);
  const base = { ...(cn ? { seatId: cn } : {}), notAfter };
  const fail = (problem: CertificateProblem, message: string): CertificateCheck => ({ ok: false, problem, message, ...base });
  const who = `the certificate ${oneLine(cert.subject)}`;

  const { chain, reason } = buildChain(cert, trust, now);
  if (!chain) return fail('untrusted', `${who} does not chain to the trust store: ${reason}`);
  if (now > notAfter) return fail('expired', `${who} expired on ${notAfter.toISOString()}`);
  if (now < new Date(cert.validFrom)) return fail('not-yet-valid', `${who} is valid only from ${new Date(cert.validFrom).toISOString()}`);
  const issuer = chain[0]!;
  const issuerCn = commonNameOf(issuer.subject) ?? '';
  if (cert.ca) return fail('not-an-ap-certificate', `${who} is a CA certificate, not an AP certificate`);
  if (!/\bACCESS POINT\b/i.test(issuerCn)) return fail('not-an-ap-certificate', `${who} was issued by ${issuerCn || oneLine(issuer.subject)}, not by a Peppol ACCESS POINT CA`);
  if (!cn || !SEAT_ID_PATTERN.test(cn)) return fail('bad-seat-id', `${who} has no Peppol seat id as its CN (P[A-Z]{2}[0-9]{6}): ${cn ?? 'no CN'}`);
  if (options.expectedSeatId !== undefined && options.expectedSeatId.trim().toUpperCase() !== cn.toUpperCase()) {
    return fail('party-mismatch', `${who} belongs to ${cn}, not to ${options.expectedSeatId}`);
  }
  if (options.revocation) {
    const status = await options.revocation.check(cert, issuer);
    if (status === 'revoked') return fail('revoked', `${who} is revoked`);
    if (status === 'unknown' && !options.revocation.softFail) {
      return fail('revocation-unknown', `the revocation status of ${who} could not be established (OCSP and CRL), and soft-fail is off`);
    }
  }
  return { ok: true, ...base };
}

// ---- revocation --------------------------------------------------------------------------------

export type RevocationStatus = 'good' | 'revoked' | 'unknown';

export type RevocationFetch = (url: string, request?: { body: Buffer; contentType: string }) => Promise<{ status: number; body: Buffer }>;

export interface RevocationCheckerOptions {
  /** GET (no request) or POST a URL; the connector passes its host HTTP client, tests a loopback server. */
  fetch: RevocationFetch;
  /** Ask this OCSP responder instead of the certificate's AIA one. */
  ocspUrl?: string;
  /** Read this CRL instead of the certificate's CRL distribution point. */
  crlUrl?: string;
  /** true: a certificate whose status nobody could tell passes checkApCertificate. */
  softFail: boolean;
  /** How long an answer (and a downloaded CRL, at most until its nextUpdate) is kept; default one hour. */
  cacheTtlMs?: number;
  now?: () => Date;
}

const OID_AIA = '1.3.6.1.5.5.7.1.1';
const OID_AD_OCSP = '1.3.6.1.5.5.7.48.1';
const OID_CRL_DP = '2.5.29.31';
const OID_OCSP_NONCE = '1.3.6.1.5.5.7.48.1.2';
/** Leeway for the responder's and the CRL issuer's clocks. */
const CLOCK_SKEW_MS = 5 * 60_000;
const CACHE_LIMIT = 10_000;

interface Cached<T> { value: T; until: number }

/**
 * OCSP first (from the certificate's AIA, or the configured URL), CRL as fallback (its CRL
 * distribution point, or the configured URL); answers cached for cacheTtlMs ('unknown' is not
 * cached, so the next message asks again). A response is believed only when signed by the issuer
 * (or a responder it delegated to) and current; a CRL only when signed by the issuer and current.
 */
export class RevocationChecker {
  readonly softFail: boolean;
  private readonly fetch: RevocationFetch;
  private readonly ocspUrl: string | undefined;
  private readonly crlUrl: string | undefined;
  private readonly ttlMs: number;
  private readonly now: () => Date;
  private readonly answers = new Map<string, Cached<'good' | 'revoked'>>();
  private readonly crls = new Map<string, Cached<pkijs.CertificateRevocationList>>();
  private readonly inFlight = new Map<string, Promise<RevocationStatus>>();

  constructor(options: RevocationCheckerOptions) {
    this.fetch = options.fetch;
    this.ocspUrl = options.ocspUrl;
    this.crlUrl = options.crlUrl;
    this.softFail = options.softFail;
    this.ttlMs = options.cacheTtlMs ?? 3_600_000;
    this.now = options.now ?? (() => new Date());
  }

  async check(cert: X509Certificate, issuer: X509Certificate): Promise<RevocationStatus> {
    const key = `${issuer.fingerprint256}/${cert.serialNumber}`;
    const cached = this.answers.get(key);
    if (cached && cached.until > this.now().getTime()) return cached.value;
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.lookUp(cert, issuer).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    const status = await pending;
    if (status !== 'unknown') remember(this.answers, key, { value: status, until: this.now().getTime() + this.ttlMs });
    return status;
  }

  private async lookUp(cert: X509Certificate, issuer: X509Certificate): Promise<RevocationStatus> {
    let certP: pkijs.Certificate;
    let issuerP: pkijs.Certificate;
    try {
      certP = pkijs.Certificate.fromBER(cert.raw);
      issuerP = pkijs.Certificate.fromBER(issuer.raw);
    } catch {
      return 'unknown';
    }
    const ocspUrl = this.ocspUrl ?? ocspUrlOf(certP);
    if (ocspUrl) {
      const status = await this.askOcsp(ocspUrl, certP, issuerP).catch(() => 'unknown' as const);
      if (status !== 'unknown') return status;
    }
    const crlUrl = this.crlUrl ?? crlUrlOf(certP);
    if (crlUrl) return this.readCrl(crlUrl, certP, issuerP).catch(() => 'unknown' as const);
    return 'unknown';
  }

  private async askOcsp(url: string, certP: pkijs.Certificate, issuerP: pkijs.Certificate): Promise<RevocationStatus> {
    const request = new pkijs.OCSPRequest();
    await request.createForCertificate(certP, { hashAlgorithm: 'SHA-1', issuerCertificate: issuerP });
    const nonce = randomBytes(16);
    request.tbsRequest.requestExtensions = [new pkijs.Extension({
      extnID: OID_OCSP_NONCE,
      extnValue: new asn1js.OctetString({ valueHex: nonce }).toBER(false),
    })];
    const res = await this.fetch(url, { body: Buffer.from(request.toSchema(true).toBER(false)), contentType: 'application/ocsp-request' });
    if (res.status !== 200) return 'unknown';
    const response = pkijs.OCSPResponse.fromBER(new Uint8Array(res.body));
    if (response.responseStatus.valueBlock.valueDec !== 0 || !response.responseBytes) return 'unknown';
    if (response.responseBytes.responseType !== pkijs.id_PKIX_OCSP_Basic) return 'unknown';
    const basic = pkijs.BasicOCSPResponse.fromBER(new Uint8Array(response.responseBytes.response.valueBlock.valueHexView));
    // A response signed by the issuer itself often carries no certificate: offer the issuer.
    if (!basic.certs?.length) basic.certs = [issuerP];
    try {
      if (!(await basic.verify({ trustedCerts: [issuerP], trustedResponders: [issuerP] }))) return 'unknown';
    } catch {
      return 'unknown';
    }
    const echoed = basic.tbsResponseData.responseExtensions?.find((e) => e.extnID === OID_OCSP_NONCE);
    if (echoed && !nonceMatches(echoed, nonce)) return 'unknown';
    const now = this.now().getTime();
    const single = basic.tbsResponseData.responses.find((r) => r.certID.serialNumber.isEqual(certP.serialNumber));
    if (!single) return 'unknown';
    if (single.thisUpdate.getTime() > now + CLOCK_SKEW_MS) return 'unknown';
    if (single.nextUpdate && single.nextUpdate.getTime() < now - CLOCK_SKEW_MS) return 'unknown';
    const { isForCertificate, status } = await basic.getCertificateStatus(certP, issuerP);
    if (!isForCertificate) return 'unknown';
    return status === 0 ? 'good' : status === 1 ? 'revoked' : 'unknown';
  }

  private async readCrl(url: string, certP: pkijs.Certificate, issuerP: pkijs.Certificate): Promise<RevocationStatus> {
    const now = this.now().getTime();
    let crl = this.crls.get(url);
    if (!crl || crl.until <= now) {
      const res = await this.fetch(url);
      if (res.status !== 200) return 'unknown';
      const parsed = pkijs.CertificateRevocationList.fromBER(new Uint8Array(derOfCrl(res.body)));
      if (!(await parsed.verify({ issuerCertificate: issuerP }))) return 'unknown';
      const nextUpdate = parsed.nextUpdate?.value.getTime() ?? Infinity;
      crl = { value: parsed, until: Math.min(now + this.ttlMs, nextUpdate) };
      remember(this.crls, url, crl);
    }
    const list = crl.value;
    if (!list.issuer.isEqual(issuerP.subject)) return 'unknown';
    if (list.thisUpdate.value.getTime() > now + CLOCK_SKEW_MS) return 'unknown';
    if (list.nextUpdate && list.nextUpdate.value.getTime() < now - CLOCK_SKEW_MS) return 'unknown';
    const revoked = (list.revokedCertificates ?? []).some((r) => r.userCertificate.isEqual(certP.serialNumber));
    return revoked ? 'revoked' : 'good';
  }
}

function remember<T>(map: Map<string, Cached<T>>, key: string, entry: Cached<T>): void {
  map.delete(key);
  if (map.size >= CACHE_LIMIT) map.delete(map.keys().next().value!);
  map.set(key, entry);
}

function nonceMatches(extension: pkijs.Extension, nonce: Buffer): boolean {
  const value = Buffer.from(extension.extnValue.valueBlock.valueHexView);
  if (value.equals(nonce)) return true;
  // RFC 8954: the nonce is an OCTET STRING inside the extension's OCTET STRING.
  const inner = asn1js.fromBER(value);
  return inner.offset !== -1 && inner.result instanceof asn1js.OctetString && Buffer.from(inner.result.valueBlock.valueHexView).equals(nonce);
}

function derOfCrl(body: Buffer): Buffer {
  if (!body.includes('-----BEGIN X509 CRL-----')) return body;
  const b64 = /-----BEGIN X509 CRL-----([\s\S]+?)-----END X509 CRL-----/.exec(body.toString('latin1'))?.[1];
  if (!b64) throw new Error('no X509 CRL block');
  return Buffer.from(b64.replace(/\s+/g, ''), 'base64');
}

function uriOf(name: pkijs.GeneralName): string | undefined {
  return name.type === 6 && typeof name.value === 'string' && /^https?:\/\//i.test(name.value) ? name.value : undefined;
}

/** The OCSP responder URL of the certificate's Authority Information Access. */
function ocspUrlOf(cert: pkijs.Certificate): string | undefined {
  const aia = cert.extensions?.find((e) => e.extnID === OID_AIA)?.parsedValue as pkijs.InfoAccess | undefined;
  for (const d of aia?.accessDescriptions ?? []) {
    const url = d.accessMethod === OID_AD_OCSP ? uriOf(d.accessLocation) : undefined;
    if (url) return url;
  }
  return undefined;
}

/** The first HTTP URL of the certificate's CRL distribution points. */
function crlUrlOf(cert: pkijs.Certificate): string | undefined {
  const dps = cert.extensions?.find((e) => e.extnID === OID_CRL_DP)?.parsedValue as pkijs.CRLDistributionPoints | undefined;
  for (const dp of dps?.distributionPoints ?? []) {
    const names = Array.isArray(dp.distributionPoint) ? dp.distributionPoint : [];
    for (const n of names) {
      const url = uriOf(n);
      if (url) return url;
    }
  }
  return undefined;
}
