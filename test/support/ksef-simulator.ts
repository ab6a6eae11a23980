/**
 * A KSeF 2.0 simulator on 127.0.0.1: the slice of the Ministry of Finance's REST API (CIRFMF/ksef-docs,
 * open-api.json) the pl-ksef connector uses, answered the way the documentation says.
 *
 * - `GET /security/public-key-certificates`: its own certificate (RSA 2048), for token and key encryption.
 * - `POST /auth/challenge`, `POST /auth/ksef-token` (decrypts `token|timestampMs` with its private key:
 *   an unknown token or a stale challenge makes the operation end with status 450),
 *   `POST /auth/xades-signature` (the signed AuthTokenRequest verified by xmlsec1, the certificate
 *   naming the NIP: else 450 too), `GET /auth/{ref}`
 *   (100 on the first read, then 200 or 450), `POST /auth/token/redeem`, `POST /auth/token/refresh`.
 * - `POST /sessions/online` (form code FA (3) / 1-0E, the AES key decrypted with its private key),
 *   `POST /sessions/online/{ref}/invoices` (hashes and sizes checked, the invoice decrypted),
 *   `POST /sessions/online/{ref}/close`.
 * - `POST /sessions/batch` (Zip or TarGz, parts with their hashes; upload links under `/storage/`,
 *   PUT without a bearer token), `POST /sessions/batch/{ref}/close` (parts decrypted, the archive
 *   checked against its hash and unpacked by GNU tar or unzip), `GET /sessions/{ref}/invoices` (the
 *   session's invoices with their file names).
 * - `GET /sessions/{ref}/invoices/{inv}`: 150 while the processing delay runs, then 200 with the KSeF
 *   number, or 435 (cannot decrypt), 450 (not valid against the FA(3) schema, the errors in details),
 *   410 (the seller's NIP is not the authenticated context's), 440 (duplicate: that seller's number
 *   and invoice kind already have a KSeF number), 450 also for an issue date (P_1) later than the
 *   day it is taken (weryfikacja-faktury.md); `GET …/upo`: the invoice's UPO (unsigned here).
 * - `POST /invoices/query/metadata` (Subject1/Subject2, by issue or permanent-storage date, invoiceNumber, pageOffset/pageSize
 *   10–250, hasMore) and `GET /invoices/ksef/{ksefNumber}`: the repository, where `addIncoming` puts
 *   invoices other sellers addressed to a buyer's NIP.
 * - Throttling: `throttleNext(n, seconds)` answers the next n requests 429 with Retry-After; 401
 *   for an unknown or expired bearer token (`expireAccessTokens()` makes every access token stale).
 */
import { createDecipheriv, createHash, privateDecrypt, constants, randomBytes, randomUUID, X509Certificate } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import libxml from 'libxmljs2';
import forge from 'node-forge';
import { selfSignedCertificate } from './certificates.ts';
import { fa3XsdErrors } from './ksef-fa3-xsd.ts';

export interface SimInvoice {
  referenceNumber: string;
  /** Its file's name in a batch archive. */
  invoiceFileName?: string;
  sessionReferenceNumber: string;
  ordinalNumber: number;
  contextNip: string;
  receivedAt: number;
  invoiceHash: string;
  xml?: string;
  /** Set once processed. */
  status?: { code: number; description: string; details?: string[]; extensions?: Record<string, string> };
  ksefNumber?: string;
  invoiceNumber?: string;
  acquisitionDate?: string;
  upo?: string;
  /** Set before processing when the content could not be read (435) or did not match its hash (430). */
  early?: { code: number; description: string; details?: string[] };
}

export interface StoredInvoice {
  ksefNumber: string;
  xml: string;
  invoiceHash: string;
  invoiceNumber: string;
  issueDate: string;
  sellerNip: string;
  sellerName: string;
  buyerNip: string | undefined;
  buyerName: string;
  invoiceType: string;
  permanentStorageDate: string;
  acquisitionDate: string;
  net: number;
  vat: number;
  gross: number;
  currency: string;
}

interface Session { nip: string; key: Buffer; iv: Buffer; closed: boolean; count: number }
interface BatchSession extends Session {
  file: { fileSize: number; fileHash: string; compressionType: string };
  parts: Array<{ ordinalNumber: number; fileSize: number; fileHash: string }>;
  uploaded: Map<number, Buffer>;
}
interface AuthOp { nip: string; token: string; ok: boolean; reads: number; redeemed: boolean; reason?: string }

export interface KsefSimulator {
  url: string;
  /** The Ministry's certificate (PEM) whose key the connector encrypts with. */
  certPem: string;
  /** KSeF tokens it accepts, with the NIP each authenticates for. */
  tokens: Map<string, string>;
  sessions: Map<string, Session>;
  batches: Map<string, BatchSession>;
  invoices: Map<string, SimInvoice>;
  repository: StoredInvoice[];
  /** Every request's method and path, in order. */
  requests: Array<{ method: string; path: string; status: number }>;
  processingDelayMs: number;
  /** Every signed AuthTokenRequest received (XAdES authentication). */
  signedAuthRequests: string[];
  authentications: number;
  refreshes: number;
  throttleNext(count: number, retryAfterSeconds: number, pathPrefix?: string): void;
  expireAccessTokens(): void;
  /** Puts an invoice another seller addressed to `buyerNip` in the repository (as if cleared through its own session). */
  addIncoming(xml: string): StoredInvoice;
  close(): Promise<void>;
}

