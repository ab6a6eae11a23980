/**
 * The files of a request, given back byte for byte: the rendered agreement a signature check was
 * opened on, and the signed mandate a caller deposited (portability_files). The digest served is
 * the one the evidence chain recorded for the file (`signature.requested` → `objectId`,
 * `signature.recorded` → `fileId`), not the file row's own column: the bytes are hashed on every
 * read and served only when they still hash to it. Bytes changed in the table, or a chain that no
 * longer verifies up to the row that vouches for them, are refused (502 UPSTREAM_ERROR, the
 * artefact store's answer for corrupt bytes), never served as the record. Reading writes nothing.
 */
import type { Context } from 'moleculer';
import type { EntityManager } from '@mikro-orm/postgresql';
import { principalOf } from '../shared/auth.ts';
import { DomainError, notFound } from '../shared/errors.ts';
import { sha256Hex, type EvidenceRowData } from './evidence-chain.ts';
import { PortabilityFile } from './portability.entity.ts';
import { readRequest, requestOf, type ReadRequest } from './requests.ts';

type ResponseMeta = { $responseType?: string; $responseHeaders?: Record<string, string> };

/** The id of the file a row vouches for, when it vouches for one. */
function fileNamedBy(row: EvidenceRowData): string | null {
  if (row.kind === 'signature.recorded' && typeof row.payload.fileId === 'string') return row.payload.fileId;
  if (row.kind === 'signature.requested' && typeof row.payload.objectId === 'string') return row.payload.objectId;
  return null;
}

/** The digest the verified chain recorded for a file; a row past a break does not vouch. */
function recordedDigest(read: ReadRequest, fileId: string): string {
  const row = read.trusted.find((r) => fileNamedBy(r) === fileId && typeof r.payload.agreementSha256 === 'string');
  if (row) return row.payload.agreementSha256 as string;
  const { brokenAt } = read.verification;
  throw new DomainError('UPSTREAM_ERROR', brokenAt !== null
    ? `File ${fileId} of request ${read.request.requestRef} is not served: its evidence chain does not verify from seq ${brokenAt}, so nothing vouches for its digest`
    : `File ${fileId} of request ${read.request.requestRef} is not served: no row of its evidence chain records its digest`);
}

/** A stored media type as a header may carry it (it came from the depositor's multipart part). */
function servableType(contentType: string): string {
  const [type] = contentType.split(';');
  return /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/i.test(type!.trim()) && /^[\x20-\x7e]*$/.test(contentType) ? contentType : 'application/octet-stream';
}

/** `attachment` with an ASCII fallback name and the exact one in RFC 8187 form (any script). */
export function attachmentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  const exact = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${exact}`;
}

async function serve(ctx: Context, em: EntityManager, read: ReadRequest, fileId: string): Promise<Buffer> {
  const auth = principalOf(ctx);
  const file = await em.findOne(PortabilityFile, { id: fileId, requestRef: read.request.requestRef, organizationId: auth.organizationId, livemode: auth.livemode }, { disableIdentityMap: true });
  if (!file) throw notFound('Portability file', fileId);
  const digest = recordedDigest(read, fileId);
  const bytes = Buffer.from(file.content);
  const actual = sha256Hex(bytes);
  if (actual !== digest) {
    throw new DomainError('UPSTREAM_ERROR', `File ${fileId} of request ${read.request.requestRef} is corrupt in storage: its bytes hash to ${actual}, the evidence chain recorded ${digest}; not served`);
  }
  const meta = ctx.meta as ResponseMeta;
  meta.$responseType = servableType(file.contentType);
  meta.$responseHeaders = {
    'Content-Disposition': attachmentDisposition(file.filename),
    // RFC 9530: the digest of the bytes served, as the evidence chain recorded it.
    'Repr-Digest': `sha-256=:${Buffer.from(digest, 'hex').toString('base64')}:`,
    ETag: `"${digest}"`,
    'X-Content-Type-Options': 'nosniff',
  };
  return bytes;
}

export async function downloadFile(ctx: Context<{ requestRef: string; fileId: string }>, em: EntityManager): Promise<Buffer> {
  const read = await readRequest(em, await requestOf(em, principalOf(ctx), ctx.params.requestRef));
  return serve(ctx, em, read, ctx.params.fileId);
}

/** The signed mandate deposited for the request: the file its recorded signature names. */
export async function downloadSignedMandate(ctx: Context<{ requestRef: string }>, em: EntityManager): Promise<Buffer> {
  const read = await readRequest(em, await requestOf(em, principalOf(ctx), ctx.params.requestRef));
  const deposited = [...read.trusted].reverse().find((r) => r.kind === 'signature.recorded' && typeof r.payload.fileId === 'string');
  if (!deposited && read.verification.brokenAt !== null) {
    throw new DomainError('UPSTREAM_ERROR', `The signed mandate of request ${read.request.requestRef} is not served: its evidence chain does not verify from seq ${read.verification.brokenAt}`);
  }
  if (!deposited) throw new DomainError('RESOURCE_NOT_FOUND', `Portability request '${read.request.requestRef}' has no deposited signed mandate`);
  return serve(ctx, em, read, deposited.payload.fileId as string);
}
