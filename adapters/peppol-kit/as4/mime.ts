/**
 * AS4 MIME packaging: SOAP with Attachments as multipart/related (peppol-transport.md §1.4, P8).
 *
 * The parser works on the body's bytes: it finds each delimiter with `Buffer.indexOf` and only
 * turns part headers into text, so binary payloads (the AES-GCM cipher bytes) are never decoded.
 * What real senders write is accepted: `start` absent (the root is then the first part), quoted
 * or unquoted parameters, CRLF or LF-only line ends, a preamble and an epilogue, Content-ID with
 * or without `<>`, Content-Transfer-Encoding binary / 8bit / 7bit / base64. Anything else that
 * makes the package unreadable (no closing delimiter, a part without a header block, too many
 * parts, a part over the size cap, an unknown `start`, duplicate Content-IDs) is a `MimeError`
 * carrying EBMS:0007 (MimeInconsistency); the parser never throws anything else on bad input.
 *
 * The body arrives whole: the HTTP layer is the one that caps the bytes it reads; `maxBytes` here
 * caps each part (before and after transfer decoding) so one oversized attachment is refused.
 */
import { randomBytes } from 'node:crypto';
import { parse as parseContentType } from 'content-type';
import { As4Error } from './ebms.ts';

export interface MimePart {
  /** Header names lower-case; the first of a repeated header wins (repeating the ones below is an error). */
  headers: Record<string, string>;
  /** The media type, lower-case and without parameters (`application/soap+xml`); the full value is in `headers['content-type']`. `text/plain` when the part has none (RFC 2045). */
  contentType: string;
  /** Without `<>`; null when the part has no Content-ID. */
  contentId: string | null;
  /** After Content-Transfer-Encoding decoding (binary, 8bit, 7bit, base64). */
  body: Buffer;
}

export interface MimeLimits {
  /** Most parts, root included. */
  maxParts: number;
  /** Most bytes of one part's body, before and after transfer decoding. */
  maxBytes: number;
}

export const DEFAULT_MIME_LIMITS: Readonly<MimeLimits> = Object.freeze({ maxParts: 32, maxBytes: 200 * 1024 * 1024 });

/** The most bytes of one part's header block. */
const MAX_HEADER_BYTES = 64 * 1024;

/** The MIME package cannot be read as one SOAP-with-Attachments message: ebMS MimeInconsistency. */
export class MimeError extends As4Error {
  override readonly name = 'MimeError';
  constructor(message: string) { super('EBMS:0007', message); }
}

const LF = 0x0a;
const CR = 0x0d;
const DASH = 0x2d;
const SP = 0x20;
const HTAB = 0x09;

/** The `type/subtype` and parameters of a Content-Type value; a MimeError when it is not one. */
function contentTypeOf(value: string, what: string): { type: string; parameters: Record<string, string> } {
  let parsed: { type: string; parameters: Record<string, string> };
  try {
    parsed = parseContentType(value);
  } catch (err) {
    throw new MimeError(`${what}: unreadable Content-Type (${(err as Error).message})`);
  }
  if (!/^[!#$%&'*+.^_`|~0-9a-z-]+\/[!#$%&'*+.^_`|~0-9a-z-]+$/.test(parsed.type)) throw new MimeError(`${what}: Content-Type "${value}" is not a media type`);
  return parsed;
}

/** A Content-ID or `start` value without its angle brackets. */
function bareId(value: string): string {
  const v = value.trim();
  return v.startsWith('<') && v.endsWith('>') ? v.slice(1, -1).trim() : v;
}

/**
 * Where the delimiter line that starts at `at` (just after `--boundary`) ends: the index of the
 * first byte after its line end, `close` when it is the close delimiter, or -1 when the bytes
 * after the boundary are neither (the boundary was only a prefix of longer text).
 */
function afterDelimiter(body: Buffer, at: number): { next: number; close: boolean } | -1 {
  let i = at;
  if (body[i] === DASH && body[i + 1] === DASH) return { next: i + 2, close: true };
  while (body[i] === SP || body[i] === HTAB) i++;  // transport padding (RFC 2046 §5.1.1)
  if (body[i] === CR && body[i + 1] === LF) return { next: i + 2, close: false };
  if (body[i] === LF) return { next: i + 1, close: false };
  if (i >= body.length) return { next: i, close: false };  // the body stops right after a delimiter: truncated, seen by the caller
  return -1;
}

/** Headers of one part (the bytes before its blank line), unfolded; names lower-case. */
function parseHeaders(block: Buffer, index: number): Record<string, string> {
  const headers: Record<string, string> = Object.create(null) as Record<string, string>;
  const lines = block.toString('latin1').split(/\r?\n/);
  const unfolded: string[] = [];
  for (const line of lines) {
    if (line === '') continue;
    if ((line.startsWith(' ') || line.startsWith('\t')) && unfolded.length > 0) unfolded[unfolded.length - 1] += ` ${line.trim()}`;
    else unfolded.push(line);
  }
  for (const line of unfolded) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw new MimeError(`part ${index}: malformed header line "${line.slice(0, 80)}"`);
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(name)) throw new MimeError(`part ${index}: malformed header name "${name.slice(0, 80)}"`);
    const value = line.slice(colon + 1).trim();
    if (name in headers) {
      if (name === 'content-type' || name === 'content-id' || name === 'content-transfer-encoding') throw new MimeError(`part ${index}: repeated ${name} header`);
      continue;
    }
    headers[name] = value;
  }
  return headers;
}

