/**
 * The parts of a multipart/form-data body already read (and capped) by the gateway's body reader,
 * parsed by @fastify/busboy. Every part is kept as bytes, whether the client sent it as a field or
 * as a file (an AFNOR client may send `flowInfo` either way), with at most a few parts.
 */
import { Busboy } from '@fastify/busboy';
import { DomainError } from '../../shared/errors.ts';

export interface Part { bytes: Buffer; filename: string | undefined; contentType: string | undefined }

const MAX_PARTS = 8;

function invalid(message: string): DomainError {
  return new DomainError('INVALID_REQUEST', message, { details: [{ field: 'body', rule: 'multipart', message }] });
}

export function readMultipart(body: Buffer, contentType: string | undefined, maxBytes: number): Promise<Map<string, Part>> {
  if (!contentType || !/^multipart\/form-data\s*;/i.test(contentType)) {
    return Promise.reject(new DomainError('UNSUPPORTED_MEDIA_TYPE', 'Send the flow as multipart/form-data with the parts flowInfo and file', {
      details: [{ field: 'Content-Type', rule: 'multipart', message: 'multipart/form-data expected' }],
    }));
  }
  return new Promise((resolve, reject) => {
    const parts = new Map<string, Part>();
    let failed: DomainError | undefined;
    let bb: InstanceType<typeof Busboy>;
    try {
      bb = new Busboy({
        headers: { 'content-type': contentType },
        limits: { parts: MAX_PARTS, fileSize: maxBytes, fieldSize: maxBytes, files: MAX_PARTS, fields: MAX_PARTS },
        isPartAFile: () => true,
      });
    } catch (err) {
      return reject(invalid(`The multipart body cannot be read: ${(err as Error).message}`));
    }
    bb.on('file', (name: string, stream: NodeJS.ReadableStream & { truncated?: boolean }, filename: string | undefined, _encoding: string, mimetype: string | undefined) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => { failed ??= new DomainError('PAYLOAD_TOO_LARGE', `The part ${name} exceeds ${maxBytes} bytes`); });
      stream.on('end', () => {
        if (!parts.has(name)) parts.set(name, { bytes: Buffer.concat(chunks), filename: filename || undefined, contentType: mimetype || undefined });
      });
    });
    bb.on('partsLimit', () => { failed ??= invalid(`At most ${MAX_PARTS} parts are read`); });
    bb.on('error', (err: Error) => reject(invalid(`The multipart body cannot be read: ${err.message}`)));
    bb.on('finish', () => (failed ? reject(failed) : resolve(parts)));
    bb.end(body);
  });
}
