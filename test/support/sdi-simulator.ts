/**
 * The Italian SDI as a real server on 127.0.0.1, for tests: its SdIRiceviFile endpoint takes a
 * FatturaPA (SOAP, base64 file), answers IdentificativoSdI and DataOraRicezione (or EI01 for an
 * empty file, EI02 while "unavailable"), then judges the file the way the SDI's checks do — not
 * valid against the FatturaPA 1.2.2 schema (libxmljs2): NS 00200; a file name already received:
 * NS 00002; a CodiceDestinatario it does not know: NS 00306; otherwise RC — and POSTs that
 * notification to the transmitter's TrasmissioneFatture endpoint, as the SDI would. The buyer's
 * answer (NE with EC01 / EC02), MC, DT and AT are posted on demand.
 *
 * It is written from the SDICoop WSDLs and MessaggiTypes on its own (it shares no code with the
 * connector), so a mistake in the connector's reading of the SDI's messages shows. Optional mutual
 * TLS: the server then requires a client certificate signed by the CA it is given.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import libxml from 'libxmljs2';
import { fatturaPaXsdErrors } from './fatturapa-xsd.ts';

const SOAP_NS = 'http://schemas.xmlsoap.org/soap/envelope/';
const TYPES_NS = 'http://www.fatturapa.gov.it/sdi/ws/trasmissione/v1.0/types';
const MESSAGES_NS = 'http://www.fatturapa.gov.it/sdi/messaggi/v1.0';
const FATTURAPA_NS = 'http://ivaservizi.agenziaentrate.gov.it/docs/xsd/fatture/v1.2';
/** The SDI's own limit on one file. */
const MAX_BODY_BYTES = 10 * 1024 * 1024;

const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);
const envelope = (body: string): string => `<?xml version="1.0" encoding="UTF-8"?><S:Envelope xmlns:S="${SOAP_NS}"><S:Body>${body}</S:Body></S:Envelope>`;

export type NotificationKind = 'RC' | 'NS' | 'MC' | 'NE' | 'DT' | 'AT';

/** A file the SDI took in, and what it made of it. */
export interface ReceivedFile {
  identificativoSdI: string;
  nomeFile: string;
  xml: string;
  codiceDestinatario: string | null;
  numero: string | null;
  verdict: { kind: 'RC' } | { kind: 'NS'; errors: Array<{ code: string; description: string }> };
}

/** A notification the SDI posted, and how the transmitter answered. */
export interface PostedNotification {
  kind: NotificationKind;
  identificativoSdI: string;
  xml: string;
  status: number;
  answer: string;
}

export interface SdiSimulator {
  /** The SdIRiceviFile endpoint. */
  url: string;
  received: ReceivedFile[];
  posted: PostedNotification[];
  /** Where notifications go (the connector's TrasmissioneFatture route). */
  notifyUrl: string | undefined;
  /** Headers added to each notification (the SDI's certificate as a TLS-terminating proxy forwards it: `x-client-cert`). */
  notifyHeaders: Record<string, string>;
  /** While true, RiceviFile answers EI02 (service unavailable). */
  unavailable: boolean;
  /** Posts the RC / NS of every file whose verdict has not been posted yet (with `autoNotify: false`). */
  notifyPending(): Promise<PostedNotification[]>;
  /** The buyer's answer through the SDI: NE with EC01 (accepted) or EC02 (refused). */
  esito(identificativoSdI: string, esito: 'EC01' | 'EC02', descrizione?: string): Promise<PostedNotification>;
  mancataConsegna(identificativoSdI: string): Promise<PostedNotification>;
  decorrenzaTermini(identificativoSdI: string): Promise<PostedNotification>;
  attestazione(identificativoSdI: string): Promise<PostedNotification>;
  stop(): Promise<void>;
}

export interface SdiSimulatorOptions {
  /** CodiceDestinatario values the SDI knows (0000000 and XXXXXXX are always accepted). */
  knownCodes: readonly string[];
  notifyUrl?: string;
  /** Post RC / NS by itself right after answering (default); false: the test calls notifyPending(). */
  autoNotify?: boolean;
  /** Mutual TLS: the server's certificate and key, and the CA its clients' certificates must chain to. */
  tls?: { certPem: string; keyPem: string; clientCaPem: string };
  /** First IdentificativoSdI handed out (then +1 each). */
  firstId?: number;
}

function text(el: libxml.Element | null | undefined): string | null {
  const t = el?.text().trim();
  return t ? t : null;
}

function child(el: libxml.Element | null | undefined, xpath: string, ns?: Record<string, string>): libxml.Element | null {
  if (!el) return null;
  return (ns ? el.get(xpath, ns) : el.get(xpath)) as libxml.Element | null;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) { reject(new Error('request too large')); req.destroy(); return; }
      chunks.push(c);
    }).on('end', () => resolve(Buffer.concat(chunks))).on('error', reject);
  });
}

