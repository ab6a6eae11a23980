/**
 * The gateway's side of `Idempotency-Key`: check the header, hash the request, claim the key in
 * the durable store (services/idempotency), capture the response as it is written and store it
 * before the client sees it, and replay a stored response byte for byte.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DomainError } from '../shared/errors.ts';
import { MAX_IDEMPOTENCY_KEY_LENGTH, type StoredResponse } from '../idempotency/idempotency.contract.ts';

/** Headers of the first response that a replay repeats. */
export const REPLAYED_HEADERS = ['content-type', 'location'] as const;

/** Reads and checks `Idempotency-Key` (POST only); undefined when absent. */
export function idempotencyKeyOf(req: IncomingMessage): string | undefined {
  const raw = req.headers['idempotency-key'];
  if (raw === undefined) return undefined;
  return checkedIdempotencyKey(Array.isArray(raw) ? raw[0]! : raw, 'Idempotency-Key');
}

/** An Idempotency-Key as a caller gave it (a header, an MCP tool call's argument), checked: 400 INVALID_REQUEST naming `field`. */
export function checkedIdempotencyKey(key: unknown, field: string): string {
  if (typeof key !== 'string' || !key.length || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    const message = `${field} must be a string of 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`;
    throw new DomainError('INVALID_REQUEST', message, { details: [{ field, rule: 'stringLength', message }] });
  }
  return key;
}

/**
 * SHA-256 of what makes two requests "the same": method, path with its query string (a raw
 * deposit's recipient and format travel there), content type and body.
 */
export function requestHash(method: string, url: string, contentType: string | undefined, body: unknown, raw: Buffer | undefined): string {
  const hash = createHash('sha256').update(`${method}\n${url}\n${(contentType ?? '').toLowerCase()}\n`);
  if (raw) hash.update(raw);
  else if (body !== undefined) hash.update(JSON.stringify(body));
  return hash.digest('hex');
}

/**
 * The key a send without `Idempotency-Key` gets (spec: "default for a send with no key is derived
 * from the payload"): the same payload sent twice within 24 hours is one send. Used by operations
 * whose contract sets `idempotencyKeyFromPayload` (POST /v1/documents/send once it exists).
 */
export function derivedIdempotencyKey(url: string, contentType: string | undefined, body: unknown, raw: Buffer | undefined): string {
  return `derived:${requestHash('POST', url, contentType, body, raw)}`;
}

/** What stands in a stored answer for a secret shown once. */
export const REDACTED_SECRET = '[redacted: shown once, in the first answer; never stored or replayed]';
/** Header of a replay whose stored answer had secrets masked: the names of the masked fields. */
export const REDACTED_HEADER = 'Idempotent-Replay-Redacted';

/** The answer as it may be stored: with `secretFields` of a JSON success body masked. */
export function redactSecrets(response: StoredResponse, secretFields: readonly string[] | undefined): StoredResponse {
  if (!secretFields?.length || response.status >= 300 || !/json/i.test(response.headers['Content-Type'] ?? '')) return response;
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(response.body, 'base64').toString('utf8'));
  } catch {
    return response;
  }
  if (!body || typeof body !== 'object') return response;
  // A field is a top-level name or a dotted path into nested objects (`apiKey.key`).
  const holderOf = (path: string): [Record<string, unknown>, string] | undefined => {
    const names = path.split('.');
    let holder = body as Record<string, unknown>;
    for (const name of names.slice(0, -1)) {
      const next = holder[name];
      if (!next || typeof next !== 'object') return undefined;
      holder = next as Record<string, unknown>;
    }
    const last = names[names.length - 1]!;
    return typeof holder[last] === 'string' ? [holder, last] : undefined;
  };
  const masked = secretFields.filter((f) => holderOf(f));
  if (!masked.length) return response;
  for (const f of masked) {
    const [holder, name] = holderOf(f)!;
    holder[name] = REDACTED_SECRET;
  }
  return { ...response, headers: { ...response.headers, [REDACTED_HEADER]: masked.join(', ') }, body: Buffer.from(JSON.stringify(body)).toString('base64') };
}

/** Thrown from authorization to answer with a stored response instead of running the action. */
export class IdempotentReplay extends Error {
  readonly response: StoredResponse;
  constructor(response: StoredResponse) {
    super('idempotent replay');
    this.response = response;
  }
}

/**
 * Writes a stored response: its status, body bytes and replayed headers, plus this request's id.
 * An error envelope names the request that answered: its `requestId` (an AFNOR `Error`'s
 * `instance`, `urn:request:<id>`) becomes this request's, so the body and `X-Request-Id` agree (the
 * request log has this request under that id).
 */
export function writeReplay(res: ServerResponse, stored: StoredResponse, extraHeaders: Record<string, string>): void {
  let body = Buffer.from(stored.body, 'base64');
  const requestId = res.getHeader('x-request-id');
  if (typeof requestId === 'string' && stored.status >= 400 && /json/i.test(stored.headers['Content-Type'] ?? '')) {
    try {
      const envelope = JSON.parse(body.toString('utf8')) as { error?: { requestId?: string }; instance?: unknown };
      if (envelope.error && typeof envelope.error.requestId === 'string') {
        envelope.error.requestId = requestId;
        body = Buffer.from(JSON.stringify(envelope));
      } else if (typeof envelope.instance === 'string' && envelope.instance.startsWith('urn:request:')) {
        envelope.instance = `urn:request:${requestId}`;
        body = Buffer.from(JSON.stringify(envelope));
      }
    } catch { /* not JSON after all: replayed as stored */ }
  }
  res.writeHead(stored.status, { ...extraHeaders, ...stored.headers, 'Idempotent-Replayed': 'true', 'Content-Length': String(body.length) });
  res.end(body);
}

/**
 * Wraps `res` so the response is captured while it is written; `onEnd` runs before the last byte
 * is sent (the stored copy exists before the client can retry), and the response goes out even
 * when `onEnd` fails.
 */
export function captureResponse(res: ServerResponse, onEnd: (response: StoredResponse) => Promise<void>): void {
  const chunks: Buffer[] = [];
  const toBuffer = (chunk: unknown, encoding?: unknown) =>
    Buffer.isBuffer(chunk) ? chunk : typeof chunk === 'string' ? Buffer.from(chunk, (typeof encoding === 'string' ? encoding : 'utf8') as BufferEncoding) : Buffer.from(chunk as Uint8Array);
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  res.write = ((chunk: unknown, ...rest: unknown[]) => {
    if (chunk !== undefined && chunk !== null) chunks.push(toBuffer(chunk, rest[0]));
    return write(chunk, ...rest);
  }) as ServerResponse['write'];
  res.end = ((...args: unknown[]) => {
    const [chunk, encoding] = args;
    if (chunk !== undefined && chunk !== null && typeof chunk !== 'function') chunks.push(toBuffer(chunk, encoding));
    const headers: Record<string, string> = {};
    for (const name of REPLAYED_HEADERS) {
      const value = res.getHeader(name);
      if (value !== undefined) headers[name === 'content-type' ? 'Content-Type' : 'Location'] = String(value);
    }
    onEnd({ status: res.statusCode, headers, body: Buffer.concat(chunks).toString('base64') }).finally(() => end(...args));
    return res;
  }) as ServerResponse['end'];
}
