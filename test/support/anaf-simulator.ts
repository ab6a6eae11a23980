/**
 * ANAF's RO e-Factura on 127.0.0.1, as the ro-anaf connector reaches it, after ANAF's published API
 * (the SPV e-Factura REST services under `/{prod,test}/FCTEL/rest` and the OAuth2 server
 * `/anaf-oauth2/v1`):
 * - `POST /anaf-oauth2/v1/token` `grant_type=refresh_token` (client authenticated with HTTP Basic or
 *   in the body) → `{access_token, refresh_token, expires_in}`; an unknown refresh token is
 *   `invalid_grant`, a wrong client `invalid_client`. Every other call needs `Bearer <access_token>`.
 * - `POST upload?standard=UBL|CN&cif=` (body: the XML) → `<header xmlns="mfp:anaf:dgti:spv:respUploadFisier:v1"
 *   ExecutionStatus="0" index_incarcare="…"/>`, or `ExecutionStatus="1"` with `<Errors errorMessage/>`
 *   for a request ANAF refuses outright (unknown standard, a CIF that is not a number).
 * - the upload is processed after `processingMs`: checked against the vendored UBL 2.1 XSD and a few
 *   CIUS-RO rules, written here on their own (BR-RO-001 BT-24, BR-RO-010 a digit in BT-1, BR-RO-110 /
 *   111 county codes of Romanian parties, BR-RO-L1024 item names of at most 100 characters, and that
 *   the `cif` is the seller's); a body that is not XML is `XML cu erori nepreluat de sistem`. A cleared
 *   invoice is listed for the seller (FACTURA TRIMISA) and for a Romanian buyer (FACTURA PRIMITA).
 * - `GET stareMesaj?id_incarcare=` → `stare="in prelucrare"` until processed, then `ok` or `nok` with
 *   `id_descarcare` (`<header xmlns="mfp:anaf:dgti:efactura:stareMesajFactura:v1" …/>`).
 * - `GET descarcare?id=` → `application/zip` made with fflate: `<index>.xml` (the invoice, or
 *   ANAF's error message `mfp:anaf:dgti:efactura:mesajEroriFactuta:v1` for a refused one) and
 *   `semnatura_<index>.xml`, an XMLDSig (xml-crypto, RSA-SHA256) by the simulator's "ANAF" key over a
 *   statement of the file's SHA-256; unknown ids answer JSON `{eroare, titlu}`.
 * - `GET listaMesajePaginatieFactura?startTime&endTime&cif&pagina&filtru` → JSON pages of the CIF's
 *   messages (`FACTURA TRIMISA` for its uploads, `FACTURA PRIMITA` for invoices added with
 *   `receive`), `pageSize` a page; none → `{eroare: "Nu exista mesaje …"}`.
 * - `failNext(kind, n, status, retryAfter?)` answers the next n calls of a kind with 429 / 5xx.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import { zipSync, strToU8 } from 'fflate';
import { SignedXml } from 'xml-crypto';
import libxml from 'libxmljs2';
import type { Document as XmlDocument } from 'libxmljs2';
import { validateXsd } from '../../services/validation/engine/xsd.ts';
import { selfSignedCertificate } from './certificates.ts';
import { freePort } from './servers.ts';

const UBL_NS = { cbc: 'urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2', cac: 'urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2' };
const CIUS_RO = 'urn:cen.eu:en16931:2017#compliant#urn:efactura.mfinante.ro:CIUS-RO:1.0.1';
const RO_COUNTIES = new Set('AB AG AR B BC BH BN BR BT BV BZ CJ CL CS CT CV DB DJ GJ GL GR HD HR IF IL IS MH MM MS NT OT PH SB SJ SM SV TL TM TR VL VN VS'.split(' ').map((c) => `RO-${c}`));
const C14N = 'http://www.w3.org/2001/10/xml-exc-c14n#';

export type AnafCallKind = 'token' | 'upload' | 'status' | 'download' | 'list';

export interface AnafUpload {
  index: string;
  cif: string;
  standard: string;
  extern: boolean;
  xml: string;
  receivedAt: number;
  /** Filled once processed: `ok` with the download id, `nok` with ANAF's errors, or not XML at all. */
  state?: 'ok' | 'nok' | 'XML cu erori nepreluat de sistem';
  downloadId?: string;
  errors?: string[];
}

