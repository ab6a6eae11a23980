/**
 * The organization's archive as one download: every artefact of its documents (originals,
 * tax-authority receipts and signed versions, network receipts) in a ZIP, with a manifest giving the
 * SHA-256 of each, so the archive can be checked (and handed to another platform) without trusting
 * this one. An action of the documents service, which owns the artefacts; kept in its own contract
 * module beside documents.contract.ts.
 */
import { defineAction, STRICT_REMOVE } from '../shared/contract.ts';
import type { Readable } from 'node:stream';

/** One entry of manifest.json (and of SHA256SUMS). */
export interface ArchiveEntry {
  /** Path inside the ZIP: `documents/<document id>/<kind>.<ext>`. */
  path: string;
  documentId: string;
  kind: 'original' | 'delivered-form' | 'clearance-receipt' | 'clearance-original' | 'exchange-receipt';
  sha256: string;
  size: number;
  contentType: string;
}

export interface ArchiveManifest {
  organizationId: string;
  livemode: boolean;
  companyId: string | null;
  generatedAt: string;
  algorithm: 'SHA-256';
  documents: number;
  artefacts: ArchiveEntry[];
  /** False when some artefact could not be read (listed in `unavailable`; the rest of the archive is whole). */
  complete: boolean;
  unavailable: Array<{ documentId: string; kind: ArchiveEntry['kind']; error: string }>;
  /** Artefacts deleted at the end of their retention (services/shared/artefacts/sweep.ts): no longer kept, by law. */
  expired: Array<{ documentId: string; kind: ArchiveEntry['kind']; expiredAt: string }>;
}

export const exportArchive = defineAction<{ companyId?: string }, Readable>('documents', 'exportArchive', {
  params: { ...STRICT_REMOVE, companyId: { type: 'string', optional: true, min: 1, max: 64 } },
  http: {
    method: 'GET', path: '/v1/archive/export', access: 'documents.read', tag: 'Documents',
    summary: 'The archive of the caller\'s documents (its mode; one company with `companyId`, or the credential\'s own) as a streamed ZIP: each artefact at documents/<id>/<kind>.<ext> (original, delivered-form (the Factur-X PDF a send asked to travel as), clearance-receipt, clearance-original, exchange-receipt), then manifest.json (organization, mode, time, each artefact\'s path, document, kind, SHA-256, size and content type; `complete: false` with `unavailable` listing any artefact the store could not give; `expired` lists those deleted at the end of their retention period) and SHA256SUMS (checkable with `sha256sum -c`)',
    responseMediaType: 'application/zip', response: { type: 'string', format: 'binary' },
  },
});
