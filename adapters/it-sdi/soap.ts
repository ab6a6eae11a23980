/**
 * The SDICoop web services as bytes: the SOAP 1.1 request of SdIRiceviFile/RiceviFile (the invoice
 * file, base64, with its name), its answer (IdentificativoSdI and DataOraRicezione, or an Errore
 * EI01–EI03), and the one-way requests of TrasmissioneFatture through which the SDI posts its
 * notifications to the transmitter (a `fileSdI`: IdentificativoSdI, NomeFile and the notification
 * file, base64). Element names and namespaces are those of the published WSDLs
 * (SdIRiceviFile_v1.0, TrasmissioneFatture_v1.1; types in `…/trasmissione/v1.0/types`, whose
 * children are unqualified).
 *
 * Every XML from the network is read by the hardened reader of mappings/ (libxml2 without entities,
 * DTD or network, under the shape caps) after a size cap, and a DOCTYPE is refused outright.
 */
import { MappingError } from '../../mappings/errors.ts';
import { escapeXml } from '../../mappings/xml/writer.ts';
import { kid, readTree, txt, type XEl } from '../../mappings/xml/tree.ts';
import { parseMultipartRelated } from '../peppol-kit/as4/mime.ts';

export const SOAP_NS = 'http://schemas.xmlsoap.org/soap/envelope/';
/** Types of both SDICoop transmission services (SdIRiceviFile and TrasmissioneFatture). */
export const SDI_TYPES_NS = 'http://www.fatturapa.gov.it/sdi/ws/trasmissione/v1.0/types';
/** The notification files themselves (MessaggiTypes). */
export const SDI_MESSAGES_NS = 'http://www.fatturapa.gov.it/sdi/messaggi/v1.0';
export const RICEVI_FILE_ACTION = 'http://www.fatturapa.it/SdIRiceviFile/RiceviFile';

/** A SOAP exchange that cannot be read: the network sent something other than SDICoop. */
export class SdiProtocolError extends Error {
  override readonly name = 'SdiProtocolError';
}

/** Reads XML from the SDI: refused when over `maxBytes`, with a DOCTYPE, or not well formed. */
export function readSdiXml(bytes: Buffer | string, maxBytes: number, what: string): XEl {
  const length = typeof bytes === 'string' ? Buffer.byteLength(bytes) : bytes.length;
  if (length > maxBytes) throw new SdiProtocolError(`${what} is ${length} bytes, over the ${maxBytes} allowed`);
  const text = typeof bytes === 'string' ? bytes : bytes.toString('utf8');
  if (/<!DOCTYPE/i.test(text)) throw new SdiProtocolError(`${what} has a DOCTYPE, which is not allowed`);
  try {
    return readTree(text, what);
  } catch (err) {
    throw new SdiProtocolError(err instanceof MappingError ? err.message : `${what} cannot be read: ${(err as Error).message}`);
  }
}

/** The SOAP Body's first element (the operation's payload). */
export function soapPayload(envelope: XEl, what: string): XEl {
  if (envelope.name !== 'Envelope' || envelope.ns !== SOAP_NS) throw new SdiProtocolError(`${what} is not a SOAP 1.1 envelope (root {${envelope.ns}}${envelope.name})`);
  const payload = kid(envelope, 'Body')?.kids[0];
  if (!payload) throw new SdiProtocolError(`${what} has an empty SOAP Body`);
  return payload;
}

/** SOAP 1.1 envelope around a payload written as text. */
export function soapEnvelope(payload: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="${SOAP_NS}" xmlns:typ="${SDI_TYPES_NS}"><soapenv:Header/><soapenv:Body>${payload}</soapenv:Body></soapenv:Envelope>`;
}

/** A SOAP 1.1 Fault (`Client`: the request was wrong; `Server`: try again). */
export function soapFault(code: 'Client' | 'Server', message: string): string {
  return soapEnvelope(`<soapenv:Fault><faultcode>soapenv:${code}</faultcode><faultstring>${escapeXml(message)}</faultstring></soapenv:Fault>`);
}

/** The RiceviFile request: the file's name and its bytes, base64. */
export function riceviFileRequest(fileName: string, file: Buffer): string {
  return soapEnvelope(`<typ:fileSdIAccoglienza><NomeFile>${escapeXml(fileName)}</NomeFile><File>${file.toString('base64')}</File></typ:fileSdIAccoglienza>`);
}

/** The RiceviFile answer as the SDI writes it (the simulator's; the connector only reads it). */
export function riceviFileAnswer(answer: RiceviFileAnswer): string {
  const body = 'errore' in answer
    ? `<Errore>${escapeXml(answer.errore)}</Errore>`
    : `<IdentificativoSdI>${escapeXml(answer.identificativoSdI)}</IdentificativoSdI><DataOraRicezione>${escapeXml(answer.dataOraRicezione)}</DataOraRicezione>`;
  return soapEnvelope(`<typ:rispostaSdIRiceviFile>${body}</typ:rispostaSdIRiceviFile>`);
}

export type RiceviFileAnswer =
  | { identificativoSdI: string; dataOraRicezione: string }
  /** EI01 file empty, EI02 service unavailable, EI03 user not enabled. */
  | { errore: string };

/**
 * The SOAP part of a message: the body itself, or the root part of an MTOM (multipart/related)
 * message, whose binary elements are XOP references to the other parts (the SDI sends MTOM).
 */
export function soapParts(contentType: string | undefined, body: Buffer, maxBytes: number): { soap: Buffer; attachments: Map<string, Buffer> } {
  if (!contentType || !/^multipart\/related/i.test(contentType)) return { soap: body, attachments: new Map() };
  try {
    const { root, attachments } = parseMultipartRelated(contentType, body, { maxParts: 8, maxBytes });
    return { soap: root.body, attachments: new Map(attachments.filter((a) => a.contentId).map((a) => [a.contentId!, a.body])) };
  } catch (err) {
    throw new SdiProtocolError(`the SDI's multipart message cannot be read: ${(err as Error).message}`);
  }
}