export interface AnafMessage { id: string; tip: 'FACTURA TRIMISA' | 'FACTURA PRIMITA' | 'ERORI FACTURA'; cif: string; id_solicitare: string; detalii: string; data_creare: string; createdAt: number }

export interface AnafSimulator {
  /** Base URLs of the two environments and the token endpoint. */
  prodUrl: string;
  testUrl: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  refreshToken: string;
  uploads: Map<string, AnafUpload>;
  messages: AnafMessage[];
  /** Calls by kind (after authentication), and the bearer tokens they carried. */
  calls: Record<AnafCallKind, number>;
  accessTokensIssued: string[];
  /** Certificate (PEM) of the key that signs the `semnatura_` files. */
  signerCertificatePem: string;
  /** Answer the next n calls of this kind with `status` (429 with Retry-After, 500, 503 …). */
  failNext(kind: AnafCallKind, n: number, status: number, retryAfterSeconds?: number): void;
  /** Expire every access token issued so far (the next call gets a 401). */
  revokeAccessTokens(): void;
  /** An invoice another taxpayer uploaded for `buyerCif`: listed as FACTURA PRIMITA, downloadable. */
  receive(buyerCif: string, sellerCif: string, xml: string): AnafMessage;
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, contentType: string, body: string | Uint8Array, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': contentType, ...headers }).end(body);
}
const xml = (res: ServerResponse, body: string) => send(res, 200, 'application/xml', `<?xml version="1.0" encoding="UTF-8"?>\n${body}`);
const json = (res: ServerResponse, status: number, body: unknown) => send(res, status, 'application/json', JSON.stringify(body));

async function bodyOf(req: IncomingMessage, limit = 12 * 1024 * 1024): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > limit) throw new Error('request too large');
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks);
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** ANAF's date of a message: yyyyMMddHHmm. */
function anafDate(ms: number): string {
  return new Date(ms).toISOString().replace(/[-T:]/g, '').slice(0, 12);
}

