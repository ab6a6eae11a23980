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
  const key = Array.isArray(raw) ? raw[0]! : raw;
  if (!key.length || key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    const message = `Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters long`;
    throw new DomainError('INVALID_REQUEST', message, { details: [{ field: 'Idempotency-Key', rule: 'stringLength', message }] });
  }
  return key;
}

/** SHA-256 of what makes two requests "the same": method, path and body. */
export function requestHash(method: string, path: string, body: unknown, raw: Buffer | undefined): string {
  const hash = createHash('sha256').update(`${method}\n${path}\n`);
  if (raw) hash.update(raw);
  else if (body !== undefined) hash.update(JSON.stringify(body));
  return hash.digest('hex');
}

/**
 * The key a send without `Idempotency-Key` gets (spec: "default for a send with no key is derived
 * from the payload"): the same payload sent twice within 24 hours is one send. Used by operations
 * whose contract sets `idempotencyKeyFromPayload` (POST /v1/documents/send once it exists).
 */
export function derivedIdempotencyKey(path: string, body: unknown, raw: Buffer | undefined): string {
  return `derived:${requestHash('POST', path, body, raw)}`;
}

/** Thrown from authorization to answer with a stored response instead of running the action. */
export class IdempotentReplay extends Error {
  readonly response: StoredResponse;
  constructor(response: StoredResponse) {
    super('idempotent replay');
    this.response = response;
  }
}

/** Writes a stored response: its status, body bytes and replayed headers, plus this request's id. */
export function writeReplay(res: ServerResponse, stored: StoredResponse, extraHeaders: Record<string, string>): void {
  const body = Buffer.from(stored.body, 'base64');
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
