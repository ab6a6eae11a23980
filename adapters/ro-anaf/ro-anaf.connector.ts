/**
 * ro-anaf: Romania's RO e-Factura, ANAF's clearance system. An invoice of a Romanian seller is
 * uploaded as CIUS-RO UBL; ANAF validates it (XSD, EN 16931, CIUS-RO), registers it and signs it; the
 * ANAF-signed archive (the invoice and ANAF's signature) is then the legal original, which the buyer
 * downloads from ANAF in its turn. Incoming invoices of our companies are fetched the same way.
 *
 * Send (`send` + `status`, capability clearance, authority ANAF):
 * 1. the document as CIUS-RO 1.0.1 UBL: the caller's XML when it already declares CIUS-RO, else the
 *    canonical form rendered by `canonicalToCiusRoUbl` (counties, sectors, CUI; refused with the field
 *    named when it cannot be coded: `CIUS_RO_INVALID`);
 * 2. `POST upload?standard=UBL|CN&cif=<seller CUI>` (`&extern=DA` for a buyer outside Romania) →
 *    `index_incarcare`, the upload index: `accepted`, checked again after `statusCheckMs`;
 * 3. `GET stareMesaj?id_incarcare=` → `ok` + `id_descarcare`: the archive is fetched
 *    (`GET descarcare?id=`) and the send is `delivered` with the clearance (authorityId = the upload
 *    index, the archive as legal original, ANAF's signature as receipt); `nok`: the archive holds ANAF's
 *    errors → `rejected` `ANAF:<rule id>` (or `ANAF:NOK`); `XML cu erori nepreluat de sistem` →
 *    `rejected` `ANAF:XML_ERRORS`; `in prelucrare` → pending, until `maxProcessingMs` after the upload
 *    (then `rejected` `ANAF_TIMEOUT`). 429 and 5xx are transient / pending with ANAF's Retry-After.
 * No QR code: Romanian law asks none on an e-Factura invoice (the ANAF-signed XML is the invoice), so
 * the clearance carries no `qr`.
 *
 * Receive (capability pollReceive): every `pollIntervalMs`, for each CUI in `cifs` that is a company of
 * this platform, ANAF's list of received invoices (`listaMesajePaginatieFactura`, filter `P`, the last
 * `pollDays` days, at most `maxPages` pages) is read; each new one is downloaded, its UBL read with the
 * platform's translator and handed to `host.inbound.accept`; it counts as taken only once accepted.
 */
import { createHash } from 'node:crypto';
import {
  CONNECTOR_API_VERSION, ConnectorError, type Connector, type ConnectorHost, type OutboundMessage, type SendResult,
  type StatusRequest, type StatusResult, type Clearance, type DirectoryEntry,
} from '../sdk/index.ts';
import type { CanonicalInvoice } from '../../mappings/index.ts';
import { anafCall, apiBase, attr, errorMessages, isTransientStatus, jsonAnswer, retryAfterMs, ruleIdIn, xmlAnswer } from './anaf-api.ts';
import { AnafArchiveError, MAX_ARCHIVE_BYTES, readAnafArchive, type AnafArchive } from './anaf-zip.ts';

const CIUS_RO_MARK = 'urn:efactura.mfinante.ro:CIUS-RO:';
/** ANAF refuses files over 10 MB. */
const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;
/** Incoming message ids remembered per host and mode (ANAF's list repeats them for 60 days; accept() also dedupes). */
const MAX_REMEMBERED = 20_000;

interface HostState { taken: Set<string> }
const states = new WeakMap<ConnectorHost, HostState>();
const stateOf = (host: ConnectorHost): HostState => {
  let s = states.get(host);
  if (!s) { s = { taken: new Set() }; states.set(host, s); }
  return s;
};

const rejected = (errorCode: string, errorMessage: string): { outcome: 'rejected'; errorCode: string; errorMessage: string } => ({ outcome: 'rejected', errorCode, errorMessage });

/** The seller's CUI/CIF: the digits of its RO VAT number, else of its registration identifiers. */
export function sellerCif(c: CanonicalInvoice): string | undefined {
  const candidates = [c.seller.vatId, c.seller.legalRegistration?.value, c.seller.taxRegistrationId];
  for (const v of candidates) {
    const m = v ? /^(?:RO)?\s*(\d{2,10})$/i.exec(v.trim()) : null;
    if (m?.[1]) return m[1];
  }
  return undefined;
}