/** What ANAF's processing says of an uploaded invoice: the XSD, then the CIUS-RO rules written here. */
export function judgeUpload(body: string, cif: string, standard: string): { notXml: true } | { errors: string[] } {
  let doc: XmlDocument;
  try {
    if (/<!DOCTYPE/i.test(body)) return { notXml: true };
    doc = libxml.parseXml(body);
  } catch {
    return { notXml: true };
  }
  const errors: string[] = [];
  const root = doc.root();
  const rootName = root?.name();
  if ((standard === 'UBL' && rootName !== 'Invoice') || (standard === 'CN' && rootName !== 'CreditNote')) {
    errors.push(`E: validari globale eroare: standard=${standard} nu corespunde cu radacina ${rootName ?? '-'}`);
    return { errors };
  }
  for (const f of validateXsd(body, rootName === 'CreditNote' ? 'ubl-creditnote' : 'ubl-invoice')) errors.push(`E: validari xsd eroare: ${f.message}`);
  if (errors.length) return { errors };
  const text = (xp: string) => (doc.get(xp, UBL_NS) as { text(): string } | null)?.text().trim() ?? '';
  if (text('/*/cbc:CustomizationID') !== CIUS_RO) errors.push(`E: validari globale eroare: [BR-RO-001]-Identificatorul specificatie (BT-24) trebuie sa fie ${CIUS_RO}`);
  if (!/[0-9]/.test(text('/*/cbc:ID'))) errors.push('E: validari globale eroare: [BR-RO-010]-Numarul facturii (BT-1) trebuie sa includa cel putin un caracter numeric (0-9).');
  for (const [role, rule, bt] of [['AccountingSupplierParty', 'BR-RO-110', 'BT-39'], ['AccountingCustomerParty', 'BR-RO-111', 'BT-54']] as const) {
    const address = `/*/cac:${role}/cac:Party/cac:PostalAddress`;
    if (text(`${address}/cac:Country/cbc:IdentificationCode`) === 'RO' && !RO_COUNTIES.has(text(`${address}/cbc:CountrySubentity`))) {
      errors.push(`E: validari globale eroare: [${rule}]-Subdiviziunea tarii (${bt}) trebuie sa fie codificata folosind lista de coduri ISO 3166-2:RO`);
    }
  }
  for (const name of doc.find('/*/cac:InvoiceLine/cac:Item/cbc:Name | /*/cac:CreditNoteLine/cac:Item/cbc:Name', UBL_NS)) {
    const length = (name as unknown as { text(): string }).text().trim().length;
    if (length > 100) errors.push(`E: validari globale eroare: [BR-RO-L1024]-Numarul maxim permis de caractere pentru Numele articolului (BT-153) este 100 (gasit ${length}).`);
  }
  const sellerIds = ['/*/cac:AccountingSupplierParty/cac:Party/cac:PartyTaxScheme/cbc:CompanyID', '/*/cac:AccountingSupplierParty/cac:Party/cac:PartyLegalEntity/cbc:CompanyID']
    .flatMap((xp) => doc.find(xp, UBL_NS).map((n) => (n as unknown as { text(): string }).text().trim().replace(/^RO/i, '')));
  if (!sellerIds.includes(cif)) errors.push(`E: validari globale eroare: CIF introdus= ${cif} nu corespunde cu niciunul din CIF-urile din xml (vanzator)`);
  return { errors };
}

/** The buyer's CUI an invoice names (its RO VAT number's digits, else its legal registration id), if Romanian. */
function buyerCifOf(body: string): string | undefined {
  try {
    const doc = libxml.parseXml(body);
    const ids = ['/*/cac:AccountingCustomerParty/cac:Party/cac:PartyTaxScheme/cbc:CompanyID', '/*/cac:AccountingCustomerParty/cac:Party/cac:PartyLegalEntity/cbc:CompanyID']
      .flatMap((xp) => doc.find(xp, UBL_NS).map((n) => (n as unknown as { text(): string }).text().trim()));
    for (const id of ids) { const m = /^(?:RO)?(\d{2,10})$/i.exec(id); if (m?.[1]) return m[1]; }
  } catch { /* not for anyone */ }
  return undefined;
}

