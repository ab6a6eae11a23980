/**
 * pl-ksef: clears Polish invoices with KSeF 2.0, the Ministry of Finance's national e-invoicing
 * system, and fetches the invoices KSeF holds for our company as buyer.
 *
 * Send (capability clearance): the canonical invoice becomes FA(3) (mappings/ksef-fa3); an
 * interactive session is opened with a fresh AES-256 key encrypted for the Ministry, the invoice goes
 * encrypted with its hashes and sizes, the session is closed — or, with `batchWindowMs`, the
 * invoices of a window go together in a batch session (batch.ts). KSeF verifies asynchronously, so send
 * answers `accepted` and `status` reads the invoice's processing code: 100/150 pending, 200 cleared
 * (the KSeF number is the authority id, the UPO the receipt, the KOD I link the QR), 4xx/5xx rejected
 * with KSeF's code (`KSEF:450` a document KSeF's schema or semantics refuse, `KSEF:410` a seller
 * outside the authenticated NIP's rights, `KSEF:440` a duplicate …). An invoice still pending after
 * `maxPendingMs` is rejected with `KSEF_TIMEOUT`. README.md has the whole contract.
 *
 * Receive (capability pollReceive): every `inboxPollMs`, the metadata of invoices where our NIP is
 * the buyer (Subject2) stored since the last high-water mark, page by page (bounded), each downloaded
 * by its KSeF number and handed to `host.inbound.accept`; the mark moves only past invoices accepted.
 */
import { X509Certificate, createHash, createPrivateKey } from 'node:crypto';
import {
  CONNECTOR_API_VERSION, ConnectorError, type Connector, type ConnectorHealth, type ConnectorHost, type OutboundMessage, type SendResult, type StatusRequest, type StatusResult,
} from '../sdk/index.ts';
import { authMethodOf, authorised, baseUrl, contextNip, environmentOf, exceptionOf, failure, forgetTokens, jsonOf, ministryKeys, qrBaseUrl, retryAfterMs } from './client.ts';
import { encryptInvoice, kodIUrl, ministryKeyOf, newSessionKey, rsaOaepEncrypt, sha256Base64 } from './crypto.ts';
import { enqueue } from './batch.ts';
import type { Outcome } from './documents.ts';
import { pollInbox } from './inbox.ts';

/** Largest FA(3) file we submit: KSeF's interactive limit is 1 MB without attachments (limity.md). */
const MAX_INVOICE_BYTES = 1_000_000;

/** Where the document work runs (host.workers): FA(3) out, FA(3) in. */
const DOCUMENTS = new URL('./documents.ts', import.meta.url).href;

/** The canonical EN 16931 invoice, as the platform's translators take it. */
type CanonicalInvoiceLike = Parameters<ConnectorHost['translators']['canonicalToFa3']>[0];

/** The invoice part of a batch message id: the file's name in the archive, not yet a KSeF reference. */
const BATCH_FILE = 'file:';

/** What a message id carries, so `status` needs no state of ours: `{session}/{invoice}/{P_1}/{submitted at, ms}`. */
interface Submission { session: string; invoice: string; issueDate: string; submittedAt: number }

function messageIdOf(s: Submission): string {
  return [s.session, s.invoice, s.issueDate, String(s.submittedAt)].join('/');
}

function submissionOf(messageId: string): Submission | undefined {
  const [session, invoice, issueDate, at] = messageId.split('/');
  if (!session || !invoice || !issueDate || !/^\d{4}-\d{2}-\d{2}$/.test(issueDate) || !/^\d+$/.test(at ?? '')) return undefined;
  return { session, invoice, issueDate, submittedAt: Number(at) };
}

const rejected = (errorCode: string, errorMessage: string) => ({ outcome: 'rejected' as const, errorCode, errorMessage });

/** Corrected invoices looked up in KSeF at most, per correction. */
const MAX_CORRECTED_LOOKUPS = 20;

/**
 * The KSeF numbers of the invoices a correction corrects (BG-3), as KSeF's records give them: the
 * seller's own invoices (`Subject1`) with that number issued that day. One KSeF does not know was
 * issued outside it (`NrKSeFN`). A query KSeF does not answer is transient: better later than a
 * correction naming the wrong kind of original.
 */