/** A binary element's bytes: base64 text, or the MTOM part its xop:Include names. */
function binaryOf(el: XEl | undefined, attachments: Map<string, Buffer>, what: string): Buffer | undefined {
  if (!el) return undefined;
  const include = kid(el, 'Include');
  if (include) {
    const href = include.attrs.href ?? '';
    const part = attachments.get(decodeURIComponent(href.replace(/^cid:/, '')));
    if (!part) throw new SdiProtocolError(`${what}: the MTOM part ${href} is missing`);
    return part;
  }
  const encoded = el.text.replace(/\s+/g, '');
  if (!encoded) return undefined;
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(encoded)) throw new SdiProtocolError(`${what} is not base64`);
  return Buffer.from(encoded, 'base64');
}

/** Reads the RiceviFile answer; a SOAP Fault is an SdiProtocolError carrying its faultstring. */
export function readRiceviFileAnswer(body: Buffer, contentType: string | undefined, maxBytes: number): RiceviFileAnswer {
  const payload = soapPayload(readSdiXml(soapParts(contentType, body, maxBytes).soap, maxBytes, 'the RiceviFile answer'), 'the RiceviFile answer');
  if (payload.name === 'Fault') throw new SdiProtocolError(`the SDI answered a SOAP Fault: ${txt(payload, 'faultstring') ?? txt(payload, 'faultcode') ?? 'no reason given'}`);
  if (payload.name !== 'rispostaSdIRiceviFile') throw new SdiProtocolError(`the RiceviFile answer holds ${payload.name}, not rispostaSdIRiceviFile`);
  const errore = txt(payload, 'Errore');
  if (errore) return { errore };
  const identificativoSdI = txt(payload, 'IdentificativoSdI');
  if (!identificativoSdI) throw new SdiProtocolError('the RiceviFile answer has neither IdentificativoSdI nor Errore');
  return { identificativoSdI, dataOraRicezione: txt(payload, 'DataOraRicezione') ?? '' };
}

/** The six operations of TrasmissioneFatture, by the local name of their request element. */
export const NOTIFICATION_OPERATIONS: Readonly<Record<string, string>> = {
  ricevutaConsegna: 'RicevutaConsegna',
  notificaMancataConsegna: 'NotificaMancataConsegna',
  notificaScarto: 'NotificaScarto',
  notificaEsito: 'NotificaEsito',
  notificaDecorrenzaTermini: 'NotificaDecorrenzaTermini',
  attestazioneTrasmissioneFattura: 'AttestazioneTrasmissioneFattura',
};

/** One notification as TrasmissioneFatture carries it. */
export interface FileSdI {
  /** The operation (`RicevutaConsegna`, `NotificaScarto` …). */
  operation: string;
  identificativoSdI: string;
  nomeFile: string;
  /** The notification file (XML of the SDI's MessaggiTypes). */
  file: Buffer;
}

/** The TrasmissioneFatture request (the simulator's; the connector only reads it). */
export function fileSdIRequest(n: FileSdI): string {
  const element = Object.entries(NOTIFICATION_OPERATIONS).find(([, op]) => op === n.operation)?.[0] ?? n.operation;
  return soapEnvelope(`<typ:${element}><IdentificativoSdI>${escapeXml(n.identificativoSdI)}</IdentificativoSdI><NomeFile>${escapeXml(n.nomeFile)}</NomeFile><File>${n.file.toString('base64')}</File></typ:${element}>`);
}

/** Reads a TrasmissioneFatture request; the notification file is decoded and capped at `maxFileBytes`. */
export function readFileSdIRequest(body: Buffer, contentType: string | undefined, limits: { maxBytes: number; maxFileBytes: number }): FileSdI {
  const { soap, attachments } = soapParts(contentType, body, limits.maxBytes);
  const payload = soapPayload(readSdiXml(soap, limits.maxBytes, 'the notification request'), 'the notification request');
  const operation = NOTIFICATION_OPERATIONS[payload.name];
  if (!operation || payload.ns !== SDI_TYPES_NS) throw new SdiProtocolError(`{${payload.ns}}${payload.name} is not a TrasmissioneFatture operation`);
  const identificativoSdI = txt(payload, 'IdentificativoSdI');
  const nomeFile = txt(payload, 'NomeFile');
  const file = binaryOf(kid(payload, 'File'), attachments, `${operation}: File`);
  if (!identificativoSdI || !nomeFile || !file) throw new SdiProtocolError(`${operation} needs IdentificativoSdI, NomeFile and File`);
  if (file.length > limits.maxFileBytes) throw new SdiProtocolError(`${operation}: the notification file is over the ${limits.maxFileBytes} bytes allowed`);
  return { operation, identificativoSdI, nomeFile, file };
}

/** The empty answer of a one-way TrasmissioneFatture operation. */
export const NOTIFICATION_ACK = soapEnvelope('');
