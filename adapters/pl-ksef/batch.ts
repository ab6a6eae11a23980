/**
 * Batch submission (sesja-wsadowa.md): when `batchWindowMs` is set, the invoices sent within the
 * window (at most `batchMaxInvoices`) travel together. The FA(3) files go in one archive — TarGz, the
 * compression type KSeF 2.6 accepts beside Zip (no ZIP writer is among the platform's libraries; a
 * ustar archive is a few header fields and zlib's gzip) — encrypted AES-256-CBC under the session key
 * as one part (KSeF's parts may reach 100 MB before encryption; a batch of at most 1 000 invoices of
 * at most 1 MB stays below), announced with its hashes by `POST /sessions/batch`, uploaded to the
 * URL KSeF gives (no bearer token: the link is the authorisation), and the session closed. Each send
 * waits for its batch and answers `accepted` with a message id naming its file in the archive; the
 * status is read from the session's invoice list by that file name.
 */
import { gzipSync } from 'node:zlib';
import { ConnectorError, type ConnectorHost } from '../sdk/index.ts';
import { authorised, failure, jsonOf, ministryKeys } from './client.ts';
import { encryptInvoice, newSessionKey, rsaOaepEncrypt, sha256Base64 } from './crypto.ts';

export interface BatchItem { fileName: string; xml: Buffer }
interface Pending extends BatchItem { resolve(session: string): void; reject(err: unknown): void }
interface Queue { items: Pending[]; timer?: ReturnType<typeof setTimeout> }

const queues = new WeakMap<ConnectorHost, Queue>();

/** The most invoices one batch carries (KSeF allows 10 000 per session; the archive stays one part). */
const MAX_BATCH = 1000;

/** One ustar header block (POSIX.1-1988): name, mode, owner, size, mtime, checksum, type, magic. */
function tarHeader(name: string, size: number, mtime: number): Buffer {
  const h = Buffer.alloc(512, 0);
  const put = (offset: number, length: number, value: string) => h.write(value.slice(0, length), offset, length, 'ascii');
  const octal = (value: number, length: number) => value.toString(8).padStart(length - 1, '0');
  put(0, 100, name);
  put(100, 8, `${octal(0o644, 8)}\0`);
  put(108, 8, `${octal(0, 8)}\0`);
  put(116, 8, `${octal(0, 8)}\0`);
  put(124, 12, `${octal(size, 12)}\0`);
  put(136, 12, `${octal(Math.floor(mtime / 1000), 12)}\0`);
  put(148, 8, '        ');
  put(156, 1, '0');
  put(257, 6, 'ustar\0');
  put(263, 2, '00');
  let sum = 0;
  for (const b of h) sum += b;
  put(148, 8, `${octal(sum, 7)}\0 `);
  return h;
}

/** A gzip-compressed ustar archive of the files (names of at most 100 ASCII characters). */
export function tarGz(files: readonly BatchItem[], mtime: number): Buffer {
  const blocks: Buffer[] = [];
  for (const f of files) {
    if (!/^[\x20-\x7e]{1,100}$/.test(f.fileName)) throw new Error(`archive member name ${f.fileName} is not 1–100 printable ASCII characters`);
    blocks.push(tarHeader(f.fileName, f.xml.length, mtime), f.xml, Buffer.alloc((512 - (f.xml.length % 512)) % 512, 0));
  }
  blocks.push(Buffer.alloc(1024, 0));
  return gzipSync(Buffer.concat(blocks));
}

/** Sends one batch: archive, encryption, session, upload, close. Resolves with the session's reference number. */
async function sendBatch(host: ConnectorHost, items: readonly BatchItem[], formCode: unknown): Promise<string> {
  const archive = tarGz(items, host.clock.now().getTime());
  const keys = await ministryKeys(host);
  const session = newSessionKey();
  const part = encryptInvoice(session, archive);
  const open = await authorised(host, 'POST', '/sessions/batch', {
    json: {
      formCode,
      batchFile: { fileSize: archive.length, fileHash: sha256Base64(archive), compressionType: 'TarGz', fileParts: [{ ordinalNumber: 1, fileSize: part.length, fileHash: sha256Base64(part) }] },
      encryption: { encryptedSymmetricKey: rsaOaepEncrypt(keys.symmetric, session.key).toString('base64'), initializationVector: session.iv.toString('base64') },
    },
  });
  if (open.status !== 201 && open.status !== 200) throw failure(open, 'the opening of a batch session');
  const answer = jsonOf<{ referenceNumber?: string; partUploadRequests?: Array<{ ordinalNumber?: number; method?: string; url?: string; headers?: Record<string, string> }> }>(open);
  const upload = answer?.partUploadRequests?.find((u) => u.ordinalNumber === 1);
  if (!answer?.referenceNumber || !upload?.url) throw ConnectorError.transient('KSEF_BAD_ANSWER', 'KSeF opened a batch session without a reference number or an upload address');
  const put = await host.http.request(upload.url, { method: upload.method ?? 'PUT', headers: { ...(upload.headers ?? {}) }, body: part, timeoutMs: Number(host.config.timeoutMs ?? 30_000) });
  if (put.status < 200 || put.status >= 300) throw ConnectorError.transient(`KSEF_HTTP_${put.status}`, `KSeF's storage answered the batch upload with HTTP ${put.status}`);
  const close = await authorised(host, 'POST', `/sessions/batch/${encodeURIComponent(answer.referenceNumber)}/close`);
  if (close.status !== 204 && close.status !== 200) throw failure(close, 'the closing of the batch session');
  host.log.info('pl-ksef: batch submitted', { session: answer.referenceNumber, invoices: items.length });
  return answer.referenceNumber;
}

/**
 * Puts an invoice in the host's current batch and resolves with the batch session's reference once
 * the batch went; a failure of the batch is each of its invoices' failure (a transient one makes the
 * platform send each again, into a later batch).
 */
export function enqueue(host: ConnectorHost, item: BatchItem, formCode: unknown): Promise<string> {
  let q = queues.get(host);
  if (!q) { q = { items: [] }; queues.set(host, q); }
  const queue = q;
  const max = Math.min(MAX_BATCH, Math.max(1, Number(host.config.batchMaxInvoices ?? 100)));
  const flush = () => {
    if (queue.timer) clearTimeout(queue.timer);
    delete queue.timer;
    const items = queue.items.splice(0, queue.items.length);
    if (!items.length) return;
    sendBatch(host, items, formCode).then((ref) => { for (const i of items) i.resolve(ref); }, (err: unknown) => { for (const i of items) i.reject(err); });
  };
  return new Promise<string>((resolve, reject) => {
    queue.items.push({ ...item, resolve, reject });
    if (queue.items.length >= max) flush();
    else queue.timer ??= setTimeout(flush, Math.max(0, Number(host.config.batchWindowMs ?? 0)));
  });
}
