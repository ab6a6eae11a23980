/**
 * Transmission to the SDI (SDICoop SdIRiceviFile/RiceviFile): the FatturaPA built from the
 * document's canonical form (or the caller's own FatturaPA, unchanged), named
 * `<transmitter>_<progressivo>.xml`, posted base64 in the SOAP body to the configured endpoint over
 * mutual TLS. The SDI's IdentificativoSdI is the message id every later notification carries; the
 * verdict (RC, NS …) comes later through the notification route, so a send is `accepted` and
 * `status` answers from the last notification heard (pending until one arrives).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  ConnectorError, type ConnectorHost, type HttpRequestOptions, type OutboundMessage, type SendResult, type StatusRequest, type StatusResult,
} from '../sdk/index.ts';
import type { CanonicalInvoice, FatturaPaOptions } from '../../mappings/index.ts';
import { MappingError } from '../../mappings/errors.ts';
import { at, txt } from '../../mappings/xml/tree.ts';
import { readRiceviFileAnswer, readSdiXml, riceviFileRequest, RICEVI_FILE_ACTION, SdiProtocolError } from './soap.ts';
import { lastNotification } from './state.ts';

/** RiceviFile errors the SDI may clear by itself (EI02: service unavailable); EI01 (empty file) and EI03 (not enabled) are final. */
const TRANSIENT_ERRORS = new Set(['EI02']);
const SCHEMES_WITH_SDI_CODE = new Set(['0201', '0205']);

/** The options a transmission states for the FatturaPA, from the configuration and the message. */
function transmissionOptions(msg: OutboundMessage, host: ConnectorHost, progressivo: string): FatturaPaOptions {
  const c = host.config;
  const options: FatturaPaOptions = { progressivoInvio: progressivo };
  if (c.transmitterId) {
    const id = String(c.transmitterId);
    options.transmitter = { country: id.slice(0, 2).toUpperCase(), code: id.slice(2) };
  }
  if (c.regimeFiscale) options.regimeFiscale = String(c.regimeFiscale);
  // The recipient as the sender named it (`0205:ABC1234`, `0201:UFY9MH`) wins over the invoice's own address.
  const [scheme, value] = (msg.recipient.peppolId ?? '').split(':', 2);
  if (scheme && value && SCHEMES_WITH_SDI_CODE.has(scheme)) options.codiceDestinatario = value;
  return options;
}

/**
 * ProgressivoInvio and the file name's sequence: 5 letters and digits drawn from the document id,
 * the same on every attempt, so a re-send after a lost answer is the SDI's duplicate (00002), never
 * a second invoice.
 */
export function progressivoOf(documentId: string): string {
  const n = BigInt(`0x${createHash('sha256').update(documentId).digest('hex').slice(0, 16)}`);
  return (n % 36n ** 5n).toString(36).toUpperCase().padStart(5, '0');
}

function isCanonical(n: Record<string, unknown> | undefined): n is Record<string, unknown> & CanonicalInvoice {
  return !!n && (n.kind === 'invoice' || n.kind === 'credit-note') && typeof n.number === 'string' && typeof n.seller === 'object' && Array.isArray(n.lines);
}

/** The FatturaPA file to send and the transmitter it is named after. */
function fatturaPaOf(msg: OutboundMessage, host: ConnectorHost, progressivo: string): { xml: string; transmitter: { country: string; code: string } } | { error: ErrorOf } {
  const { payload } = msg;
  const t = host.translators;
  // The caller's own FatturaPA travels as it is (the legal original).
  if (payload.xml && t.detectFatturaPa(payload.xml)) {
    return { xml: payload.xml, transmitter: transmitterOf(payload.xml, host) };
  }
  if (!isCanonical(payload.normalized)) {
    return { error: { errorCode: 'SDI_NO_INVOICE', errorMessage: 'it-sdi sends invoices and credit notes in FatturaPA: this document has neither a FatturaPA original nor a canonical invoice to build one from' } };
  }
  const options = transmissionOptions(msg, host, progressivo);
  try {
    const xml = t.canonicalToFatturaPa(payload.normalized, options);
    const vat = /^([A-Z]{2})(.+)$/.exec(payload.normalized.seller.vatId ?? '');
    return { xml, transmitter: options.transmitter ?? { country: vat![1]!, code: vat![2]! } };
  } catch (err) {
    if (!(err instanceof MappingError)) throw err;
    const where = err.details.map((d) => d.field).join(', ');
    return { error: { errorCode: err.code, errorMessage: `FatturaPA cannot be built: ${err.message}${where ? ` (${where})` : ''}` } };
  }
}

interface ErrorOf { errorCode: string; errorMessage: string }