export async function startAnafSimulator(options: { processingMs?: number; pageSize?: number; accessTokenSeconds?: number; rotateRefreshToken?: boolean } = {}): Promise<AnafSimulator> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const processingMs = options.processingMs ?? 300;
  const pageSize = options.pageSize ?? 500;
  const signer = selfSignedCertificate('ANAF e-Factura simulator', { bits: 1024 });
  let refreshTokens = new Set([`rt-${randomBytes(8).toString('hex')}`]);
  const accessTokens = new Set<string>();
  const failures: Partial<Record<AnafCallKind, { n: number; status: number; retryAfter?: number }>> = {};
  let nextIndex = 5_000_000_000;
  let nextDownload = 3_000_000_000;
  const downloads = new Map<string, { name: string; content: string }>();

  const sim: AnafSimulator = {
    prodUrl: `${base}/prod/FCTEL/rest`,
    testUrl: `${base}/test/FCTEL/rest`,
    tokenUrl: `${base}/anaf-oauth2/v1/token`,
    clientId: 'einv-test-app',
    clientSecret: `cs-${randomBytes(8).toString('hex')}`,
    refreshToken: [...refreshTokens][0]!,
    uploads: new Map(),
    messages: [],
    calls: { token: 0, upload: 0, status: 0, download: 0, list: 0 },
    accessTokensIssued: [],
    signerCertificatePem: signer.certPem,
    failNext(kind, n, status, retryAfter) { failures[kind] = { n, status, ...(retryAfter !== undefined ? { retryAfter } : {}) }; },
    revokeAccessTokens() { accessTokens.clear(); },
    receive(buyerCif, sellerCif, invoiceXml) {
      const index = String(nextIndex++);
      const id = String(nextDownload++);
      downloads.set(id, { name: `${index}.xml`, content: invoiceXml });
      const m: AnafMessage = { id, tip: 'FACTURA PRIMITA', cif: buyerCif, id_solicitare: index, detalii: `Factura cu id_incarcare=${index} emisa de cif_emitent=${sellerCif} pentru cif_beneficiar=${buyerCif}`, data_creare: anafDate(Date.now()), createdAt: Date.now() };
      sim.messages.push(m);
      return m;
    },
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
  sim.refreshToken = [...refreshTokens][0]!;

  /** ANAF's signature file: an enveloped XMLDSig over a statement of the signed file's digest. */
  function signatureFor(name: string, content: string): string {
    const digest = createHash('sha256').update(content).digest('base64');
    const unsigned = `<SemnaturaFisier xmlns="urn:einv-test:anaf-simulator"><Fisier nume="${esc(name)}" sha256="${digest}"/></SemnaturaFisier>`;
    const cert = signer.certPem.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, '');
    const sig = new SignedXml({
      privateKey: signer.keyPem, publicCert: signer.certPem,
      signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256', canonicalizationAlgorithm: C14N,
      getKeyInfoContent: (args) => { const p = args?.prefix ? `${args.prefix}:` : ''; return `<${p}X509Data><${p}X509Certificate>${cert}</${p}X509Certificate></${p}X509Data>`; },
    });
    sig.addReference({ xpath: '/*', transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', C14N], digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256', isEmptyUri: true });
    sig.computeSignature(unsigned, { prefix: 'ds', location: { reference: '/*', action: 'append' } });
    return sig.getSignedXml();
  }

  function process(u: AnafUpload): void {
    if (u.state || Date.now() - u.receivedAt < processingMs) return;
    const verdict = judgeUpload(u.xml, u.cif, u.standard);
    const id = String(nextDownload++);
    if ('notXml' in verdict) { u.state = 'XML cu erori nepreluat de sistem'; return; }
    u.downloadId = id;
    if (verdict.errors.length) {
      u.state = 'nok';
      u.errors = verdict.errors;
      const content = `<?xml version="1.0" encoding="UTF-8"?>\n<header xmlns="mfp:anaf:dgti:efactura:mesajEroriFactuta:v1" Index_incarcare="${u.index}" Cif_emitent="${u.cif}">${verdict.errors.map((e) => `<Error errorMessage="${esc(e)}"/>`).join('')}</header>`;
      downloads.set(id, { name: `${u.index}.xml`, content });
      sim.messages.push({ id, tip: 'ERORI FACTURA', cif: u.cif, id_solicitare: u.index, detalii: `Erori de validare identificate la factura transmisa cu id_incarcare=${u.index}`, data_creare: anafDate(Date.now()), createdAt: Date.now() });
      return;
    }
    u.state = 'ok';
    downloads.set(id, { name: `${u.index}.xml`, content: u.xml });
    sim.messages.push({ id, tip: 'FACTURA TRIMISA', cif: u.cif, id_solicitare: u.index, detalii: `Factura cu id_incarcare=${u.index} emisa de cif_emitent=${u.cif}`, data_creare: anafDate(Date.now()), createdAt: Date.now() });
    // A Romanian buyer finds it in its own list, as ANAF makes it available to the buyer's SPV.
    const buyerCif = u.extern ? undefined : buyerCifOf(u.xml);
    if (buyerCif) sim.messages.push({ id, tip: 'FACTURA PRIMITA', cif: buyerCif, id_solicitare: u.index, detalii: `Factura cu id_incarcare=${u.index} emisa de cif_emitent=${u.cif} pentru cif_beneficiar=${buyerCif}`, data_creare: anafDate(Date.now()), createdAt: Date.now() });
  }

  function clientOf(req: IncomingMessage, form: URLSearchParams): { id: string; secret: string } {
    const basic = /^Basic\s+(.+)$/i.exec(req.headers.authorization ?? '');
    if (basic?.[1]) {
      const [id = '', secret = ''] = Buffer.from(basic[1], 'base64').toString('utf8').split(':');
      return { id, secret };
    }
    return { id: form.get('client_id') ?? '', secret: form.get('client_secret') ?? '' };
  }

  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', base);
      const q = url.searchParams;
      const kind: AnafCallKind | undefined = url.pathname === '/anaf-oauth2/v1/token' ? 'token'
        : /^\/(prod|test)\/FCTEL\/rest\/upload$/.test(url.pathname) ? 'upload'
          : /^\/(prod|test)\/FCTEL\/rest\/stareMesaj$/.test(url.pathname) ? 'status'
            : /^\/(prod|test)\/FCTEL\/rest\/descarcare$/.test(url.pathname) ? 'download'
              : /^\/(prod|test)\/FCTEL\/rest\/listaMesajePaginatieFactura$/.test(url.pathname) ? 'list' : undefined;
      if (!kind) return json(res, 404, { eroare: `Resursa ${url.pathname} nu exista`, titlu: 'Not found' });
      const failure = failures[kind];
      if (failure && failure.n > 0) {
        failure.n--;
        const body = JSON.stringify({ eroare: failure.status === 429 ? 'S-au facut prea multe cereri; limita a fost depasita' : 'Eroare interna', titlu: 'Eroare' });
        return send(res, failure.status, 'application/json', body, failure.retryAfter !== undefined ? { 'retry-after': String(failure.retryAfter) } : {});
      }
      if (kind === 'token') {
        if (req.method !== 'POST') return json(res, 405, { error: 'invalid_request' });
        const form = new URLSearchParams((await bodyOf(req)).toString('utf8'));
        const client = clientOf(req, form);
        if (client.id !== sim.clientId || client.secret !== sim.clientSecret) return json(res, 401, { error: 'invalid_client' });
        if (form.get('grant_type') !== 'refresh_token') return json(res, 400, { error: 'unsupported_grant_type' });
        if (!refreshTokens.has(form.get('refresh_token') ?? '')) return json(res, 400, { error: 'invalid_grant' });
        sim.calls.token++;
        const access = `at-${randomBytes(12).toString('hex')}`;
        accessTokens.add(access);
        sim.accessTokensIssued.push(access);
        let refresh = form.get('refresh_token')!;
        if (options.rotateRefreshToken) {
          refresh = `rt-${randomBytes(8).toString('hex')}`;
          refreshTokens = new Set([...refreshTokens, refresh]);
        }
        return json(res, 200, { access_token: access, token_type: 'Bearer', expires_in: options.accessTokenSeconds ?? 7_776_000, refresh_token: refresh });
      }
      const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
      if (!bearer || !accessTokens.has(bearer)) return json(res, 401, { error: 'invalid_token', error_description: 'Token invalid sau expirat' });
      sim.calls[kind]++;

      if (kind === 'upload') {
        if (req.method !== 'POST') return json(res, 405, { eroare: 'Metoda nepermisa' });
        const body = (await bodyOf(req)).toString('utf8');
        const standard = q.get('standard') ?? '';
        const cif = q.get('cif') ?? '';
        const refuse = (message: string) => xml(res, `<header xmlns="mfp:anaf:dgti:spv:respUploadFisier:v1" dateResponse="${anafDate(Date.now())}" ExecutionStatus="1"><Errors errorMessage="${esc(message)}"/></header>`);
        if (!['UBL', 'CN', 'CII', 'RASP'].includes(standard)) return refuse(`Valorile acceptate pentru parametrul standard sunt UBL, CN, CII sau RASP`);
        if (!/^\d{2,10}$/.test(cif)) return refuse(`CIF introdus= ${cif} nu este un numar`);
        if (body.length === 0) return refuse('Nu a fost transmis niciun fisier');
        const index = String(nextIndex++);
        sim.uploads.set(index, { index, cif, standard, extern: q.get('extern') === 'DA', xml: body, receivedAt: Date.now() });
        return xml(res, `<header xmlns="mfp:anaf:dgti:spv:respUploadFisier:v1" dateResponse="${anafDate(Date.now())}" ExecutionStatus="0" index_incarcare="${index}"/>`);
      }
      if (kind === 'status') {
        const u = sim.uploads.get(q.get('id_incarcare') ?? '');
        if (!u) return xml(res, `<header xmlns="mfp:anaf:dgti:efactura:stareMesajFactura:v1"><Errors errorMessage="Nu exista factura cu id_incarcare= ${esc(q.get('id_incarcare') ?? '')}"/></header>`);
        process(u);
        if (!u.state) return xml(res, '<header xmlns="mfp:anaf:dgti:efactura:stareMesajFactura:v1" stare="in prelucrare"/>');
        return xml(res, `<header xmlns="mfp:anaf:dgti:efactura:stareMesajFactura:v1" stare="${u.state}"${u.downloadId ? ` id_descarcare="${u.downloadId}"` : ''}/>`);
      }
      if (kind === 'download') {
        const id = q.get('id') ?? '';
        const d = downloads.get(id);
        if (!d) return json(res, 200, { eroare: `Pentru id=${id} nu exista inregistrata nici o factura`, titlu: 'Descarcare mesaj' });
        const zip = zipSync({ [d.name]: strToU8(d.content), [`semnatura_${d.name}`]: strToU8(signatureFor(d.name, d.content)) });
        return send(res, 200, 'application/zip', zip, { 'content-disposition': `attachment; filename="${id}.zip"` });
      }
      // list
      const cif = q.get('cif') ?? '';
      const start = Number(q.get('startTime'));
      const end = Number(q.get('endTime'));
      const page = Number(q.get('pagina') ?? '1');
      if (!/^\d{2,10}$/.test(cif) || !Number.isFinite(start) || !Number.isFinite(end) || !(page >= 1)) return json(res, 200, { eroare: 'Parametri invalizi (cif, startTime, endTime, pagina)', titlu: 'Lista Mesaje' });
      for (const u of sim.uploads.values()) process(u);
      const filter = q.get('filtru');
      const tipOf: Record<string, AnafMessage['tip']> = { T: 'FACTURA TRIMISA', P: 'FACTURA PRIMITA', E: 'ERORI FACTURA' };
      const mine = sim.messages.filter((m) => m.cif === cif && m.createdAt >= start - 60_000 && m.createdAt <= end + 60_000 && (!filter || m.tip === tipOf[filter]));
      if (mine.length === 0) return json(res, 200, { eroare: `Nu exista mesaje in intervalul selectat`, titlu: 'Lista Mesaje' });
      const pages = Math.ceil(mine.length / pageSize);
      const slice = mine.slice((page - 1) * pageSize, page * pageSize).map(({ createdAt: _c, ...m }) => m);
      return json(res, 200, { mesaje: slice, numar_inregistrari_in_pagina: slice.length, numar_total_inregistrari_per_pagina: pageSize, numar_total_inregistrari: mine.length, numar_total_pagini: pages, index_pagina_curenta: page, serial: 'einv-sim', cui: cif, titlu: 'Lista Mesaje' });
    })().catch((err: unknown) => json(res, 500, { eroare: (err as Error).message }));
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));
  return sim;
}