const REF_HEX = () => randomBytes(5).toString('hex').toUpperCase();
const ymd = (d: Date) => d.toISOString().slice(0, 10).replace(/-/g, '');

/** A reference number shaped like KSeF's (`20250918-EE-2F15D39000-242207E5C4-1B`). */
function referenceNumber(kind: string, now: Date): string {
  return `${ymd(now)}-${kind}-${REF_HEX()}-${REF_HEX()}-${randomBytes(1).toString('hex').toUpperCase()}`;
}

/** CRC-8, polynomial 0x07, initial 0x00 (numer-ksef.md). */
function crc8(text: string): number {
  let crc = 0;
  for (const byte of Buffer.from(text, 'ascii')) {
    crc ^= byte;
    for (let i = 0; i < 8; i++) crc = crc & 0x80 ? ((crc << 1) ^ 0x07) & 0xff : (crc << 1) & 0xff;
  }
  return crc;
}

/** A KSeF number: `{seller NIP}-{YYYYMMDD}-{12 hex}-{CRC-8}`. */
export function ksefNumberFor(nip: string, at: Date): string {
  const data = `${nip}-${ymd(at)}-${randomBytes(6).toString('hex').toUpperCase()}`;
  return `${data}-${crc8(data).toString(16).toUpperCase().padStart(2, '0')}`;
}

/** True when the number's CRC-8 matches its data part. */
export function isValidKsefNumber(n: string): boolean {
  if (n.length !== 35) return false;
  return crc8(n.slice(0, 32)).toString(16).toUpperCase().padStart(2, '0') === n.slice(33);
}

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('base64');

/** Facts of an FA(3) document the simulator needs (seller, buyer, number, amounts). */
function factsOf(xml: string): Omit<StoredInvoice, 'ksefNumber' | 'xml' | 'invoiceHash' | 'permanentStorageDate' | 'acquisitionDate'> {
  const doc = libxml.parseXml(xml, { nonet: true });
  const t = (path: string) => (doc.get(path.split('/').map((n) => `*[local-name()="${n}"]`).join('/').replace(/^/, '/')) as libxml.Element | null)?.text();
  const num = (path: string) => Number(t(path) ?? 0);
  const fa = (f: string) => `Faktura/Fa/${f}`;
  const net = ['P_13_1', 'P_13_2', 'P_13_3', 'P_13_4', 'P_13_5', 'P_13_6_1', 'P_13_6_2', 'P_13_6_3', 'P_13_7', 'P_13_8', 'P_13_9', 'P_13_10', 'P_13_11'].reduce((s, f) => s + num(fa(f)), 0);
  const vat = ['P_14_1', 'P_14_2', 'P_14_3', 'P_14_4', 'P_14_5'].reduce((s, f) => s + num(fa(f)), 0);
  return {
    invoiceNumber: t(fa('P_2')) ?? '',
    issueDate: t(fa('P_1')) ?? '',
    sellerNip: t('Faktura/Podmiot1/DaneIdentyfikacyjne/NIP') ?? '',
    sellerName: t('Faktura/Podmiot1/DaneIdentyfikacyjne/Nazwa') ?? '',
    buyerNip: t('Faktura/Podmiot2/DaneIdentyfikacyjne/NIP'),
    buyerName: t('Faktura/Podmiot2/DaneIdentyfikacyjne/Nazwa') ?? '',
    invoiceType: (t(fa('RodzajFaktury')) ?? 'VAT') === 'KOR' ? 'Kor' : 'Vat',
    net, vat, gross: num(fa('P_15')), currency: t(fa('KodWaluty')) ?? 'PLN',
  };
}

function upoFor(inv: SimInvoice, stored: StoredInvoice): string {
  return `<?xml version="1.0" encoding="utf-8"?>
<Potwierdzenie xmlns="http://upo.schematy.mf.gov.pl/KSeF/v4-3">
  <NazwaPodmiotuPrzyjmujacego>Ministerstwo Finansów - symulator KSeF (127.0.0.1)</NazwaPodmiotuPrzyjmujacego>
  <NumerReferencyjnySesji>${inv.sessionReferenceNumber}</NumerReferencyjnySesji>
  <Uwierzytelnienie><IdKontekstu><Nip>${inv.contextNip}</Nip></IdKontekstu></Uwierzytelnienie>
  <NazwaStrukturyLogicznej>Schemat_FA(3)_v1-0E.xsd</NazwaStrukturyLogicznej>
  <KodFormularza>FA (3)</KodFormularza>
  <Dokument>
    <NipSprzedawcy>${stored.sellerNip}</NipSprzedawcy>
    <NumerKSeFDokumentu>${stored.ksefNumber}</NumerKSeFDokumentu>
    <NumerFaktury>${stored.invoiceNumber.replace(/[<&]/g, '')}</NumerFaktury>
    <DataWystawieniaFaktury>${stored.issueDate}</DataWystawieniaFaktury>
    <DataPrzeslaniaDokumentu>${new Date(inv.receivedAt).toISOString()}</DataPrzeslaniaDokumentu>
    <DataNadaniaNumeruKSeF>${stored.acquisitionDate}</DataNadaniaNumeruKSeF>
    <SkrotDokumentu>${stored.invoiceHash}</SkrotDokumentu>
    <TrybWysylki>Online</TrybWysylki>
  </Dokument>
</Potwierdzenie>
`;
}

