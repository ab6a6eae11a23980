/**
 * Reads a `multipart/form-data` body the gateway handed over as a raw deposit (already capped by
 * its body limit): the fields and the one file part, through @fastify/busboy. Parts are bounded —
 * a few short fields and one file no larger than `maxFileBytes` (a larger one is reported as
 * `truncated`, so the caller answers 413 instead of guessing).
 */
import { Readable } from 'node:stream';
import { Busboy } from '@fastify/busboy';
import { DomainError } from '../shared/errors.ts';
import { firstUnstorablePath } from '../shared/pg-text.ts';

export interface MultipartForm {
  fields: Record<string, string>;
  file: { field: string; filename: string | null; contentType: string; bytes: Buffer; truncated: boolean } | null;
}

const badForm = (message: string) => new DomainError('INVALID_REQUEST', message, { details: [{ field: 'body', rule: 'multipart', message }] });

export function readMultipart(body: Buffer, contentType: string | undefined, maxFileBytes: number): Promise<MultipartForm> {
  if (!contentType || !/^multipart\/form-data\s*;/i.test(contentType)) return Promise.reject(badForm('Send multipart/form-data with a boundary'));
  return new Promise((resolve, reject) => {
    let parser: InstanceType<typeof Busboy>;
    try {
      parser = new Busboy({ headers: { 'content-type': contentType }, limits: { fields: 20, fieldSize: 4096, files: 1, fileSize: maxFileBytes, parts: 25 } });
    } catch (err) {
      return reject(badForm(`The multipart body cannot be read: ${(err as Error).message}`));
    }
    const form: MultipartForm = { fields: {}, file: null };
    const pending: Array<Promise<void>> = [];
    parser.on('field', (name: string, value: string) => { form.fields[name] = value; });
    parser.on('file', (field: string, stream: Readable, filename: string | undefined, _encoding: string, mimeType: string) => {
      pending.push(new Promise<void>((done, fail) => {
        const chunks: Buffer[] = [];
        let truncated = false;
        stream.on('limit', () => { truncated = true; });
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('error', fail);
        stream.on('end', () => {
          form.file = { field, filename: filename || null, contentType: mimeType || 'application/octet-stream', bytes: Buffer.concat(chunks), truncated };
          done();
        });
      }));
    });
    parser.on('error', (err: Error) => reject(badForm(`The multipart body cannot be read: ${err.message}`)));
    parser.on('finish', () => {
      Promise.all(pending).then(() => {
        // Text parts and the file name end up in PostgreSQL text: a NUL or a lone surrogate cannot.
        const unstorable = firstUnstorablePath({ ...form.fields, filename: form.file?.filename ?? '' });
        if (unstorable !== undefined) return reject(new DomainError('INVALID_REQUEST', `The '${unstorable}' part contains a NUL character or an unpaired UTF-16 surrogate, which cannot be stored`, { details: [{ field: unstorable, rule: 'storableText', message: 'not storable text' }] }));
        resolve(form);
      }, reject);
    });
    Readable.from([body]).pipe(parser);
  });
}