async function correctedKsefNumbers(invoice: CanonicalInvoiceLike, host: ConnectorHost): Promise<Record<string, string>> {
  const found: Record<string, string> = {};
  for (const p of (invoice.precedingInvoices ?? []).slice(0, MAX_CORRECTED_LOOKUPS)) {
    if (!p.issueDate || !/^\d{4}-\d{2}-\d{2}$/.test(p.issueDate) || found[p.number]) continue;
    const res = await authorised(host, 'POST', '/invoices/query/metadata?sortOrder=Asc&pageOffset=0&pageSize=10', {
      json: { subjectType: 'Subject1', invoiceNumber: p.number, dateRange: { dateType: 'Issue', from: `${p.issueDate}T00:00:00Z`, to: `${p.issueDate}T23:59:59Z` } },
    });
    if (res.status !== 200) throw failure(res, `the search for corrected invoice ${p.number}`);
    const match = jsonOf<{ invoices?: Array<{ ksefNumber?: string; invoiceNumber?: string }> }>(res)?.invoices?.find((i) => i.invoiceNumber === p.number && i.ksefNumber);
    if (match?.ksefNumber) found[p.number] = match.ksefNumber;
  }
  return found;
}

/**
 * On a re-send (attempt > 1), the invoice KSeF may already hold: an earlier attempt can have been
 * taken by KSeF while its answer was lost, and sending again would only earn a 440 duplicate. The
 * seller's invoice of that number, kind and issue date in KSeF's records is that earlier attempt:
 * the platform never lets one seller's number carry two live invoices.
 */
async function heldByKsef(invoice: CanonicalInvoiceLike, host: ConnectorHost): Promise<SendResult | undefined> {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(invoice.issueDate)) return undefined;
  const res = await authorised(host, 'POST', '/invoices/query/metadata?sortOrder=Asc&pageOffset=0&pageSize=10', {
    json: { subjectType: 'Subject1', invoiceNumber: invoice.number, dateRange: { dateType: 'Issue', from: `${invoice.issueDate}T00:00:00Z`, to: `${invoice.issueDate}T23:59:59Z` } },
  });
  if (res.status !== 200) throw failure(res, `the search for invoice ${invoice.number}`);
  const correction = invoice.kind === 'credit-note' || invoice.typeCode === '381' || invoice.typeCode === '384';
  const held = jsonOf<{ invoices?: Array<{ ksefNumber?: string; invoiceNumber?: string; invoiceType?: string; invoiceHash?: string; acquisitionDate?: string }> }>(res)?.invoices
    ?.find((i) => i.invoiceNumber === invoice.number && i.ksefNumber && i.invoiceHash && /^Kor/i.test(i.invoiceType ?? '') === correction);
  if (!held?.ksefNumber || !held.invoiceHash) return undefined;
  host.log.info('pl-ksef: a re-sent invoice is already in KSeF; not sent again', { number: invoice.number, ksefNumber: held.ksefNumber });
  return {
    outcome: 'delivered',
    messageId: held.ksefNumber,
    clearance: {
      status: 'cleared', authorityId: held.ksefNumber, at: held.acquisitionDate ?? host.clock.now().toISOString(),
      qr: kodIUrl(qrBaseUrl(host), held.ksefNumber.slice(0, 10), invoice.issueDate, held.invoiceHash),
      details: { invoiceHash: held.invoiceHash, environment: environmentOf(host), foundOnResend: 'true' },
    },
  };
}