const MAX_BODY = 8 * 1024 * 1024;

/**
 * A self-signed stand-in for a qualified company seal (the test environment accepts self-made ones):
 * organizationIdentifier (2.5.4.97) `VATPL-{nip}`, organizationName, commonName, countryName PL.
 */
export function companySeal(nip: string, name: string, validDays = 365): { certPem: string; keyPem: string } {
  const keys = forge.pki.rsa.generateKeyPair(2048);
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = randomBytes(8).toString('hex').replace(/^[89a-f]/, '1');
  cert.validity.notBefore = new Date(Date.now() - 86_400_000);
  cert.validity.notAfter = new Date(Date.now() + validDays * 86_400_000);
  const subject = [{ type: '2.5.4.97', value: `VATPL-${nip}` }, { name: 'organizationName', value: name }, { name: 'commonName', value: name }, { name: 'countryName', value: 'PL' }];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.sign(keys.privateKey, forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: forge.pki.privateKeyToPem(keys.privateKey) };
}

/**
 * XAdES authentication as KSeF judges it (auth/podpis-xades.md): the enveloped signature verified by
 * xmlsec1 (an independent verifier) with the certificate of its KeyInfo, the SigningCertificate digest
 * matching that certificate, a challenge KSeF issued, and the certificate naming the context's NIP
 * (organizationIdentifier `VATPL-…` of a seal, serialNumber `TINPL-…`/`NIP-…` of a person).
 */