/** IdTrasmittente of a FatturaPA the caller wrote (the file is named after it); the SDI judges the rest. */
function transmitterOf(xml: string, host: ConnectorHost): { country: string; code: string } {
  try {
    const id = at(readSdiXml(xml, Number(host.config.maxMessageBytes ?? 5 * 1024 * 1024), 'the FatturaPA'), 'FatturaElettronicaHeader', 'DatiTrasmissione', 'IdTrasmittente');
    const country = txt(id, 'IdPaese');
    const code = txt(id, 'IdCodice');
    if (country && code) return { country, code };
  } catch (err) {
    if (!(err instanceof SdiProtocolError)) throw err;
  }
  return { country: 'IT', code: '00000000000' };
}

/** Client certificate, key and the SDI's CA, from the configuration (files read once per host). */
const tlsByHost = new WeakMap<ConnectorHost, HttpRequestOptions['tls'] | null>();
export function tlsOf(host: ConnectorHost): HttpRequestOptions['tls'] | undefined {
  if (!tlsByHost.has(host)) {
    const c = host.config;
    const tls: NonNullable<HttpRequestOptions['tls']> = {};
    if (c.certificateFile) tls.cert = readFileSync(String(c.certificateFile), 'utf8');
    if (host.secrets.has('privateKey')) tls.key = host.secrets.get('privateKey');
    if (host.secrets.has('keyPassword')) tls.passphrase = host.secrets.get('keyPassword');
    if (c.caFile) tls.ca = readFileSync(String(c.caFile), 'utf8');
    tlsByHost.set(host, Object.keys(tls).length ? tls : null);
  }
  return tlsByHost.get(host) ?? undefined;
}

export async function sendToSdi(msg: OutboundMessage, host: ConnectorHost): Promise<SendResult> {
  const progressivo = progressivoOf(msg.documentId);
  const built = fatturaPaOf(msg, host, progressivo);
  if ('error' in built) return { outcome: 'rejected', ...built.error };
  const fileName = host.translators.fatturaPaFileName(built.transmitter, progressivo);
  const endpoint = String(host.config.endpoint);
  const maxBytes = Number(host.config.maxMessageBytes ?? 5 * 1024 * 1024);
  const tls = tlsOf(host);
  const res = await host.http.request(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: `"${RICEVI_FILE_ACTION}"` },
    body: riceviFileRequest(fileName, Buffer.from(built.xml, 'utf8')),
    timeoutMs: Number(host.config.sendTimeoutMs ?? 60_000),
    ...(tls ? { tls } : {}),
  });
  const contentType = res.headers['content-type'];
  let answer;
  try {
    answer = readRiceviFileAnswer(res.body, contentType, maxBytes);
  } catch (err) {
    if (!(err instanceof SdiProtocolError)) throw err;
    // A Fault or an unreadable answer is the service's trouble, not the invoice's: try again later.
    throw ConnectorError.transient(res.status >= 500 ? `SDI_HTTP_${res.status}` : 'SDI_BAD_ANSWER', `${endpoint} answered ${res.status}: ${err.message}`);
  }
  if ('errore' in answer) {
    const code = `SDI:${answer.errore}`;
    if (TRANSIENT_ERRORS.has(answer.errore)) return { outcome: 'transient', errorCode: code, errorMessage: `the SDI refused ${fileName} for now (${answer.errore}: service unavailable)` };
    return { outcome: 'rejected', errorCode: code, errorMessage: `the SDI refused ${fileName} (${answer.errore}${answer.errore === 'EI01' ? ': empty file' : answer.errore === 'EI03' ? ': transmitter not enabled' : ''})` };
  }
  host.log.info('FatturaPA handed to the SDI', { documentId: msg.documentId, fileName, identificativoSdI: answer.identificativoSdI, dataOraRicezione: answer.dataOraRicezione });
  return { outcome: 'accepted', messageId: answer.identificativoSdI, checkAfterMs: Number(host.config.statusCheckMs ?? 3_600_000) };
}

/** What the last notification heard for the id says; pending until one arrives. */
export async function statusAtSdi(req: StatusRequest, host: ConnectorHost): Promise<StatusResult> {
  const n = lastNotification(host, req.messageId);
  const pending: StatusResult = { outcome: 'pending', checkAfterMs: Number(host.config.statusCheckMs ?? 3_600_000) };
  if (!n) return pending;
  if (n.kind === 'NS') {
    const first = n.errori?.[0];
    return { outcome: 'rejected', errorCode: `SDI:${first?.codice ?? 'NS'}`, errorMessage: first?.descrizione ?? 'rejected by the SDI (notifica di scarto)' };
  }
  // RC, MC and AT: the invoice is issued; NE and DT come after one of them.
  return { outcome: 'delivered' };
}
