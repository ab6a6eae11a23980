/**
 * Bytes in PostgreSQL (`artefact_contents`, bytea): the embedded default, nothing more to run. The
 * table belongs to the documents service, the only service that stores artefacts today.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { namespaceKey, type ArtefactNamespace } from './artefact-store.ts';
import type { BlobBackend } from './blob-backend.ts';

export class PgBlobBackend implements BlobBackend {
  readonly location = 'pg' as const;
  private readonly em: EntityManager;

  /** `em`: the service's root EntityManager; each statement runs on a fork of it, in no transaction. */
  constructor(em: EntityManager) {
    this.em = em;
  }

  async write(ns: ArtefactNamespace, sha256: string, bytes: Uint8Array): Promise<void> {
    await this.em.fork().execute(
      // Stored already: only its time is renewed (never its bytes), so the sweep of unnamed bytes
      // (sweep.ts) cannot take bytes a put is about to name.
      'insert into artefact_contents (namespace, sha256, content, created_at) values (?, ?, ?, now()) on conflict (namespace, sha256) do update set created_at = now()',
      [namespaceKey(ns), sha256, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)], 'run');
  }

  async read(ns: ArtefactNamespace, sha256: string): Promise<Buffer | null> {
    const rows = await this.em.fork().execute<Array<{ content: Buffer }>>(
      'select content from artefact_contents where namespace = ? and sha256 = ?', [namespaceKey(ns), sha256], 'all');
    return rows[0] ? Buffer.from(rows[0].content) : null;
  }

  async remove(ns: ArtefactNamespace, sha256: string): Promise<void> {
    await this.em.fork().execute('delete from artefact_contents where namespace = ? and sha256 = ?', [namespaceKey(ns), sha256], 'run');
  }
}