/** The FA(3) XML of the message's invoice, or why it cannot be one. */
async function fa3Of(msg: OutboundMessage, host: ConnectorHost): Promise<{ xml: string; invoice: CanonicalInvoiceLike } | { error: SendResult }> {
  if (msg.type !== 'invoice' && msg.type !== 'credit-note') {
    return { error: rejected('KSEF_UNSUPPORTED_TYPE', `KSeF clears invoices and corrections (faktury korygujące), not ${msg.type} documents`) };
  }
  const invoice = msg.payload.normalized as CanonicalInvoiceLike | undefined;
  if (!invoice?.seller || !invoice.lines) {
    return { error: rejected('KSEF_NOT_STRUCTURED', 'KSeF takes structured invoices (FA(3)); this document has no structured invoice to map (send it as JSON, UBL or CII)') };
  }
  const corrected = invoice.precedingInvoices?.length && (invoice.kind === 'credit-note' || invoice.typeCode === '381' || invoice.typeCode === '384')
    ? await correctedKsefNumbers(invoice, host) : {};
  const options = { createdAt: host.clock.now().toISOString().replace(/\.\d{3}Z$/, 'Z'), systemInfo: 'einvoicing exchange (pl-ksef)', correctedKsefNumbers: corrected };
  const built = await host.workers.run<Outcome<{ xml: string }>>(DOCUMENTS, 'fa3Of', [invoice, options], 2000 * invoice.lines.length);
  if (built.ok) return { xml: built.xml, invoice };
  if (built.code === 'KSEF_MAPPING_FAILED') throw ConnectorError.transient(built.code, built.message);
  const where = built.details.map((d) => `${d.field}: ${d.message}`).join('; ');
  return { error: rejected('KSEF_MAPPING', `the invoice cannot be expressed as a valid FA(3) document: ${where || built.message}`) };
}

async function submit(msg: OutboundMessage, host: ConnectorHost): Promise<SendResult> {
  const env = environmentOf(host);
  if (msg.livemode !== (env === 'prod')) {
    return rejected('KSEF_WRONG_ENVIRONMENT', `a ${msg.livemode ? 'live' : 'test'} invoice is not sent to KSeF's ${env} environment (${msg.livemode ? 'use a test key' : 'live keys clear with production'})`);
  }
  const built = await fa3Of(msg, host);
  if ('error' in built) return built.error;
  const plain = Buffer.from(built.xml, 'utf8');
  if (plain.length > MAX_INVOICE_BYTES) return rejected('KSEF_TOO_LARGE', `the FA(3) file is ${plain.length} bytes; KSeF's interactive session takes at most ${MAX_INVOICE_BYTES}`);
  if (msg.attempt > 1) {
    const held = await heldByKsef(built.invoice, host);
    if (held) return held;
  }

  if (Number(host.config.batchWindowMs ?? 0) > 0) {
    // Batch: the file travels in the window's archive; its name there is what the status looks for.
    const fileName = `${msg.documentId.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 90)}.xml`;
    const sessionRef = await enqueue(host, { fileName, xml: plain }, host.translators.FA3_FORM_CODE);
    const submittedAt = host.clock.now().getTime();
    return { outcome: 'accepted', messageId: messageIdOf({ session: sessionRef, invoice: `${BATCH_FILE}${fileName}`, issueDate: built.invoice.issueDate, submittedAt }), checkAfterMs: checkAfterMs(host) };
  }

  const keys = await ministryKeys(host);
  const session = newSessionKey();
  const open = await authorised(host, 'POST', '/sessions/online', {
    json: {
      formCode: host.translators.FA3_FORM_CODE,
      encryption: { encryptedSymmetricKey: rsaOaepEncrypt(keys.symmetric, session.key).toString('base64'), initializationVector: session.iv.toString('base64') },
    },
  });
  if (open.status !== 201 && open.status !== 200) throw failure(open, 'the opening of an interactive session');
  const sessionRef = jsonOf<{ referenceNumber?: string }>(open)?.referenceNumber;
  if (!sessionRef) throw ConnectorError.transient('KSEF_BAD_ANSWER', 'KSeF opened a session without a reference number');

  try {
    const encrypted = encryptInvoice(session, plain);
    const sent = await authorised(host, 'POST', `/sessions/online/${encodeURIComponent(sessionRef)}/invoices`, {
      json: {
        invoiceHash: sha256Base64(plain), invoiceSize: plain.length,
        encryptedInvoiceHash: sha256Base64(encrypted), encryptedInvoiceSize: encrypted.length,
        encryptedInvoiceContent: encrypted.toString('base64'),
      },
    });
    if (sent.status !== 202 && sent.status !== 200) throw failure(sent, 'the invoice');
    const invoiceRef = jsonOf<{ referenceNumber?: string }>(sent)?.referenceNumber;
    if (!invoiceRef) throw ConnectorError.transient('KSEF_BAD_ANSWER', 'KSeF took the invoice without a reference number');
    host.log.info('pl-ksef: invoice submitted', { documentId: msg.documentId, session: sessionRef, invoice: invoiceRef });
    const submittedAt = host.clock.now().getTime();
    return { outcome: 'accepted', messageId: messageIdOf({ session: sessionRef, invoice: invoiceRef, issueDate: built.invoice.issueDate, submittedAt }), checkAfterMs: checkAfterMs(host) };
  } finally {
    // Closing starts the session's collective UPO; the invoice's own processing goes on.
    await authorised(host, 'POST', `/sessions/online/${encodeURIComponent(sessionRef)}/close`).catch((err: unknown) => {
      host.log.warn('pl-ksef: the session could not be closed (KSeF closes it when it expires)', { session: sessionRef, error: (err as Error).message });
    });
  }
}

