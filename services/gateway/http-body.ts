/**
 * Reads a request body with hard size caps, decompressing `Content-Encoding: gzip` on the way.
 *
 * Why our own reader: the cap must apply to the *decompressed* bytes, counted while inflating, so
 * a gzip bomb (a few KB that inflate to gigabytes) is cut off at the cap with a 413 instead of
 * being inflated into memory first.
 */
import type { IncomingMessage } from 'node:http';
import { createGunzip } from 'node:zlib';
import type { Readable } from 'node:stream';
import { DomainError } from '../shared/errors.ts';

export interface BodyLimits {
  /** Cap for JSON bodies, after decompression. */
  maxJsonBytes: number;
  /** Cap for any other body (file deposits), after decompression. */
  maxBodyBytes: number;
}

export interface ParsedBody {
  /** Parsed JSON for JSON content types; undefined when there is no body. */
  json: unknown;
  /** Raw (decompressed) bytes, for non-JSON deposits. */
  raw: Buffer | undefined;
  contentType: string | undefined;
}

function isJsonType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || type.endsWith('+json');
}

function tooLarge(limit: number): DomainError {
  return new DomainError('PAYLOAD_TOO_LARGE', `The request body exceeds the limit of ${limit} bytes (after decompression)`);
}

/** Past this many bytes on the wire a refused body is not drained any more: the connection is cut. */
const DRAIN_CEILING_BYTES = 64 * 1024 * 1024;

/**
 * Discards the rest of a refused request so the client can read our 413 (a server that answers
 * while the client is still sending, then closes, makes most clients report a reset instead).
 */
function drain(req: IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    if (req.readableEnded) return resolve();
    let seen = 0;
    req.unpipe();
    req.on('data', (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > DRAIN_CEILING_BYTES) {
        req.socket.destroy();
        resolve();
      }
    });
    req.once('end', resolve);
    req.once('error', () => resolve());
    req.once('close', resolve);
    req.resume();
  });
}

async function collect(req: IncomingMessage, source: Readable, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of source) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      if (source !== req) source.destroy();
      await drain(req);
      throw tooLarge(limit);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, size);
}

/** The body's bytes, decompressed and capped at `limit` (as sent: nothing parsed). */
export async function readBytes(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  const encoding = (req.headers['content-encoding'] ?? 'identity').toString().trim().toLowerCase();
  if (encoding === 'identity' && Number.isFinite(declared) && declared > limit) {
    await drain(req);
    throw tooLarge(limit);
  }

  let source: Readable = req;
  if (encoding === 'gzip' || encoding === 'x-gzip') {
    // maxOutputLength bounds zlib's own buffers too; the byte count in collect() is the real cap.
    const gunzip = createGunzip({ maxOutputLength: limit + 1 });
    source = req.pipe(gunzip);
    req.on('error', (err) => gunzip.destroy(err));
  } else if (encoding !== 'identity') {
    await drain(req);
    throw new DomainError('UNSUPPORTED_MEDIA_TYPE', `Content-Encoding '${encoding}' is not supported; send identity or gzip`);
  }

  try {
    return await collect(req, source, limit);
  } catch (err) {
    if (err instanceof DomainError) throw err;
    await drain(req);
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge(limit);
    throw new DomainError('INVALID_REQUEST', 'The request body could not be decompressed: it is not valid gzip', {
      details: [{ field: 'body', rule: 'gzip', message: (err as Error).message }],
    });
  }
}

/**
 * `curl -d @invoice.json` sends JSON as `application/x-www-form-urlencoded`, and some clients send
 * no type at all: such a body that is a JSON object is taken for JSON (nobody deposits a form).
 */
function mayBeUndeclaredJson(contentType: string | undefined): boolean {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  return type === '' || type === 'application/x-www-form-urlencoded';
}

function looksLikeJsonObject(bytes: Buffer): boolean {
  for (const byte of bytes) {
    if (byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d || byte === 0xef || byte === 0xbb || byte === 0xbf) continue;
    return byte === 0x7b; // '{'
  }
  return false;
}

export async function readBody(req: IncomingMessage, limits: BodyLimits): Promise<ParsedBody> {
  const contentType = req.headers['content-type'];
  const declaredJson = isJsonType(contentType);
  const bytes = await readBytes(req, declaredJson ? limits.maxJsonBytes : limits.maxBodyBytes);
  if (bytes.length === 0) return { json: undefined, raw: undefined, contentType };
  if (!declaredJson) {
    const undeclared = mayBeUndeclaredJson(contentType) && looksLikeJsonObject(bytes) && bytes.length <= limits.maxJsonBytes ? parsedOrUndefined(bytes) : undefined;
    return undeclared === undefined ? { json: undefined, raw: bytes, contentType } : { json: undeclared, raw: undefined, contentType };
  }
  try {
    return { json: JSON.parse(bytes.toString('utf8')), raw: undefined, contentType };
  } catch (err) {
    throw new DomainError('INVALID_REQUEST', 'The request body is not valid JSON', {
      details: [{ field: 'body', rule: 'json', message: (err as Error).message }],
    });
  }
}

function parsedOrUndefined(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}
