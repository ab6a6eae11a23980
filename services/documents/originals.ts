/**
 * The documents' artefacts: each document's original (the legal record) lives in the artefact store
 * (services/shared/artefacts), named by its SHA-256 in the document's row. The documents service
 * owns the store's tables and is its only user: the bytes go between this service and the store
 * in-process, never as an extra message over NATS.
 *
 * Writes: the bytes are stored before the transaction that writes the row naming them opens
 * (the store may be a remote object store; no transaction waits on it). A send that fails after
 * leaves bytes nobody names: harmless, content-addressed, and a retry stores nothing new.
 */
import type { ServiceBroker } from 'moleculer';
import type { EntityManager } from '@mikro-orm/postgresql';
import { databaseOf } from '../shared/persistence/database.ts';
import { artefactsFromEnv } from '../shared/artefacts/settings.ts';
import { retainUntil, retentionPolicyFromEnv, type RetentionPolicy } from '../shared/artefacts/retention.ts';
import type { Artefacts } from '../shared/artefacts/artefacts.ts';
import type { ArtefactNamespace } from '../shared/artefacts/artefact-store.ts';
import type { S3BlobBackend } from '../shared/artefacts/s3-blob-backend.ts';
import type { Document } from './document.entity.ts';

interface Store { artefacts: Artefacts; retention: RetentionPolicy }
const stores = new WeakMap<ServiceBroker, Store>();

function storeOf(broker: ServiceBroker): Store {
  let store = stores.get(broker);
  if (!store) {
    store = { artefacts: artefactsFromEnv(databaseOf(broker).em as EntityManager), retention: retentionPolicyFromEnv() };
    stores.set(broker, store);
  }
  return store;
}

/** The broker's artefact store (created from the environment on first use). */
export const artefactsOf = (broker: ServiceBroker): Artefacts => storeOf(broker).artefacts;

/** The retention rule in force (EINV_ARTEFACTS_RETENTION*), read with the store. */
export const retentionPolicyOf = (broker: ServiceBroker): RetentionPolicy => storeOf(broker).retention;

/** Closes the object store's connections (documents service stopped). */
export function releaseArtefacts(broker: ServiceBroker): void {
  const store = stores.get(broker);
  stores.delete(broker);
  (store?.artefacts.primary as Partial<S3BlobBackend> | undefined)?.destroy?.();
}

export const namespaceOf = (doc: Pick<Document, 'organizationId' | 'livemode'>): ArtefactNamespace => ({ organizationId: doc.organizationId, livemode: doc.livemode });

/**
 * Stores a document's original (or the form it was delivered in, a Factur-X PDF) and returns its
 * hash, for the row: kept for the statutory period of the company's country (none for test data).
 */
export async function storeOriginal(broker: ServiceBroker, input: { organizationId: string; livemode: boolean; country: string | null; storedAt: Date; bytes: Uint8Array; contentType: string }): Promise<string> {
  const { artefacts, retention } = storeOf(broker);
  const put = await artefacts.put({
    namespace: namespaceOf(input), bytes: input.bytes, contentType: input.contentType, country: input.country,
    retainUntil: retainUntil(retention, { livemode: input.livemode, country: input.country, storedAt: input.storedAt }),
  });
  return put.sha256;
}

/** A document's original bytes: from the store, or from its row when stored before the store existed. */
export async function originalOf(broker: ServiceBroker, doc: Pick<Document, 'organizationId' | 'livemode' | 'originalSha256' | 'originalContent'>): Promise<Buffer | null> {
  if (doc.originalSha256) return artefactsOf(broker).get(namespaceOf(doc), doc.originalSha256);
  return doc.originalContent ? Buffer.from(doc.originalContent) : null;
}

/** The form a document was delivered in when it is not its original's (outputFormat factur-x), from the store. */
export async function deliveredFormOf(broker: ServiceBroker, doc: Pick<Document, 'organizationId' | 'livemode' | 'outputSha256'>): Promise<Buffer | null> {
  return doc.outputSha256 ? artefactsOf(broker).get(namespaceOf(doc), doc.outputSha256) : null;
}

/**
 * After documents were deleted (their rows gone in a committed transaction): each artefact (an
 * original, a receipt: receipts.ts) no remaining document of the namespace names is deleted through the store, which refuses any still
 * under retention. Returns what could not be deleted (kept, and logged by the caller).
 */
export async function purgeArtefacts(broker: ServiceBroker, em: EntityManager, namespace: ArtefactNamespace, hashes: Iterable<string>): Promise<{ deleted: number; kept: Array<{ sha256: string; reason: string }> }> {
  const artefacts = artefactsOf(broker);
  const out = { deleted: 0, kept: [] as Array<{ sha256: string; reason: string }> };
  for (const sha256 of new Set(hashes)) {
    const ref = `sha256:${sha256}`;
    const named = await em.fork().execute<unknown[]>(
      `select 1 from documents where organization_id = ? and livemode = ?
       and (original_sha256 = ? or output_sha256 = ? or clearance->'receipt'->>'content' = ? or clearance->'legalOriginal'->>'content' = ? or evidence->>'receipt' = ?) limit 1`,
      [namespace.organizationId, namespace.livemode, sha256, sha256, ref, ref, ref], 'all');
    if (named.length) continue;
    try {
      if (await artefacts.delete(namespace, sha256)) out.deleted++;
    } catch (err) {
      out.kept.push({ sha256, reason: (err as Error).message });
    }
  }
  return out;
}