function checkAfterMs(host: ConnectorHost): number {
  return Math.max(100, Number(host.config.statusPollMs ?? 2000));
}

interface InvoiceStatus {
  referenceNumber?: string;
  invoiceFileName?: string;
  ksefNumber?: string;
  invoiceHash?: string;
  acquisitionDate?: string;
  invoicingDate?: string;
  status?: { code?: number; description?: string; details?: string[]; extensions?: Record<string, string | null> };
}

async function follow(req: StatusRequest, host: ConnectorHost): Promise<StatusResult> {
  const s = submissionOf(req.messageId);
  if (!s) return rejected('KSEF_UNKNOWN_MESSAGE', `${req.messageId} is not a KSeF submission of this connector`);
  const pending = (ms = checkAfterMs(host)): StatusResult => {
    const waited = host.clock.now().getTime() - s.submittedAt;
    const limit = Number(host.config.maxPendingMs ?? 3_600_000);
    if (waited > limit) return rejected('KSEF_TIMEOUT', `KSeF had not processed invoice ${s.invoice} (session ${s.session}) ${Math.round(waited / 1000)} s after it was sent`);
    return { outcome: 'pending', checkAfterMs: ms };
  };

  const batchFile = s.invoice.startsWith(BATCH_FILE) ? s.invoice.slice(BATCH_FILE.length) : undefined;
  // Interactive: the invoice's own status; batch: the session's list, by the file's name in the archive.
  const res = batchFile
    ? await authorised(host, 'GET', `/sessions/${encodeURIComponent(s.session)}/invoices?pageSize=1000`)
    : await authorised(host, 'GET', `/sessions/${encodeURIComponent(s.session)}/invoices/${encodeURIComponent(s.invoice)}`);
  if (res.status === 429) return pending(retryAfterMs(res));
  if (res.status !== 200) {
    const ex = res.status >= 400 && res.status < 500 && res.status !== 401 && res.status !== 403 ? exceptionOf(res) : undefined;
    if (ex) return rejected(`KSEF:${ex.code}`, `KSeF: ${ex.message || ex.code}`);
    return pending();
  }
  const body = batchFile
    ? jsonOf<{ invoices?: InvoiceStatus[] }>(res)?.invoices?.find((i) => i.invoiceFileName === batchFile)
    : jsonOf<InvoiceStatus>(res);
  const code = body?.status?.code;
  if (code === undefined) return pending();
  if (code === 100 || code === 150) return pending();
  if (code !== 200) {
    const ext = body?.status?.extensions ?? {};
    const original = ext.originalKsefNumber ? ` (KSeF number ${ext.originalKsefNumber})` : '';
    return rejected(`KSEF:${code}`, `${[body?.status?.description, ...(body?.status?.details ?? [])].filter(Boolean).join(': ') || `processing code ${code}`}${original}`);
  }
  if (!body?.ksefNumber || !body.invoiceHash) return pending();

  // The UPO (urzędowe poświadczenie odbioru), KSeF's official receipt of this invoice.
  const invoiceRef = batchFile ? body.referenceNumber : s.invoice;
  if (!invoiceRef) return pending();
  const upo = await authorised(host, 'GET', `/sessions/${encodeURIComponent(s.session)}/invoices/${encodeURIComponent(invoiceRef)}/upo`, { accept: 'application/xml' });
  if (upo.status === 429) return pending(retryAfterMs(upo));
  if (upo.status !== 200) return pending();
  const sellerNip = body.ksefNumber.slice(0, 10);
  return {
    outcome: 'delivered',
    clearance: {
      status: 'cleared',
      authorityId: body.ksefNumber,
      at: body.acquisitionDate ?? body.invoicingDate ?? host.clock.now().toISOString(),
      receipt: { content: upo.body.toString('base64'), contentType: 'application/xml', filename: `UPO_${body.ksefNumber}.xml` },
      qr: kodIUrl(qrBaseUrl(host), sellerNip, s.issueDate, body.invoiceHash),
      details: {
        sessionReferenceNumber: s.session,
        invoiceReferenceNumber: invoiceRef,
        ...(batchFile ? { batchFileName: batchFile } : {}),
        invoiceHash: body.invoiceHash,
        upoSha256: createHash('sha256').update(upo.body).digest('base64'),
        environment: environmentOf(host),
      },
    },
  };
}