export async function startSdiSimulator(options: SdiSimulatorOptions): Promise<SdiSimulator> {
  const known = new Set(['0000000', 'XXXXXXX', ...options.knownCodes]);
  let nextId = options.firstId ?? 7_000_000;
  const pending: ReceivedFile[] = [];
  const names = new Set<string>();

  const now = (): string => new Date().toISOString().replace('Z', '+00:00');

  /** The file's verdict: the SDI's checks in their order (format, file name, recipient). */
  function judge(nomeFile: string, xml: string): ReceivedFile['verdict'] & { code: string | null; numero: string | null } {
    const xsd = fatturaPaXsdErrors(xml);
    if (xsd.length) return { kind: 'NS', errors: [{ code: '00200', description: `File non conforme al formato: ${xsd[0]}` }], code: null, numero: null };
    const doc = libxml.parseXml(xml, { nonet: true, noent: false, dtdload: false });
    const ns = { p: FATTURAPA_NS };
    const code = text(child(doc.root(), 'FatturaElettronicaHeader/DatiTrasmissione/CodiceDestinatario', ns));
    const numero = text(child(doc.root(), 'FatturaElettronicaBody[1]/DatiGenerali/DatiGeneraliDocumento/Numero', ns));
    if (names.has(nomeFile)) return { kind: 'NS', errors: [{ code: '00002', description: `Nome file duplicato: ${nomeFile}` }], code, numero };
    if (!code || !known.has(code)) return { kind: 'NS', errors: [{ code: '00306', description: `CodiceDestinatario ${code ?? '(assente)'} sconosciuto` }], code, numero };
    return { kind: 'RC', code, numero };
  }

  function notificationXml(kind: NotificationKind, f: ReceivedFile, extra: { esito?: string; descrizione?: string } = {}): string {
    const root = { RC: 'RicevutaConsegna', NS: 'NotificaScarto', MC: 'NotificaMancataConsegna', NE: 'NotificaEsito', DT: 'NotificaDecorrenzaTermini', AT: 'AttestazioneTrasmissioneFattura' }[kind];
    const head = `<IdentificativoSdI>${f.identificativoSdI}</IdentificativoSdI><NomeFile>${esc(f.nomeFile)}</NomeFile>`;
    const messageId = `<MessageId>${nextId++}</MessageId>`;
    let body: string;
    switch (kind) {
      case 'RC':
        body = `${head}<Hash>00</Hash><DataOraRicezione>${now()}</DataOraRicezione><DataOraConsegna>${now()}</DataOraConsegna><Destinatario><Codice>${esc(f.codiceDestinatario ?? '')}</Codice><Descrizione>Destinatario di prova</Descrizione></Destinatario>${messageId}`;
        break;
      case 'NS': {
        const errors = f.verdict.kind === 'NS' ? f.verdict.errors : [];
        body = `${head}<Hash>00</Hash><DataOraRicezione>${now()}</DataOraRicezione><ListaErrori>${errors.map((e) => `<Errore><Codice>${e.code}</Codice><Descrizione>${esc(e.description.slice(0, 255))}</Descrizione></Errore>`).join('')}</ListaErrori>${messageId}`;
        break;
      }
      case 'NE':
        body = `${head}<EsitoCommittente><IdentificativoSdI>${f.identificativoSdI}</IdentificativoSdI><RiferimentoFattura><NumeroFattura>${esc(f.numero ?? '')}</NumeroFattura><AnnoFattura>2026</AnnoFattura></RiferimentoFattura><Esito>${extra.esito}</Esito>${extra.descrizione ? `<Descrizione>${esc(extra.descrizione)}</Descrizione>` : ''}<MessageIdCommittente>${nextId++}</MessageIdCommittente></EsitoCommittente>${messageId}`;
        break;
      case 'MC':
        body = `${head}<DataOraRicezione>${now()}</DataOraRicezione><Descrizione>Il canale del destinatario non ha accettato il file</Descrizione>${messageId}`;
        break;
      case 'DT':
        body = `${head}<Descrizione>Decorsi i termini senza esito del committente</Descrizione>${messageId}`;
        break;
      case 'AT':
        body = `${head}<DataOraRicezione>${now()}</DataOraRicezione><Destinatario><Codice>${esc(f.codiceDestinatario ?? '')}</Codice></Destinatario>${messageId}<Note>Impossibilità di recapito</Note>`;
        break;
    }
    return `<?xml version="1.0" encoding="UTF-8"?><types:${root} xmlns:types="${MESSAGES_NS}" versione="1.0">${body}</types:${root}>`;
  }

  const sim: SdiSimulator = {
    url: '',
    received: [],
    posted: [],
    notifyUrl: options.notifyUrl,
    notifyHeaders: {},
    unavailable: false,
    async notifyPending() {
      const out: PostedNotification[] = [];
      while (pending.length) {
        const f = pending.shift()!;
        out.push(await post(f.verdict.kind, f));
      }
      return out;
    },
    esito: (id, esito, descrizione) => post('NE', fileOf(id), { esito, ...(descrizione ? { descrizione } : {}) }),
    mancataConsegna: (id) => post('MC', fileOf(id)),
    decorrenzaTermini: (id) => post('DT', fileOf(id)),
    attestazione: (id) => post('AT', fileOf(id)),
    stop: () => new Promise<void>((resolve) => { server.closeAllConnections?.(); server.close(() => resolve()); }),
  };

  function fileOf(id: string): ReceivedFile {
    const f = sim.received.find((r) => r.identificativoSdI === id);
    if (!f) throw new Error(`the SDI simulator has no file ${id}`);
    return f;
  }

  /** POSTs one notification to the transmitter's TrasmissioneFatture endpoint, as the SDI does. */
  async function post(kind: NotificationKind, f: ReceivedFile, extra: { esito?: string; descrizione?: string } = {}): Promise<PostedNotification> {
    if (!sim.notifyUrl) throw new Error('the SDI simulator has no notifyUrl');
    const xml = notificationXml(kind, f, extra);
    const operation = { RC: 'ricevutaConsegna', NS: 'notificaScarto', MC: 'notificaMancataConsegna', NE: 'notificaEsito', DT: 'notificaDecorrenzaTermini', AT: 'attestazioneTrasmissioneFattura' }[kind];
    const soap = envelope(`<t:${operation} xmlns:t="${TYPES_NS}"><IdentificativoSdI>${f.identificativoSdI}</IdentificativoSdI><NomeFile>${esc(f.nomeFile.replace(/\.xml$/, ''))}_${kind}_001.xml</NomeFile><File>${Buffer.from(xml).toString('base64')}</File></t:${operation}>`);
    const res = await fetch(sim.notifyUrl, {
      method: 'POST',
      headers: { ...sim.notifyHeaders, 'content-type': 'text/xml; charset=utf-8', soapaction: `"http://www.fatturapa.it/TrasmissioneFatture/${operation.charAt(0).toUpperCase()}${operation.slice(1)}"` },
      body: soap,
    });
    const p: PostedNotification = { kind, identificativoSdI: f.identificativoSdI, xml, status: res.status, answer: await res.text() };
    sim.posted.push(p);
    return p;
  }

  async function riceviFile(body: Buffer, res: ServerResponse): Promise<void> {
    const answer = (status: number, payload: string): void => { res.writeHead(status, { 'content-type': 'text/xml; charset=utf-8' }).end(envelope(payload)); };
    let nomeFile: string | null;
    let file: Buffer;
    try {
      const doc = libxml.parseXml(body.toString('utf8'), { nonet: true, noent: false, dtdload: false });
      const req = child(doc.root(), '/S:Envelope/S:Body/t:fileSdIAccoglienza', { S: SOAP_NS, t: TYPES_NS });
      if (!req) throw new Error('no fileSdIAccoglienza in the SOAP Body');
      nomeFile = text(child(req, 'NomeFile'));
      file = Buffer.from(text(child(req, 'File')) ?? '', 'base64');
    } catch (err) {
      answer(500, `<S:Fault><faultcode>S:Client</faultcode><faultstring>${esc((err as Error).message)}</faultstring></S:Fault>`);
      return;
    }
    const risposta = (inner: string): void => answer(200, `<t:rispostaSdIRiceviFile xmlns:t="${TYPES_NS}">${inner}</t:rispostaSdIRiceviFile>`);
    if (sim.unavailable) return risposta('<Errore>EI02</Errore>');
    if (!nomeFile || file.length === 0) return risposta('<Errore>EI01</Errore>');
    const identificativoSdI = String(nextId++);
    const xml = file.toString('utf8');
    const verdict = judge(nomeFile, xml);
    const received: ReceivedFile = {
      identificativoSdI, nomeFile, xml, codiceDestinatario: verdict.code, numero: verdict.numero,
      verdict: verdict.kind === 'RC' ? { kind: 'RC' } : { kind: 'NS', errors: verdict.errors },
    };
    names.add(nomeFile);
    sim.received.push(received);
    pending.push(received);
    res.on('finish', () => {
      // As the SDI: the verdict follows the answer, never precedes it.
      if (options.autoNotify !== false && sim.notifyUrl) setTimeout(() => { void sim.notifyPending().catch(() => undefined); }, 20);
    });
    risposta(`<IdentificativoSdI>${identificativoSdI}</IdentificativoSdI><DataOraRicezione>${now()}</DataOraRicezione>`);
  }

  const handler = (req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      if (req.method !== 'POST') return res.writeHead(405).end();
      await riceviFile(await readBody(req), res);
    })().catch((err: Error) => { if (!res.headersSent) res.writeHead(500).end(err.message); });
  };
  const server: Server = options.tls
    ? createHttpsServer({ cert: options.tls.certPem, key: options.tls.keyPem, ca: options.tls.clientCaPem, requestCert: true, rejectUnauthorized: true }, handler)
    : createHttpServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  sim.url = `${options.tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}/SdIRiceviFile`;
  return sim;
}