/** Standard base64, whitespace between lines allowed, padding optional; a MimeError otherwise. */
function decodeBase64(raw: Buffer, index: number): Buffer {
  const text = raw.toString('latin1').replace(/[\r\n\t ]+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 === 1) throw new MimeError(`part ${index}: invalid base64 content`);
  return Buffer.from(text, 'base64');
}

function decodePart(raw: Buffer, index: number, limits: MimeLimits): MimePart {
  if (raw.length > limits.maxBytes + MAX_HEADER_BYTES) throw new MimeError(`part ${index}: more than ${limits.maxBytes} bytes`);
  // The header block ends at the first blank line; a part may also start with its blank line (no headers).
  let headerEnd: number;
  let bodyStart: number;
  if (raw[0] === LF) { headerEnd = 0; bodyStart = 1; }
  else if (raw[0] === CR && raw[1] === LF) { headerEnd = 0; bodyStart = 2; }
  else {
    const window = raw.subarray(0, MAX_HEADER_BYTES);
    const crlf = window.indexOf('\r\n\r\n');
    const lf = window.indexOf('\n\n');
    if (crlf < 0 && lf < 0) throw new MimeError(`part ${index}: no blank line after the headers within ${MAX_HEADER_BYTES} bytes`);
    if (crlf >= 0 && (lf < 0 || crlf < lf)) { headerEnd = crlf; bodyStart = crlf + 4; }
    else { headerEnd = lf; bodyStart = lf + 2; }
  }
  const headers = parseHeaders(raw.subarray(0, headerEnd), index);
  const encoded = raw.subarray(bodyStart);
  if (encoded.length > limits.maxBytes) throw new MimeError(`part ${index}: more than ${limits.maxBytes} bytes`);

  const cte = (headers['content-transfer-encoding'] ?? 'binary').toLowerCase();
  let body: Buffer;
  if (cte === 'binary' || cte === '8bit' || cte === '7bit') body = encoded;
  else if (cte === 'base64') body = decodeBase64(encoded, index);
  else throw new MimeError(`part ${index}: unsupported Content-Transfer-Encoding "${cte}"`);

  const contentType = headers['content-type'] === undefined ? 'text/plain' : contentTypeOf(headers['content-type'], `part ${index}`).type;
  const rawId = headers['content-id'];
  const contentId = rawId === undefined ? null : bareId(rawId);
  if (contentId === '') throw new MimeError(`part ${index}: empty Content-ID`);
  return { headers, contentType, contentId, body };
}

/**
 * Parse an HTTP body of Content-Type multipart/related (boundary quoted or not; `start` may be
 * absent → root is the first part; CRLF or LF-only; preamble/epilogue; Content-ID with or without
 * <>; a truncated body (no closing boundary) → MimeError, never a crash). Returns the SOAP root
 * part and the attachments in order.
 */
