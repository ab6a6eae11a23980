/**
 * GET /v1/archive/export (archive.contract.ts): the caller's artefacts as a ZIP streamed while it is
 * built (fflate), so an archive of any size holds one artefact in memory at a time, not the archive.
 * Documents are read 50 at a time in id order; each artefact's SHA-256 is computed from the bytes
 * written into the ZIP, so the manifest vouches for what the archive holds.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Context } from 'moleculer';
import { Zip, ZipDeflate, ZipPassThrough } from 'fflate';
import { emOf } from '../../mixins/orm.mixin.ts';
import { principalOf } from '../shared/auth.ts';
import { systemClock } from '../shared/clock.ts';
import { DomainError } from '../shared/errors.ts';
import { ArtefactExpiredError } from '../shared/artefacts/artefact-store.ts';
import type { ClearanceRecord } from './document.entity.ts';
import type { ExchangeEvidence } from '../../adapters/sdk/index.ts';
import { artefactsOf } from './originals.ts';
import { partBytes } from './receipts.ts';
import type { ArchiveEntry, ArchiveManifest } from './archive.contract.ts';

const PAGE = 50;

interface Row {
  id: string;
  original_sha256: string | null;
  output_sha256: string | null;
  original_content_type: string | null;
  legacy: boolean;
  clearance: ClearanceRecord | null;
  evidence: ExchangeEvidence | null;
}

type ResponseMeta = { $responseType?: string; $responseHeaders?: Record<string, string> };

const EXTENSIONS: Record<string, string> = { 'application/xml': 'xml', 'text/xml': 'xml', 'application/pdf': 'pdf', 'application/json': 'json', 'text/plain': 'txt', 'application/zip': 'zip' };
const extensionOf = (contentType: string): string => EXTENSIONS[contentType.split(';')[0]!.trim().toLowerCase()] ?? 'bin';
/** Already compressed: stored as is rather than deflated again. */
const COMPRESSED = new Set(['pdf', 'zip']);

export async function exportArchive(ctx: Context<{ companyId?: string }>): Promise<Readable> {
  const auth = principalOf(ctx);
  if (auth.companyId && ctx.params.companyId && ctx.params.companyId !== auth.companyId) {
    throw new DomainError('COMPANY_FORBIDDEN', `Company '${ctx.params.companyId}' is not one this credential may act for`);
  }
  const companyId = auth.companyId ?? ctx.params.companyId ?? null;
  const em = emOf(ctx);
  const artefacts = artefactsOf(ctx.broker);
  const namespace = { organizationId: auth.organizationId, livemode: auth.livemode };

  const page = (after: string): Promise<Row[]> => em.fork().execute<Row[]>(
    `select id, original_sha256, output_sha256, original_content_type, (original_content is not null and original_sha256 is null) as legacy, clearance, evidence
     from documents where organization_id = ? and livemode = ?${companyId ? ' and company_id = ?' : ''} and id > ? order by id limit ${PAGE}`,
    [auth.organizationId, auth.livemode, ...(companyId ? [companyId] : []), after], 'all');

  /** A row's artefacts, each read only when its turn comes (one in memory at a time). */
  function artefactsOfRow(row: Row): Array<{ kind: ArchiveEntry['kind']; contentType: string; read: () => Promise<Buffer | null> }> {
    const out: Array<{ kind: ArchiveEntry['kind']; contentType: string; read: () => Promise<Buffer | null> }> = [];
    const contentType = row.original_content_type ?? 'application/octet-stream';
    if (row.original_sha256) out.push({ kind: 'original', contentType, read: () => artefacts.get(namespace, row.original_sha256!) });
    else if (row.legacy) {
      out.push({ kind: 'original', contentType, read: async () => {
        const [legacy] = await em.fork().execute<Array<{ original_content: Buffer | null }>>('select original_content from documents where id = ?', [row.id], 'all');
        return legacy?.original_content ? Buffer.from(legacy.original_content) : null;
      } });
    }
    if (row.output_sha256) out.push({ kind: 'delivered-form', contentType: 'application/pdf', read: () => artefacts.get(namespace, row.output_sha256!) });
    const receipt = row.clearance?.receipt;
    if (receipt) out.push({ kind: 'clearance-receipt', contentType: receipt.contentType, read: () => partBytes(ctx.broker, namespace, receipt.content) });
    const signed = row.clearance?.legalOriginal;
    if (signed) out.push({ kind: 'clearance-original', contentType: signed.contentType, read: () => partBytes(ctx.broker, namespace, signed.content) });
    const networkReceipt = row.evidence?.receipt;
    if (networkReceipt) out.push({ kind: 'exchange-receipt', contentType: 'application/xml', read: () => partBytes(ctx.broker, namespace, networkReceipt) });
    return out;
  }

  async function* zipped(): AsyncGenerator<Uint8Array> {
    let pending: Uint8Array[] = [];
    let failure: Error | null = null;
    const zip = new Zip((err, chunk) => { if (err) failure = err; else pending.push(chunk); });
    const drain = function* (): Generator<Uint8Array> {
      if (failure) throw failure;
      const out = pending;
      pending = [];
      yield* out;
    };
    const add = (path: string, bytes: Uint8Array, compress: boolean): void => {
      const file = compress ? new ZipDeflate(path, { level: 6 }) : new ZipPassThrough(path);
      zip.add(file);
      file.push(bytes, true);
    };
    const entries: ArchiveEntry[] = [];
    const unavailable: ArchiveManifest['unavailable'] = [];
    const expired: ArchiveManifest['expired'] = [];
    let documents = 0;
    for (let rows = await page(''); rows.length; rows = rows.length === PAGE ? await page(rows.at(-1)!.id) : []) {
      for (const row of rows) {
        documents++;
        for (const a of artefactsOfRow(row)) {
          // The answer has begun: an artefact the store cannot give is listed, the archive goes on.
          let bytes: Buffer | null;
          try {
            bytes = await a.read();
          } catch (err) {
            // Deleted at the end of its retention: lawfully gone, said so, and the archive is still complete.
            if (err instanceof ArtefactExpiredError) {
              expired.push({ documentId: row.id, kind: a.kind, expiredAt: err.expiredAt.toISOString() });
              continue;
            }
            unavailable.push({ documentId: row.id, kind: a.kind, error: (err as Error).message });
            continue;
          }
          if (!bytes) continue;
          const ext = extensionOf(a.contentType);
          const path = `documents/${row.id}/${a.kind}.${ext}`;
          entries.push({ path, documentId: row.id, kind: a.kind, sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length, contentType: a.contentType });
          add(path, bytes, !COMPRESSED.has(ext));
          yield* drain();
        }
      }
    }
    const manifest: ArchiveManifest = { organizationId: auth.organizationId, livemode: auth.livemode, companyId, generatedAt: systemClock.now().toISOString(), algorithm: 'SHA-256', documents, artefacts: entries, complete: unavailable.length === 0, unavailable, expired };
    add('manifest.json', Buffer.from(JSON.stringify(manifest, null, 2)), true);
    add('SHA256SUMS', Buffer.from(entries.map((e) => `${e.sha256}  ${e.path}\n`).join('')), true);
    zip.end();
    yield* drain();
  }

  const meta = ctx.meta as ResponseMeta;
  meta.$responseType = 'application/zip';
  meta.$responseHeaders = { 'Content-Disposition': `attachment; filename="archive-${auth.organizationId}-${auth.livemode ? 'live' : 'test'}.zip"` };
  return Readable.from(zipped(), { objectMode: false });
}