function verifyAuthTokenRequest(xml: string, challenges: Map<string, number>): { nip: string; ok: boolean; reason?: string } {
  const doc = libxml.parseXml(xml, { nonet: true });
  const text = (xp: string) => (doc.get(xp) as libxml.Element | null)?.text()?.trim();
  const nip = text('/*[local-name()="AuthTokenRequest"]/*[local-name()="ContextIdentifier"]/*[local-name()="Nip"]') ?? '';
  const challenge = text('/*[local-name()="AuthTokenRequest"]/*[local-name()="Challenge"]') ?? '';
  const certB64 = text('//*[local-name()="KeyInfo"]//*[local-name()="X509Certificate"]');
  const certDigest = text('//*[local-name()="SigningCertificate"]//*[local-name()="DigestValue"]');
  if (!certB64) return { nip, ok: false, reason: 'Brak certyfikatu w podpisie' };
  const der = Buffer.from(certB64.replace(/\s/g, ''), 'base64');
  const cert = new X509Certificate(der);
  const dir = mkdtempSync(join(tmpdir(), 'ksef-xades-'));
  try {
    writeFileSync(join(dir, 'request.xml'), xml);
    writeFileSync(join(dir, 'cert.pem'), cert.toString());
    execFileSync('xmlsec1', ['--verify', '--pubkey-cert-pem', join(dir, 'cert.pem'), '--id-attr:Id', 'SignedProperties', join(dir, 'request.xml')], { stdio: 'pipe' });
  } catch {
    return { nip, ok: false, reason: 'Nieprawidłowy podpis' };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (certDigest !== createHash('sha256').update(der).digest('base64')) return { nip, ok: false, reason: 'SigningCertificate nie odpowiada certyfikatowi podpisu' };
  const stamp = challenges.get(challenge);
  if (stamp === undefined || Date.now() - stamp > 10 * 60_000) return { nip, ok: false, reason: 'Nieprawidłowe wyzwanie autoryzacyjne' };
  challenges.delete(challenge);
  const named = /(?:VATPL|TINPL|NIP)-?(\d{10})/.exec(cert.subject)?.[1];
  if (named !== nip) return { nip, ok: false, reason: `Certyfikat nie wskazuje NIP ${nip}` };
  return { nip, ok: true };
}

export async function startKsefSimulator(options: { processingDelayMs?: number } = {}): Promise<KsefSimulator> {
  const { certPem, keyPem } = selfSignedCertificate('KSeF simulator (Ministerstwo Finansów)');
  const certDer = Buffer.from(new X509Certificate(certPem).raw).toString('base64');
  const challenges = new Map<string, number>();
  const ops = new Map<string, AuthOp>();
  const operationTokens = new Map<string, string>();
  const accessTokens = new Map<string, { nip: string; expiresAt: number }>();
  const refreshTokens = new Map<string, { nip: string; expiresAt: number }>();
  let throttle: { count: number; seconds: number; prefix: string } | undefined;

  const sim: KsefSimulator = {
    url: '', certPem, tokens: new Map(), sessions: new Map(), batches: new Map(), invoices: new Map(), repository: [], requests: [],
    processingDelayMs: options.processingDelayMs ?? 200, signedAuthRequests: [], authentications: 0, refreshes: 0,
    throttleNext(count, seconds, prefix = '/') { throttle = { count, seconds, prefix }; },
    expireAccessTokens() { for (const v of accessTokens.values()) v.expiresAt = 0; },
    addIncoming(xml) {
      const now = new Date();
      const f = factsOf(xml);
      const stored: StoredInvoice = { ...f, ksefNumber: ksefNumberFor(f.sellerNip, now), xml, invoiceHash: sha256(xml), permanentStorageDate: now.toISOString(), acquisitionDate: now.toISOString() };
      sim.repository.push(stored);
      return stored;
    },
    close: async () => { await new Promise<void>((r) => server.close(() => r())); },
  };

  const decrypt = (b64: string) => privateDecrypt({ key: keyPem, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, Buffer.from(b64, 'base64'));

  /** Processes an invoice once its delay has run: schema, context, duplicates; a KSeF number and UPO on success. */
  function process(inv: SimInvoice): void {
    if (inv.status || Date.now() - inv.receivedAt < sim.processingDelayMs) return;
    if (inv.early) { inv.status = inv.early; return; }
    const xml = inv.xml!;
    const errors = fa3XsdErrors(xml);
    if (errors.length) {
      inv.status = { code: 450, description: 'Błąd weryfikacji semantyki dokumentu faktury', details: errors.slice(0, 10) };
      return;
    }
    const f = factsOf(xml);
    inv.invoiceNumber = f.invoiceNumber;
    // weryfikacja-faktury.md, "Walidacja dat": P_1 may not be later than the day KSeF takes the document.
    const today = new Date().toISOString().slice(0, 10);
    if (f.issueDate > today) {
      inv.status = { code: 450, description: 'Błąd weryfikacji semantyki dokumentu faktury', details: [`Data wystawienia faktury (P_1) ${f.issueDate} jest późniejsza niż data przyjęcia dokumentu do systemu KSeF (${today})`] };
      return;
    }
    if (f.sellerNip !== inv.contextNip) {
      inv.status = { code: 410, description: 'Nieprawidłowy zakres uprawnień', details: [`Podmiot1 NIP ${f.sellerNip} nie jest kontekstem sesji (${inv.contextNip})`] };
      return;
    }
    const dup = sim.repository.find((s) => s.sellerNip === f.sellerNip && s.invoiceNumber === f.invoiceNumber && s.invoiceType === f.invoiceType);
    if (dup) {
      inv.status = { code: 440, description: 'Duplikat faktury', details: [`Duplikat faktury. Faktura o numerze KSeF: ${dup.ksefNumber} została już prawidłowo przesłana do systemu`], extensions: { originalKsefNumber: dup.ksefNumber } };
      return;
    }
    const now = new Date();
    const stored: StoredInvoice = { ...f, ksefNumber: ksefNumberFor(f.sellerNip, now), xml, invoiceHash: inv.invoiceHash, permanentStorageDate: now.toISOString(), acquisitionDate: now.toISOString() };
    sim.repository.push(stored);
    inv.ksefNumber = stored.ksefNumber;
    inv.acquisitionDate = stored.acquisitionDate;
    inv.upo = upoFor(inv, stored);
    inv.status = { code: 200, description: 'Sukces' };
  }

  /** SessionInvoiceStatusResponse of an invoice. */
  const invoiceStatusOf = (inv: SimInvoice) => ({
    ordinalNumber: inv.ordinalNumber, referenceNumber: inv.referenceNumber, invoiceHash: inv.invoiceHash,
    invoicingDate: new Date(inv.receivedAt).toISOString(), invoicingMode: 'Online',
    ...(inv.invoiceFileName ? { invoiceFileName: inv.invoiceFileName } : {}),
    ...(inv.invoiceNumber ? { invoiceNumber: inv.invoiceNumber } : {}),
    ...(inv.ksefNumber ? { ksefNumber: inv.ksefNumber, acquisitionDate: inv.acquisitionDate, permanentStorageDate: inv.acquisitionDate } : {}),
    status: inv.status ?? { code: 150, description: 'Trwa przetwarzanie' },
  });

  const server = createServer((req, res) => { void handle(req, res); });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const path = url.pathname;
    const send = (status: number, body?: unknown, headers: Record<string, string> = {}) => {
      sim.requests.push({ method: req.method ?? '', path, status });
      const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
      res.writeHead(status, { ...(body === undefined ? {} : { 'content-type': typeof body === 'string' ? 'application/xml' : 'application/json' }), ...headers });
      res.end(text);
    };
    const exception = (status: number, code: number, description: string, details: string[] = []) =>
      send(status, { exception: { exceptionDetailList: [{ exceptionCode: code, exceptionDescription: description, details }], serviceCode: randomUUID(), timestamp: new Date().toISOString() } });
    const unauthorized = () => send(401, { title: 'Unauthorized', status: 401, detail: 'Brak lub nieprawidłowy token dostępowy', timestamp: new Date().toISOString() });

    const chunks: Buffer[] = [];
    let size = 0;
    for await (const c of req) {
      size += (c as Buffer).length;
      if (size > MAX_BODY) return exception(413, 21405, 'Błąd walidacji danych wejściowych.', ['body too large']);
      chunks.push(c as Buffer);
    }
    const raw = Buffer.concat(chunks);
    let body: Record<string, any> = {};
    if (raw.length && (req.headers['content-type'] ?? '').includes('json')) {
      try { body = JSON.parse(raw.toString('utf8')); } catch { return exception(400, 21405, 'Błąd walidacji danych wejściowych.', ['body is not JSON']); }
    }

    if (throttle && throttle.count > 0 && path.startsWith(throttle.prefix)) {
      throttle.count--;
      return send(429, { status: { code: 429, description: 'Too Many Requests', details: [`Przekroczono limit. Spróbuj ponownie za ${throttle.seconds} s.`] } }, { 'retry-after': String(throttle.seconds) });
    }
    const bearer = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    const context = () => {
      const t = accessTokens.get(bearer);
      return t && t.expiresAt > Date.now() ? t.nip : undefined;
    };

    // --- batch part upload: the link KSeF gave is the authorisation (no bearer token) -------------
    const storage = path.match(/^\/storage\/([^/]+)\/(\d+)$/);
    if (storage) {
      const batch = sim.batches.get(storage[1]!);
      const declared = batch?.parts.find((p) => p.ordinalNumber === Number(storage[2]));
      if (req.method !== 'PUT' || !batch || !declared || batch.closed) return send(404, { title: 'Not Found', status: 404 });
      if (raw.length !== declared.fileSize || sha256(raw) !== declared.fileHash) return send(400, { title: 'Bad Request', status: 400, detail: 'the part does not match its declared size and hash' });
      batch.uploaded.set(declared.ordinalNumber, raw);
      return send(201);
    }

    // --- keys and authentication -------------------------------------------------------------
    if (req.method === 'GET' && path === '/security/public-key-certificates') {
      const validFrom = new Date(Date.now() - 86_400_000).toISOString();
      const validTo = new Date(Date.now() + 30 * 86_400_000).toISOString();
      const publicKeyId = sha256(certDer);
      return send(200, [
        { certificate: certDer, certificateId: publicKeyId, publicKeyId, validFrom, validTo, usage: ['KsefTokenEncryption'] },
        { certificate: certDer, certificateId: publicKeyId, publicKeyId, validFrom, validTo, usage: ['SymmetricKeyEncryption'] },
      ]);
    }
    if (req.method === 'POST' && path === '/auth/challenge') {
      const now = new Date();
      const challenge = `${ymd(now)}-CR-${REF_HEX()}-${REF_HEX()}-${randomBytes(1).toString('hex').toUpperCase()}`;
      challenges.set(challenge, now.getTime());
      return send(200, { challenge, timestamp: now.toISOString(), timestampMs: now.getTime(), clientIp: '127.0.0.1' });
    }
    if (req.method === 'POST' && path === '/auth/ksef-token') {
      const stamp = challenges.get(body.challenge);
      if (stamp === undefined) return exception(400, 21405, 'Błąd walidacji danych wejściowych.', ['unknown challenge']);
      challenges.delete(body.challenge);
      if (body.contextIdentifier?.type !== 'Nip' || !/^\d{10}$/.test(body.contextIdentifier?.value ?? '')) return exception(400, 21405, 'Błąd walidacji danych wejściowych.', ['contextIdentifier']);
      let plain = '';
      try { plain = decrypt(String(body.encryptedToken ?? '')).toString('utf8'); } catch { plain = ''; }
      const [token, ts] = [plain.slice(0, plain.lastIndexOf('|')), plain.slice(plain.lastIndexOf('|') + 1)];
      const nip = sim.tokens.get(token);
      const ok = Boolean(nip) && nip === body.contextIdentifier.value && Number(ts) === stamp && Date.now() - stamp < 10 * 60_000;
      const ref = referenceNumber('AU', new Date());
      const opToken = randomBytes(24).toString('base64url');
      ops.set(ref, { nip: body.contextIdentifier.value, token, ok, reads: 0, redeemed: false, reason: ok ? undefined : !plain ? 'Nie można odszyfrować tokenu' : !nip ? 'Nieprawidłowy token' : nip !== body.contextIdentifier.value ? 'Token nie dotyczy wskazanego kontekstu' : 'Nieprawidłowe wyzwanie autoryzacyjne' });
      operationTokens.set(opToken, ref);
      return send(202, { referenceNumber: ref, authenticationToken: { token: opToken, validUntil: new Date(Date.now() + 15 * 60_000).toISOString() } });
    }
    if (req.method === 'POST' && path === '/auth/xades-signature') {
      const xml = raw.toString('utf8');
      sim.signedAuthRequests.push(xml);
      let verdict: { nip: string; ok: boolean; reason?: string };
      try { verdict = verifyAuthTokenRequest(xml, challenges); } catch { return exception(400, 21405, 'Błąd walidacji danych wejściowych.', ['AuthTokenRequest is not readable XML']); }
      const ref = referenceNumber('AU', new Date());
      const opToken = randomBytes(24).toString('base64url');
      ops.set(ref, { nip: verdict.nip, token: '', ok: verdict.ok, reads: 0, redeemed: false, ...(verdict.reason ? { reason: verdict.reason } : {}) });
      operationTokens.set(opToken, ref);
      return send(202, { referenceNumber: ref, authenticationToken: { token: opToken, validUntil: new Date(Date.now() + 15 * 60_000).toISOString() } });
    }
    const authStatus = path.match(/^\/auth\/([^/]+)$/);
    if (req.method === 'GET' && authStatus && authStatus[1] !== 'sessions') {
      const op = ops.get(authStatus[1]!);
      if (!op || operationTokens.get(bearer) !== authStatus[1]) return unauthorized();
      op.reads++;
      const status = op.reads === 1 ? { code: 100, description: 'Uwierzytelnianie w toku' }
        : op.ok ? { code: 200, description: 'Uwierzytelnianie zakończone sukcesem' }
          : { code: 450, description: 'Uwierzytelnianie zakończone niepowodzeniem z powodu błędnego tokenu', details: [op.reason!] };
      return send(200, { startDate: new Date().toISOString(), authenticationMethod: 'Token', status });
    }
    if (req.method === 'POST' && path === '/auth/token/redeem') {
      const ref = operationTokens.get(bearer);
      const op = ref ? ops.get(ref) : undefined;
      if (!op || !op.ok || op.reads < 2 || op.redeemed) return exception(400, 21301, 'Brak autoryzacji.', ['the operation is not finished, failed or was redeemed']);
      op.redeemed = true;
      sim.authentications++;
      const access = randomBytes(24).toString('base64url');
      const refresh = randomBytes(24).toString('base64url');
      accessTokens.set(access, { nip: op.nip, expiresAt: Date.now() + 15 * 60_000 });
      refreshTokens.set(refresh, { nip: op.nip, expiresAt: Date.now() + 7 * 86_400_000 });
      return send(200, { accessToken: { token: access, validUntil: new Date(Date.now() + 15 * 60_000).toISOString() }, refreshToken: { token: refresh, validUntil: new Date(Date.now() + 7 * 86_400_000).toISOString() } });
    }
    if (req.method === 'POST' && path === '/auth/token/refresh') {
      const r = refreshTokens.get(bearer);
      if (!r || r.expiresAt < Date.now()) return unauthorized();
      sim.refreshes++;
      const access = randomBytes(24).toString('base64url');
      accessTokens.set(access, { nip: r.nip, expiresAt: Date.now() + 15 * 60_000 });
      return send(200, { accessToken: { token: access, validUntil: new Date(Date.now() + 15 * 60_000).toISOString() } });
    }

    // --- everything below needs an access token ------------------------------------------------
    const nip = context();
    if (!nip) return unauthorized();

    if (req.method === 'POST' && path === '/sessions/online') {
      const fc = body.formCode ?? {};
      if (fc.systemCode !== 'FA (3)' || fc.schemaVersion !== '1-0E' || fc.value !== 'FA') return exception(400, 21405, 'Błąd walidacji danych wejściowych.', [`formCode ${JSON.stringify(fc)} is not FA (3) 1-0E FA`]);
      let key: Buffer;
      try { key = decrypt(String(body.encryption?.encryptedSymmetricKey ?? '')); } catch { return exception(400, 21405, 'Błąd walidacji danych wejściowych.', ['encryptedSymmetricKey cannot be decrypted']); }
      const iv = Buffer.from(String(body.encryption?.initializationVector ?? ''), 'base64');
      if (key.length !== 32 || iv.length !== 16) return exception(400, 21405, 'Błąd walidacji danych wejściowych.', ['a 256-bit key and a 128-bit IV are required']);
      const ref = referenceNumber('SO', new Date());
      sim.sessions.set(ref, { nip, key, iv, closed: false, count: 0 });
      return send(201, { referenceNumber: ref, validUntil: new Date(Date.now() + 12 * 3600_000).toISOString() });
    }
    const sendInvoice = path.match(/^\/sessions\/online\/([^/]+)\/invoices$/);
    if (req.method === 'POST' && sendInvoice) {
      const session = sim.sessions.get(sendInvoice[1]!);
      if (!session || session.nip !== nip) return exception(400, 21173, 'Brak sesji o wskazanym numerze referencyjnym.');
      if (session.closed) return exception(400, 21180, 'Status sesji nie pozwala na wykonanie operacji.', ['session closed']);
      const encrypted = Buffer.from(String(body.encryptedInvoiceContent ?? ''), 'base64');
      if (sha256(encrypted) !== body.encryptedInvoiceHash || encrypted.length !== body.encryptedInvoiceSize) return exception(400, 21405, 'Błąd walidacji danych wejściowych.', ['encryptedInvoiceHash or encryptedInvoiceSize does not match the content']);
      const ref = referenceNumber('EE', new Date());
      const inv: SimInvoice = { referenceNumber: ref, sessionReferenceNumber: sendInvoice[1]!, ordinalNumber: ++session.count, contextNip: nip, receivedAt: Date.now(), invoiceHash: String(body.invoiceHash ?? '') };
      try {
        const d = createDecipheriv('aes-256-cbc', session.key, session.iv);
        const plain = Buffer.concat([d.update(encrypted), d.final()]);
        if (sha256(plain) !== body.invoiceHash || plain.length !== body.invoiceSize) inv.early = { code: 430, description: 'Błąd weryfikacji pliku faktury', details: ['invoiceHash or invoiceSize does not match the decrypted file'] };
        else inv.xml = plain.toString('utf8');
      } catch {
        inv.early = { code: 435, description: 'Błąd odszyfrowania pliku' };
      }
      sim.invoices.set(ref, inv);
      return send(202, { referenceNumber: ref });
    }
    if (req.method === 'POST' && path === '/sessions/batch') {
      const fc = body.formCode ?? {};
      if (fc.systemCode !== 'FA (3)' || fc.schemaVersion !== '1-0E' || fc.value !== 'FA') return exception(400, 21405, 'Błąd walidacji danych wejściowych.', [`formCode ${JSON.stringify(fc)} is not FA (3) 1-0E FA`]);
      const file = body.batchFile ?? {};
      const parts = Array.isArray(file.fileParts) ? file.fileParts : [];
      if (!['Zip', 'TarGz'].includes(file.compressionType ?? 'Zip') || !parts.length || parts.length > 50) return exception(400, 21405, 'Błąd walidacji danych wejściowych.', ['batchFile needs Zip or TarGz and 1–50 parts']);
      let key: Buffer;
      try { key = decrypt(String(body.encryption?.encryptedSymmetricKey ?? '')); } catch { return exception(400, 21405, 'Błąd walidacji danych wejściowych.', ['encryptedSymmetricKey cannot be decrypted']); }
      const iv = Buffer.from(String(body.encryption?.initializationVector ?? ''), 'base64');
      const ref = referenceNumber('SB', new Date());
      sim.batches.set(ref, { nip, key, iv, closed: false, count: 0, file: { fileSize: file.fileSize, fileHash: file.fileHash, compressionType: file.compressionType ?? 'Zip' }, parts, uploaded: new Map() });
      const origin = `http://${req.headers.host}`;
      return send(201, { referenceNumber: ref, partUploadRequests: parts.map((p: { ordinalNumber: number }) => ({ ordinalNumber: p.ordinalNumber, method: 'PUT', url: `${origin}/storage/${ref}/${p.ordinalNumber}`, headers: { 'x-ms-blob-type': 'BlockBlob' } })) });
    }
    const closeBatch = path.match(/^\/sessions\/batch\/([^/]+)\/close$/);
    if (req.method === 'POST' && closeBatch) {
      const batch = sim.batches.get(closeBatch[1]!);
      if (!batch || batch.nip !== nip) return exception(400, 21173, 'Brak sesji o wskazanym numerze referencyjnym.');
      if (batch.parts.some((p) => !batch.uploaded.has(p.ordinalNumber))) return exception(400, 21205, 'Pakiet nie może być pusty.', ['not every declared part was uploaded']);
      batch.closed = true;
      const receivedAt = Date.now();
      let archive: Buffer;
      try {
        archive = Buffer.concat(batch.parts.sort((a, b) => a.ordinalNumber - b.ordinalNumber).map((p) => {
          const d = createDecipheriv('aes-256-cbc', batch.key, batch.iv);
          return Buffer.concat([d.update(batch.uploaded.get(p.ordinalNumber)!), d.final()]);
        }));
      } catch {
        return exception(400, 21405, 'Błąd walidacji danych wejściowych.', ['a part cannot be decrypted']);
      }
      if (archive.length !== batch.file.fileSize || sha256(archive) !== batch.file.fileHash) return exception(400, 21405, 'Błąd walidacji danych wejściowych.', ['the archive does not match its declared size and hash']);
      // The archive is read by GNU tar (TarGz) or unzip (Zip): tools of their own, not our writer.
      const dir = mkdtempSync(join(tmpdir(), 'ksef-batch-'));
      try {
        writeFileSync(join(dir, 'package'), archive);
        mkdirSync(join(dir, 'out'));
        if (batch.file.compressionType === 'TarGz') execFileSync('tar', ['-xzf', join(dir, 'package'), '-C', join(dir, 'out')], { stdio: 'pipe' });
        else execFileSync('unzip', ['-q', join(dir, 'package'), '-d', join(dir, 'out')], { stdio: 'pipe' });
        for (const name of readdirSync(join(dir, 'out')).sort()) {
          const content = readFileSync(join(dir, 'out', name));
          const ref = referenceNumber('EE', new Date());
          sim.invoices.set(ref, { referenceNumber: ref, invoiceFileName: name, sessionReferenceNumber: closeBatch[1]!, ordinalNumber: ++batch.count, contextNip: nip, receivedAt, invoiceHash: sha256(content), xml: content.toString('utf8') });
        }
      } catch {
        return exception(400, 21405, 'Błąd walidacji danych wejściowych.', ['the archive cannot be read']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      return send(204);
    }
    const sessionList = path.match(/^\/sessions\/([^/]+)\/invoices$/);
    if (req.method === 'GET' && sessionList) {
      const pageSize = Number(url.searchParams.get('pageSize') ?? 10);
      if (!Number.isInteger(pageSize) || pageSize < 10 || pageSize > 1000) return exception(400, 21405, 'Błąd walidacji danych wejściowych.', ['pageSize must be 10–1000']);
      const list = [...sim.invoices.values()].filter((i) => i.sessionReferenceNumber === sessionList[1] && i.contextNip === nip).slice(0, pageSize);
      return send(200, { invoices: list.map((inv) => { process(inv); return invoiceStatusOf(inv); }) });
    }
    const close = path.match(/^\/sessions\/online\/([^/]+)\/close$/);
    if (req.method === 'POST' && close) {
      const session = sim.sessions.get(close[1]!);
      if (!session || session.nip !== nip) return exception(400, 21173, 'Brak sesji o wskazanym numerze referencyjnym.');
      session.closed = true;
      return send(204);
    }
    const invStatus = path.match(/^\/sessions\/([^/]+)\/invoices\/([^/]+?)(\/upo)?$/);
    if (req.method === 'GET' && invStatus) {
      const inv = sim.invoices.get(invStatus[2]!);
      if (!inv || inv.sessionReferenceNumber !== invStatus[1] || inv.contextNip !== nip) return exception(400, 21173, 'Brak faktury o wskazanym numerze referencyjnym.');
      process(inv);
      if (invStatus[3]) {
        if (!inv.upo) return exception(400, 21178, 'Nie znaleziono UPO dla podanych kryteriów.');
        return send(200, inv.upo, { 'x-ms-meta-hash': sha256(inv.upo) });
      }
      return send(200, invoiceStatusOf(inv));
    }
    if (req.method === 'POST' && path === '/invoices/query/metadata') {
      const pageSize = Number(url.searchParams.get('pageSize') ?? 10);
      const pageOffset = Number(url.searchParams.get('pageOffset') ?? 0);
      if (!Number.isInteger(pageSize) || pageSize < 10 || pageSize > 250 || !Number.isInteger(pageOffset) || pageOffset < 0) return exception(400, 21405, 'Błąd walidacji danych wejściowych.', ['pageSize must be 10–250, pageOffset ≥ 0']);
      const subject = body.subjectType;
      const from = Date.parse(body.dateRange?.from ?? '');
      if ((subject !== 'Subject1' && subject !== 'Subject2') || !Number.isFinite(from)) return exception(400, 21405, 'Błąd walidacji danych wejściowych.', ['subjectType and dateRange.from are required']);
      const to = body.dateRange?.to ? Date.parse(body.dateRange.to) : Infinity;
      // dateType Issue compares the issue date (P_1, a day); Invoicing and PermanentStorage the storage time here.
      const dateOf = (s: StoredInvoice) => (body.dateRange?.dateType === 'Issue' ? Date.parse(`${s.issueDate}T12:00:00Z`) : Date.parse(s.permanentStorageDate));
      const all = sim.repository
        .filter((s) => (subject === 'Subject1' ? s.sellerNip === nip : s.buyerNip === nip))
        .filter((s) => dateOf(s) >= from && dateOf(s) <= to)
        .filter((s) => body.invoiceNumber === undefined || s.invoiceNumber === body.invoiceNumber)
        .sort((a, b) => a.permanentStorageDate.localeCompare(b.permanentStorageDate));
      const page = all.slice(pageOffset * pageSize, (pageOffset + 1) * pageSize);
      return send(200, {
        hasMore: all.length > (pageOffset + 1) * pageSize, isTruncated: false,
        invoices: page.map((s) => ({
          ksefNumber: s.ksefNumber, invoiceNumber: s.invoiceNumber, issueDate: s.issueDate, invoicingDate: s.acquisitionDate, acquisitionDate: s.acquisitionDate,
          permanentStorageDate: s.permanentStorageDate, seller: { nip: s.sellerNip, name: s.sellerName },
          buyer: { identifier: s.buyerNip ? { type: 'Nip', value: s.buyerNip } : { type: 'None' }, name: s.buyerName },
          netAmount: s.net, vatAmount: s.vat, grossAmount: s.gross, currency: s.currency, invoicingMode: 'Online', invoiceType: s.invoiceType,
          formCode: { systemCode: 'FA (3)', schemaVersion: '1-0E', value: 'FA' }, isSelfInvoicing: false, hasAttachment: false, invoiceHash: s.invoiceHash,
        })),
      });
    }
    const byNumber = path.match(/^\/invoices\/ksef\/([^/]+)$/);
    if (req.method === 'GET' && byNumber) {
      const s = sim.repository.find((x) => x.ksefNumber === decodeURIComponent(byNumber[1]!));
      if (!s || (s.sellerNip !== nip && s.buyerNip !== nip)) return exception(400, 21164, 'Faktura o podanym identyfikatorze nie istnieje.');
      return send(200, s.xml, { 'x-ms-meta-hash': s.invoiceHash });
    }
    return send(404, { title: 'Not Found', status: 404, detail: `${req.method} ${path}`, timestamp: new Date().toISOString() });
  }

  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const address = server.address();
  sim.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/v2`;
  return withPrefix(sim, server);
}

/** The API answers under `/v2` like the real one (api-test.ksef.mf.gov.pl/v2): the prefix is stripped before routing. */
function withPrefix(sim: KsefSimulator, server: ReturnType<typeof createServer>): KsefSimulator {
  const listeners = server.listeners('request') as Array<(req: IncomingMessage, res: ServerResponse) => void>;
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.url?.startsWith('/storage/')) {
      for (const l of listeners) l(req, res);
      return;
    }
    if (!req.url?.startsWith('/v2/')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ title: 'Not Found', status: 404 }));
      return;
    }
    req.url = req.url.slice(3);
    for (const l of listeners) l(req, res);
  });
  return sim;
}
