/**
 * Moves existing artefacts into the configured store (scripts/artefacts-migrate.ts runs it):
 *
 * 1. originals still in `documents.original_content` (stored before the artefact store): each is
 *    put in the store, read back and checked against its SHA-256, and only then does its row name
 *    it by hash and drop the blob, in one statement that also checks the blob is the one copied;
 * 2. receipts still base64 inside `documents.clearance` / `documents.evidence` (receipts.ts): each
 *    stored, read back and compared, then the JSON names it `sha256:<hex>`, swapped only if the
 *    row's JSON is still the one read;
 * 3. artefacts whose bytes are in PostgreSQL while an object store is configured: relocated
 *    (copied, read back and checked, then the index points at the object store).
 *
 * Idempotent and resumable: a row already moved is not selected again, a run stopped halfway
 * continues where rows still wait. One failing row is reported and the others go on. No
 * transaction is held across the store: each row is copied first, then swapped.
 *
 * Legacy originals are kept for the default (longest) retention, counted from their document's
 * creation: the country is tenancy's to tell, and an overlong period never deletes anything early.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Artefacts } from '../shared/artefacts/artefacts.ts';
import { retainUntil, type RetentionPolicy } from '../shared/artefacts/retention.ts';
import type { ExchangeEvidence } from '../../adapters/sdk/index.ts';
import type { ClearanceRecord } from './document.entity.ts';
import { referencedHash, storedClearance, storedEvidence } from './receipts.ts';

export interface MigrationReport {
  originals: { moved: number; failed: Array<{ documentId: string; error: string }> };
  /** Documents whose inline receipts were moved. */
  receipts: { moved: number; failed: Array<{ documentId: string; error: string }> };
  relocated: { moved: number; failed: Array<{ namespace: string; sha256: string; error: string }> };
}

/** A receipt still inline: present and not yet a `sha256:` reference. */
const INLINE = [`clearance->'receipt'->>'content'`, `clearance->'legalOriginal'->>'content'`, `evidence->>'receipt'`].map((path) => `(${path} is not null and ${path} not like 'sha256:%')`);

interface InlineRow { id: string; organization_id: string; livemode: boolean; original_sha256: string | null; clearance: ClearanceRecord | null; evidence: ExchangeEvidence | null }

async function moveReceipts(em: EntityManager, artefacts: Artefacts, row: InlineRow): Promise<void> {
  const owner = { organizationId: row.organization_id, livemode: row.livemode, originalSha256: row.original_sha256 };
  const clearance = row.clearance ? await storedClearance(artefacts, owner, row.clearance) : null;
  const evidence = row.evidence ? await storedEvidence(artefacts, owner, row.evidence) : null;
  // Each stored part read back (get checks its hash) and compared with the base64 it replaces.
  const pairs: Array<[string | undefined, string | undefined]> = [
    [row.clearance?.receipt?.content, clearance?.receipt?.content], [row.clearance?.legalOriginal?.content, clearance?.legalOriginal?.content], [row.evidence?.receipt, evidence?.receipt],
  ];
  for (const [inline, reference] of pairs) {
    const hash = referencedHash(reference);
    if (!inline || !hash || inline === reference) continue;
    if (!(await artefacts.get(owner, hash)).equals(Buffer.from(inline, 'base64'))) throw new Error(`the store gave back other bytes for ${hash}`);
  }
  const swapped = await em.fork().execute<Array<{ id: string }>>(
    `update documents set clearance = ?::jsonb, evidence = ?::jsonb
     where id = ? and clearance is not distinct from ?::jsonb and evidence is not distinct from ?::jsonb returning id`,
    [json(clearance), json(evidence), row.id, json(row.clearance), json(row.evidence)], 'all');
  if (!swapped.length) throw new Error('the document\'s receipts changed while they were copied; run again');
}

const json = (value: unknown): string | null => (value == null ? null : JSON.stringify(value));

interface LegacyRow { id: string; organization_id: string; livemode: boolean; original_content_type: string | null; created_at: Date }

export async function migrateArtefacts(em: EntityManager, artefacts: Artefacts, retention: RetentionPolicy, options: { batch?: number; onProgress?: (report: MigrationReport) => void } = {}): Promise<MigrationReport> {
  const batch = Math.max(1, Math.min(options.batch ?? 100, 1000));
  const report: MigrationReport = { originals: { moved: 0, failed: [] }, receipts: { moved: 0, failed: [] }, relocated: { moved: 0, failed: [] } };

  for (let after = ''; ;) {
    const rows = await em.fork().execute<LegacyRow[]>(
      `select id, organization_id, livemode, original_content_type, created_at from documents
       where original_content is not null and original_sha256 is null and id > ? order by id limit ${batch}`, [after], 'all');
    if (!rows.length) break;
    for (const row of rows) {
      try {
        await moveOriginal(em, artefacts, retention, row);
        report.originals.moved++;
      } catch (err) {
        report.originals.failed.push({ documentId: row.id, error: (err as Error).message });
      }
    }
    after = rows.at(-1)!.id;
    options.onProgress?.(report);
  }

  for (let after = ''; ;) {
    const rows = await em.fork().execute<InlineRow[]>(
      `select id, organization_id, livemode, original_sha256, clearance, evidence from documents
       where id > ? and (${INLINE.join(' or ')}) order by id limit ${batch}`, [after], 'all');
    if (!rows.length) break;
    for (const row of rows) {
      try {
        await moveReceipts(em, artefacts, row);
        report.receipts.moved++;
      } catch (err) {
        report.receipts.failed.push({ documentId: row.id, error: (err as Error).message });
      }
    }
    after = rows.at(-1)!.id;
    options.onProgress?.(report);
  }

  for (let after = { namespace: '', sha256: '' }; ;) {
    const rows = await artefacts.elsewhere(batch, after);
    if (!rows.length) break;
    for (const row of rows) {
      const [organizationId, mode] = row.namespace.split('/');
      try {
        await artefacts.relocate({ organizationId: organizationId!, livemode: mode === 'live' }, row.sha256);
        report.relocated.moved++;
      } catch (err) {
        report.relocated.failed.push({ ...row, error: (err as Error).message });
      }
    }
    after = rows.at(-1)!;
    options.onProgress?.(report);
  }
  return report;
}

async function moveOriginal(em: EntityManager, artefacts: Artefacts, retention: RetentionPolicy, row: LegacyRow): Promise<void> {
  const [blob] = await em.fork().execute<Array<{ original_content: Buffer }>>('select original_content from documents where id = ? and original_sha256 is null and original_content is not null', [row.id], 'all');
  if (!blob) return; // moved meanwhile by another run
  const bytes = Buffer.from(blob.original_content);
  const namespace = { organizationId: row.organization_id, livemode: row.livemode };
  const { sha256 } = await artefacts.put({
    namespace, bytes, contentType: row.original_content_type ?? 'application/octet-stream', country: null,
    retainUntil: retainUntil(retention, { livemode: row.livemode, country: null, storedAt: new Date(row.created_at) }),
  });
  // Read back from the store (get checks the bytes against the hash) before the row lets go of its copy.
  const stored = await artefacts.get(namespace, sha256);
  if (!stored.equals(bytes)) throw new Error(`the store gave back other bytes for ${sha256}`);
  const swapped = await em.fork().execute<Array<{ id: string }>>(
    `update documents set original_sha256 = ?, original_content = null
     where id = ? and original_sha256 is null and sha256(original_content) = decode(?, 'hex') returning id`, [sha256, row.id, sha256], 'all');
  if (!swapped.length) throw new Error('the document\'s original changed or moved while it was copied; run again');
}