/** Upload index and upload time travel in the message id: `<index_incarcare>@<epoch ms>`. */
function messageIdOf(index: string, at: Date): string { return `${index}@${at.getTime()}`; }
function parseMessageId(id: string): { index: string; uploadedAt: number } | undefined {
  const m = /^(\d{1,20})@(\d{1,15})$/.exec(id);
  return m?.[1] && m[2] ? { index: m[1], uploadedAt: Number(m[2]) } : undefined;
}

/** What the connector uploads: the caller's CIUS-RO XML as is, else the canonical form as CIUS-RO UBL. */
function ciusRoXml(msg: OutboundMessage, host: ConnectorHost): { xml: string; canonical: CanonicalInvoice } | { error: string } {
  const canonical = msg.payload.normalized as unknown as CanonicalInvoice | undefined;
  if (!canonical?.seller) return { error: 'the document has no structured invoice to upload (send it as JSON, UBL or CII)' };
  if (msg.payload.xml && msg.payload.syntax === 'ubl-2.1' && msg.payload.xml.includes(CIUS_RO_MARK)) return { xml: msg.payload.xml, canonical };
  try {
    return { xml: host.translators.canonicalToCiusRoUbl(canonical), canonical };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

async function upload(msg: OutboundMessage, host: ConnectorHost): Promise<SendResult> {
  if (msg.type !== 'invoice' && msg.type !== 'credit-note') return rejected('ANAF_UNSUPPORTED_TYPE', `RO e-Factura takes invoices and credit notes, not ${msg.type}`);
  const built = ciusRoXml(msg, host);
  if ('error' in built) return rejected('CIUS_RO_INVALID', built.error);
  const { xml, canonical } = built;
  if (Buffer.byteLength(xml) > MAX_UPLOAD_BYTES) return rejected('ANAF_TOO_LARGE', `the invoice is over ${MAX_UPLOAD_BYTES} bytes, ANAF's limit`);
  const cif = sellerCif(canonical);
  if (!cif) return rejected('ANAF_NO_CIF', 'the seller has no Romanian CUI/CIF (an RO VAT number or a registration number) to upload under');
  const query = new URLSearchParams({ standard: canonical.kind === 'credit-note' ? 'CN' : 'UBL', cif });
  if (canonical.buyer.address?.country && canonical.buyer.address.country !== 'RO') query.set('extern', 'DA');
  const res = await anafCall(host, `${apiBase(host, msg.livemode)}/upload?${query}`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: xml });
  if (isTransientStatus(res.status)) return { outcome: 'transient', errorCode: `ANAF_HTTP_${res.status}`, errorMessage: `ANAF answered the upload with HTTP ${res.status}${res.status === 429 ? ` (limit reached; retry after ${retryAfterMs(res) / 1000} s)` : ''}` };
  if (res.status === 401 || res.status === 403) return { outcome: 'transient', errorCode: `ANAF_HTTP_${res.status}`, errorMessage: `ANAF refused the authorisation for CUI ${cif} (HTTP ${res.status}): the token's taxpayer must be allowed to act for it` };
  const header = xmlAnswer(res);
  const index = attr(header, 'index_incarcare');
  if (res.status === 200 && attr(header, 'ExecutionStatus') === '0' && index && /^\d+$/.test(index)) {
    host.log.info('ro-anaf: invoice uploaded', { documentId: msg.documentId, index, cif });
    return { outcome: 'accepted', messageId: messageIdOf(index, host.clock.now()), checkAfterMs: Number(host.config.statusCheckMs ?? 60_000) };
  }
  const errors = errorMessages(header);
  if (errors.length) return rejected(`ANAF:${ruleIdIn(errors) ?? 'UPLOAD'}`, errors.join('; '));
  const json = jsonAnswer<{ eroare?: string; message?: string }>(res);
  if (res.status >= 400 && (json?.eroare || json?.message)) return rejected(`ANAF:HTTP_${res.status}`, String(json.eroare ?? json.message));
  return { outcome: 'transient', errorCode: 'ANAF_BAD_ANSWER', errorMessage: `ANAF answered the upload with HTTP ${res.status} and no upload index` };
}

/** `descarcare`: the archive of a processed upload (or of a received invoice). */
async function download(host: ConnectorHost, livemode: boolean, id: string): Promise<{ zip: Buffer; archive: AnafArchive } | { transient: string; waitMs?: number } | { error: string }> {
  const res = await anafCall(host, `${apiBase(host, livemode)}/descarcare?id=${encodeURIComponent(id)}`, { method: 'GET', headers: { accept: 'application/zip, application/json' } });
  if (isTransientStatus(res.status)) return { transient: `ANAF answered the download of ${id} with HTTP ${res.status}`, waitMs: retryAfterMs(res) };
  const json = (res.headers['content-type'] ?? '').includes('json') ? jsonAnswer<{ eroare?: string }>(res) : undefined;
  if (res.status !== 200 || json) return { error: `ANAF refused the download of ${id} (HTTP ${res.status}${json?.eroare ? `: ${json.eroare}` : ''})` };
  if (res.body.length > MAX_ARCHIVE_BYTES) return { error: `ANAF's archive ${id} is over ${MAX_ARCHIVE_BYTES} bytes` };
  try {
    return { zip: res.body, archive: readAnafArchive(res.body) };
  } catch (err) {
    if (err instanceof AnafArchiveError) return { error: `ANAF's archive ${id}: ${err.message}` };
    throw err;
  }
}

async function checkStatus(req: StatusRequest, host: ConnectorHost): Promise<StatusResult> {
  const parsed = parseMessageId(req.messageId);
  if (!parsed) return rejected('ANAF_BAD_MESSAGE_ID', `${req.messageId} is not an upload index this connector gave`);
  const every = Number(host.config.statusCheckMs ?? 60_000);
  const res = await anafCall(host, `${apiBase(host, req.livemode)}/stareMesaj?id_incarcare=${parsed.index}`, { method: 'GET', headers: { accept: 'application/xml' } });
  const overdue = host.clock.now().getTime() - parsed.uploadedAt > Number(host.config.maxProcessingMs ?? 72 * 3_600_000);
  if (isTransientStatus(res.status)) {
    if (overdue) return rejected('ANAF_TIMEOUT', `ANAF still answered HTTP ${res.status} for upload ${parsed.index} after the processing time allowed`);
    return { outcome: 'pending', checkAfterMs: res.status === 429 ? Math.max(every, retryAfterMs(res)) : every };
  }
  const header = xmlAnswer(res);
  const state = attr(header, 'stare');
  const errors = errorMessages(header);
  if (state === 'in prelucrare') {
    if (overdue) return rejected('ANAF_TIMEOUT', `ANAF has not processed upload ${parsed.index} within ${Math.round(Number(host.config.maxProcessingMs ?? 72 * 3_600_000) / 60_000)} minutes`);
    return { outcome: 'pending', checkAfterMs: every };
  }
  if (state === 'XML cu erori nepreluat de sistem') return rejected('ANAF:XML_ERRORS', `ANAF did not take upload ${parsed.index} in: the XML has errors${errors.length ? ` (${errors.join('; ')})` : ''}`);
  const downloadId = attr(header, 'id_descarcare');
  if ((state === 'ok' || state === 'nok') && downloadId) {
    const got = await download(host, req.livemode, downloadId);
    if ('transient' in got) return { outcome: 'pending', checkAfterMs: Math.max(every, got.waitMs ?? every) };
    if ('error' in got) return state === 'nok' ? rejected('ANAF:NOK', `ANAF refused upload ${parsed.index}; ${got.error}`) : { outcome: 'pending', checkAfterMs: every };
    if (state === 'nok') {
      const messages = errorMessages(errorHeaderOf(got.archive));
      return rejected(`ANAF:${ruleIdIn(messages) ?? 'NOK'}`, messages.length ? messages.join('; ') : `ANAF refused upload ${parsed.index}`);
    }
    return { outcome: 'delivered', clearance: clearanceOf(host, parsed.index, downloadId, got.zip, got.archive) };
  }
  if (errors.length) return rejected(`ANAF:${ruleIdIn(errors) ?? 'STATUS'}`, errors.join('; '));
  return { outcome: 'pending', checkAfterMs: every };
}

/** ANAF's error message file of a refused upload (`mesajEroriFactuta`), read like its other XML answers. */
function errorHeaderOf(archive: AnafArchive) {
  return xmlAnswer({ status: 200, headers: {}, body: archive.document.bytes, text: () => archive.document.bytes.toString('utf8') });
}

function clearanceOf(host: ConnectorHost, index: string, downloadId: string, zip: Buffer, archive: AnafArchive): Clearance {
  return {
    status: 'cleared',
    authorityId: index,
    at: host.clock.now().toISOString(),
    legalOriginal: { content: zip.toString('base64'), contentType: 'application/zip', filename: `${index}.zip` },
    receipt: { content: archive.signature.bytes.toString('base64'), contentType: 'application/xml', filename: archive.signature.name },
    details: {
      index_incarcare: index,
      id_descarcare: downloadId,
      invoiceFile: archive.document.name,
      invoiceSha256: createHash('sha256').update(archive.document.bytes).digest('hex'),
    },
  };
}

interface ListedMessage { id?: string; tip?: string; id_solicitare?: string; cif?: string; detalii?: string; data_creare?: string }
interface MessagePage { mesaje?: ListedMessage[]; eroare?: string; numar_total_pagini?: number; index_pagina_curenta?: number }

/** Reads one CUI's received invoices (bounded pages) and hands each new one over. */
async function pollCif(host: ConnectorHost, livemode: boolean, cif: string, entry: DirectoryEntry): Promise<void> {
  const { taken } = stateOf(host);
  const end = host.clock.now().getTime();
  const start = end - Number(host.config.pollDays ?? 60) * 86_400_000;
  const maxPages = Math.max(1, Number(host.config.maxPages ?? 5));
  for (let page = 1; page <= maxPages; page++) {
    const query = new URLSearchParams({ startTime: String(start), endTime: String(end), cif, pagina: String(page), filtru: 'P' });
    const res = await anafCall(host, `${apiBase(host, livemode)}/listaMesajePaginatieFactura?${query}`, { method: 'GET', headers: { accept: 'application/json' } });
    if (res.status !== 200) { host.log.warn('ro-anaf: ANAF did not list the received invoices', { cif, page, status: res.status }); return; }
    const body = jsonAnswer<MessagePage>(res);
    if (!body) { host.log.warn('ro-anaf: the message list is not JSON', { cif, page }); return; }
    for (const m of body.mesaje ?? []) {
      if (m.tip !== 'FACTURA PRIMITA' || !m.id || !/^\d{1,20}$/.test(m.id)) continue;
      const key = `${livemode}:${m.id}`;
      if (taken.has(key)) continue;
      if (await receiveOne(host, livemode, m, entry)) {
        taken.add(key);
        if (taken.size > MAX_REMEMBERED) taken.delete(taken.values().next().value!);
      }
    }
    if (!body.numar_total_pagini || page >= body.numar_total_pagini) return;
  }
}

async function receiveOne(host: ConnectorHost, livemode: boolean, m: ListedMessage, entry: DirectoryEntry): Promise<boolean> {
  const got = await download(host, livemode, m.id!);
  if ('transient' in got) { host.log.warn('ro-anaf: received invoice not downloaded yet', { id: m.id, reason: got.transient }); return false; }
  if ('error' in got) { host.log.warn('ro-anaf: received invoice cannot be read', { id: m.id, reason: got.error }); return false; }
  const { bytes } = got.archive.document;
  let canonical: CanonicalInvoice;
  try {
    canonical = host.translators.ublToCanonical(bytes).canonical;
  } catch (err) {
    host.log.warn('ro-anaf: received invoice is not a UBL invoice', { id: m.id, reason: (err as Error).message });
    return false;
  }
  const sellerVat = canonical.seller.vatId;
  const messageId = `anaf:${m.id}`;
  const { duplicate } = await host.inbound.accept({
    messageId,
    livemode,
    type: canonical.kind === 'credit-note' ? 'credit-note' : 'invoice',
    number: canonical.number ?? null,
    sender: { peppolId: sellerVat && /^RO\d{2,10}$/.test(sellerVat) ? `9947:${sellerVat}` : null, name: canonical.seller.name ?? null },
    recipient: { peppolId: entry.peppolId, organizationId: entry.organizationId, companyId: entry.companyId, name: entry.name },
    payload: { content: bytes.toString('base64'), contentType: 'application/xml', filename: got.archive.document.name, xml: bytes.toString('utf8'), syntax: 'ubl-2.1', normalized: canonical as unknown as Record<string, unknown> },
    evidence: {
      messageId,
      exchangedAt: host.clock.now().toISOString(),
      payloadSha256: createHash('sha256').update(bytes).digest('hex'),
      receipt: got.archive.signature.bytes.toString('base64'),
      details: { id_descarcare: m.id!, ...(m.id_solicitare ? { index_incarcare: m.id_solicitare } : {}), ...(m.detalii ? { detalii: m.detalii.slice(0, 500) } : {}) },
    },
  });
  host.log.info('ro-anaf: received invoice taken in', { id: m.id, duplicate });
  return true;
}

async function pollInbox(host: ConnectorHost): Promise<void> {
  const cifs = String(host.config.cifs ?? '').split(/[\s,;]+/).map((c) => c.replace(/^RO/i, '')).filter((c) => /^\d{2,10}$/.test(c));
  for (const livemode of [false, true]) {
    for (const cif of cifs) {
      const entry = await host.directory.lookup({ peppolId: `9947:RO${cif}`, country: 'RO' }, livemode);
      if (!entry) continue;
      try {
        await pollCif(host, livemode, cif, entry);
      } catch (err) {
        host.log.warn('ro-anaf: polling ANAF failed', { cif, livemode, reason: (err as Error).message });
      }
    }
  }
}

const roAnaf = {
  manifest: {
    id: 'ro-anaf',
    version: '1.0.0',
    apiVersion: CONNECTOR_API_VERSION,
    name: 'Romania RO e-Factura (ANAF)',
    description: 'Clears invoices of Romanian sellers with ANAF (CIUS-RO UBL upload, status, ANAF-signed archive as legal original) and fetches the invoices our Romanian companies receive',
    modes: ['live', 'test'],
    countries: ['RO'],
    documentTypes: ['invoice', 'credit-note'],
    capabilities: { send: true, pushReceive: false, pollReceive: true, status: true, report: false, discover: false, clearance: true },
    authority: 'ANAF',
    options: {
      baseUrl: { type: 'string', description: 'ANAF e-Factura API for live keys', default: 'https://api.anaf.ro/prod/FCTEL/rest' },
      testBaseUrl: { type: 'string', description: 'ANAF e-Factura API for test keys (ANAF\'s test system)', default: 'https://api.anaf.ro/test/FCTEL/rest' },
      tokenUrl: { type: 'string', description: 'ANAF OAuth2 token endpoint', default: 'https://logincert.anaf.ro/anaf-oauth2/v1/token' },
      clientId: { type: 'string', description: 'Client id of the application registered with ANAF', required: true },
      clientSecret: { type: 'string', description: 'Client secret of the application registered with ANAF', required: true, secret: true },
      refreshToken: { type: 'string', description: 'Refresh token of the taxpayer\'s authorisation (authorization-code flow, done once with the qualified certificate)', required: true, secret: true },
      cifs: { type: 'string', description: 'CUIs (comma separated) whose received invoices are fetched; empty: none', default: '' },
      pollIntervalMs: { type: 'number', description: 'How often received invoices are fetched', default: 300000 },
      pollDays: { type: 'number', description: 'How many days back the list of received invoices is read (ANAF keeps 60)', default: 60 },
      maxPages: { type: 'number', description: 'Pages of the received-invoice list read per CUI and poll', default: 5 },
      statusCheckMs: { type: 'number', description: 'Pause between two status checks of an upload', default: 60000 },
      maxProcessingMs: { type: 'number', description: 'How long an upload may stay in processing before it counts as failed (ANAF_TIMEOUT)', default: 259200000 },
      timeoutMs: { type: 'number', description: 'Time allowed for one ANAF answer', default: 30000 },
    },
  },

  async start(host: ConnectorHost): Promise<void> {
    if (!String(host.config.cifs ?? '').trim()) return;
    host.scheduler.every(Number(host.config.pollIntervalMs ?? 300_000), () => pollInbox(host));
  },

  /** The process's memory of taken messages goes with it (ANAF's list and accept()'s dedupe cover a restart). */
  async stop(host: ConnectorHost): Promise<void> {
    states.delete(host);
  },

  async send(msg: OutboundMessage, host: ConnectorHost): Promise<SendResult> {
    try {
      return await upload(msg, host);
    } catch (err) {
      if (err instanceof ConnectorError && err.kind === 'permanent') return rejected(err.code, err.message);
      return { outcome: 'transient', errorCode: err instanceof ConnectorError ? err.code : 'ANAF_UNREACHABLE', errorMessage: (err as Error).message };
    }
  },

  async status(req: StatusRequest, host: ConnectorHost): Promise<StatusResult> {
    return checkStatus(req, host);
  },
} satisfies Connector;

export default roAnaf;