const DAY_MS = 86_400_000;

/**
 * What can be judged without a call: the configured Ministry key and, for XAdES, the taxpayer's
 * certificate and key (they load, they belong together, the certificate names the NIP and is valid).
 */
async function health(host: ConnectorHost): Promise<ConnectorHealth> {
  try {
    if (host.config.publicKey) ministryKeyOf(String(host.config.publicKey).replace(/\\n/g, '\n'));
  } catch (err) {
    return { status: 'failed', message: `the configured Ministry public key cannot be loaded: ${(err as Error).message}` };
  }
  if (authMethodOf(host) !== 'xades') return { status: 'ok', message: `KSeF ${environmentOf(host)} at ${baseUrl(host)}, NIP ${contextNip(host)}, token authentication` };
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(String(host.config.certificate ?? '').replace(/\\n/g, '\n'));
    if (!cert.checkPrivateKey(createPrivateKey(host.secrets.get('signingKey').reveal()))) return { status: 'failed', message: 'the signing key is not the certificate\'s' };
  } catch (err) {
    return { status: 'failed', message: `the XAdES certificate or its key cannot be loaded: ${(err as Error).message}` };
  }
  if (!new RegExp(`(VATPL|TINPL|NIP)-?${contextNip(host)}`).test(cert.subject)) return { status: 'failed', message: `the certificate (${cert.subject.replace(/\n/g, ', ')}) does not name NIP ${contextNip(host)}` };
  const days = Math.floor((new Date(cert.validTo).getTime() - host.clock.now().getTime()) / DAY_MS);
  if (days < 0) return { status: 'failed', message: `the XAdES certificate expired on ${cert.validTo}` };
  if (days < 30) return { status: 'warning', message: `the XAdES certificate expires in ${days} days (${cert.validTo}): renew it` };
  return { status: 'ok', message: `KSeF ${environmentOf(host)} at ${baseUrl(host)}, NIP ${contextNip(host)}, XAdES certificate valid until ${cert.validTo}` };
}