export function parseMultipartRelated(contentType: string, body: Buffer, limits?: Partial<MimeLimits>): { root: MimePart; attachments: MimePart[] } {
  const lim: MimeLimits = { ...DEFAULT_MIME_LIMITS, ...limits };
  const ct = contentTypeOf(contentType, 'message');
  if (ct.type !== 'multipart/related') throw new MimeError(`message: Content-Type is ${ct.type}, not multipart/related`);
  const boundary = ct.parameters['boundary'];
  if (boundary === undefined || boundary.length === 0 || boundary.length > 200 || /[\r\n]/.test(boundary)) throw new MimeError('message: multipart/related without a usable boundary parameter');
  const dashBoundary = Buffer.from(`--${boundary}`, 'latin1');

  // The first delimiter: at the very start, or at the start of a line of the preamble.
  let from = 0;
  let first: { at: number; next: number; close: boolean } | undefined;
  while (first === undefined) {
    const at = body.indexOf(dashBoundary, from);
    if (at < 0) throw new MimeError('message: no boundary delimiter found (empty or truncated body)');
    if (at === 0 || body[at - 1] === LF) {
      const after = afterDelimiter(body, at + dashBoundary.length);
      if (after !== -1) first = { at, ...after };
    }
    from = at + 1;
  }
  if (first.close) throw new MimeError('message: no parts before the close delimiter');
  // The line end the sender used decides what precedes every later delimiter: "\r\n--b" or "\n--b".
  const crlf = first.next >= 2 && body[first.next - 2] === CR;
  const delimiter = Buffer.concat([Buffer.from(crlf ? '\r\n' : '\n', 'latin1'), dashBoundary]);

  const parts: MimePart[] = [];
  let partStart = first.next;
  if (partStart >= body.length) throw new MimeError('message: truncated after the first delimiter');
  let search = partStart;
  for (;;) {
    const at = body.indexOf(delimiter, search);
    if (at < 0) throw new MimeError('message: truncated, the close delimiter is missing');
    const after = afterDelimiter(body, at + delimiter.length);
    if (after === -1) { search = at + 1; continue; }  // "--boundary" followed by more boundary-ish text: content
    if (parts.length >= lim.maxParts) throw new MimeError(`message: more than ${lim.maxParts} parts`);
    parts.push(decodePart(body.subarray(partStart, at), parts.length, lim));
    if (after.close) break;
    if (after.next >= body.length) throw new MimeError('message: truncated after a delimiter');
    partStart = after.next;
    search = partStart;
  }

  const seen = new Set<string>();
  for (const part of parts) {
    if (part.contentId === null) continue;
    if (seen.has(part.contentId)) throw new MimeError(`message: Content-ID <${part.contentId}> appears twice`);
    seen.add(part.contentId);
  }

  const start = ct.parameters['start'];
  let rootIndex = 0;
  if (start !== undefined && start.trim() !== '') {
    const id = bareId(start);
    rootIndex = parts.findIndex((p) => p.contentId === id);
    if (rootIndex < 0) throw new MimeError(`message: start <${id}> names no part`);
  }
  const root = parts[rootIndex]!;
  return { root, attachments: parts.filter((_, i) => i !== rootIndex) };
}

const SOAP12 = 'application/soap+xml';

/** A header value we write: one line, printable. */
function headerSafe(value: string, what: string): string {
  if (value.length === 0 || !/^[\x20-\x7e]+$/.test(value)) throw new TypeError(`${what} "${value}" cannot go into a MIME header`);
  return value;
}

/**
 * Build one: root SOAP part (application/soap+xml;charset=UTF-8, binary CTE) then attachments
 * (Content-Type, Content-Transfer-Encoding binary, Content-ID <id>, no Content-Disposition), fresh
 * random boundary. Returns the HTTP Content-Type (multipart/related; boundary="…";
 * type="application/soap+xml") and the body.
 */
export function buildMultipartRelated(soap: Buffer | string, attachments: Array<{ contentId: string; contentType: string; body: Buffer }>): { contentType: string; body: Buffer } {
  const root = typeof soap === 'string' ? Buffer.from(soap, 'utf8') : soap;
  const heads = attachments.map((a) => {
    const id = bareId(a.contentId);
    if (/[<>\s]/.test(id)) throw new TypeError(`Content-ID "${a.contentId}" cannot go into a MIME header`);
    headerSafe(id, 'Content-ID');
    contentTypeOf(headerSafe(a.contentType, 'Content-Type'), 'attachment');
    return `Content-Type: ${a.contentType}\r\nContent-Transfer-Encoding: binary\r\nContent-ID: <${id}>\r\n\r\n`;
  });
  // A fresh boundary, and (for the astronomically unlucky) one that occurs in no part.
  let boundary: string;
  do boundary = `MIMEBoundary_${randomBytes(24).toString('hex')}`;
  while (root.includes(boundary, 0, 'latin1') || attachments.some((a) => a.body.includes(boundary, 0, 'latin1')));

  const chunks: Buffer[] = [
    Buffer.from(`--${boundary}\r\nContent-Type: ${SOAP12};charset=UTF-8\r\nContent-Transfer-Encoding: binary\r\n\r\n`, 'latin1'),
    root,
  ];
  attachments.forEach((a, i) => {
    chunks.push(Buffer.from(`\r\n--${boundary}\r\n${heads[i]!}`, 'latin1'), a.body);
  });
  chunks.push(Buffer.from(`\r\n--${boundary}--\r\n`, 'latin1'));
  return { contentType: `multipart/related; boundary="${boundary}"; type="${SOAP12}"`, body: Buffer.concat(chunks) };
}