const plKsef = {
  manifest: {
    id: 'pl-ksef',
    version: '1.0.0',
    apiVersion: CONNECTOR_API_VERSION,
    name: 'Poland KSeF 2.0',
    description: 'Clears Polish invoices with KSeF 2.0 (FA(3), interactive sessions, KSeF number, UPO, KOD I QR) and fetches the invoices KSeF holds for our company as buyer',
    modes: ['test', 'live'],
    countries: ['PL'],
    documentTypes: ['invoice', 'credit-note'],
    capabilities: { send: true, pushReceive: false, pollReceive: true, status: true, report: false, discover: false, clearance: true },
    authority: 'KSeF',
    options: {
      baseUrl: { type: 'string', description: 'KSeF 2.0 API base URL (https://api-test.ksef.mf.gov.pl/v2, https://api-demo.ksef.mf.gov.pl/v2, https://api.ksef.mf.gov.pl/v2)', required: true },
      environment: { type: 'string', description: 'Which KSeF environment baseUrl is: test, demo or prod (only prod clears live invoices; it picks the QR link host)', default: 'test' },
      nip: { type: 'string', description: 'The NIP the KSeF token authenticates for (the login context; sellers of sent invoices, buyer of fetched ones)', required: true },
      authMethod: { type: 'string', description: 'token (a KSeF token) or xades (an AuthTokenRequest signed with the taxpayer\'s certificate)', default: 'token' },
      ksefToken: { type: 'string', description: 'KSeF token (tokeny-ksef.md) with the InvoiceWrite and InvoiceRead permissions (authMethod token)', secret: true },
      certificate: { type: 'string', description: 'The taxpayer\'s certificate, PEM (authMethod xades): a qualified seal with organizationIdentifier VATPL-{NIP}, a qualified signature with serialNumber TINPL-{NIP}, or a KSeF certificate' },
      signingKey: { type: 'string', description: 'The certificate\'s private key, PEM (authMethod xades)', secret: true },
      publicKey: { type: 'string', description: 'The Ministry\'s public key (PEM certificate or key) for token and session-key encryption; when unset, read from GET /security/public-key-certificates' },
      qrBaseUrl: { type: 'string', description: 'Host of the KOD I verification links (defaults to the environment\'s qr-test / qr-demo / qr.ksef.mf.gov.pl)' },
      timeoutMs: { type: 'number', description: 'Time allowed for one KSeF answer', default: 30000 },
      authPollAttempts: { type: 'number', description: 'Reads of a pending authentication before giving up (transient)', default: 10 },
      authPollMs: { type: 'number', description: 'Pause between two reads of a pending authentication', default: 500 },
      statusPollMs: { type: 'number', description: 'Delay before each read of an invoice\'s processing status', default: 2000 },
      maxPendingMs: { type: 'number', description: 'An invoice KSeF has not processed this long after it was sent is rejected (KSEF_TIMEOUT)', default: 3600000 },
      batchWindowMs: { type: 'number', description: 'Batch submission: invoices sent within this window go in one batch session (0: one interactive session per invoice)', default: 0 },
      batchMaxInvoices: { type: 'number', description: 'Invoices per batch at most (a full batch goes at once; at most 1000)', default: 100 },
      inboxPollMs: { type: 'number', description: 'How often invoices addressed to our NIP are fetched (0: never)', default: 300000 },
      inboxPageSize: { type: 'number', description: 'Invoices per metadata page (KSeF allows 10 to 250)', default: 100 },
      inboxMaxPages: { type: 'number', description: 'Metadata pages read per poll at most (the rest waits for the next poll)', default: 10 },
      inboxLookbackMs: { type: 'number', description: 'How far back the first poll after a start looks', default: 604800000 },
    },
  },

  health,

  async send(msg: OutboundMessage, host: ConnectorHost): Promise<SendResult> {
    return submit(msg, host);
  },

  async status(req: StatusRequest, host: ConnectorHost): Promise<StatusResult> {
    return follow(req, host);
  },

  async start(host: ConnectorHost): Promise<void> {
    environmentOf(host);
    if (!baseUrl(host) || !/^\d{10}$/.test(contextNip(host))) throw ConnectorError.permanent('KSEF_CONFIG', 'pl-ksef needs baseUrl and a 10-digit nip');
    if (authMethodOf(host) === 'token' ? !host.secrets.has('ksefToken') : !host.config.certificate || !host.secrets.has('signingKey')) {
      throw ConnectorError.permanent('KSEF_CONFIG', authMethodOf(host) === 'token' ? 'pl-ksef needs the secret ksefToken (authMethod token)' : 'pl-ksef needs certificate and the secret signingKey (authMethod xades)');
    }
    const every = Number(host.config.inboxPollMs ?? 300_000);
    if (every > 0) host.scheduler.every(every, () => pollInbox(host));
  },

  async stop(host: ConnectorHost): Promise<void> {
    forgetTokens(host);
  },
} satisfies Connector;

export default plKsef;
