/** What a caller may see of the documents: its organization, mode and (for one-company credentials) company. */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Principal } from '../shared/auth.ts';
import { DomainError } from '../shared/errors.ts';
import { Document } from './document.entity.ts';

export function scopeOf(auth: Principal): Record<string, unknown> {
  return { organizationId: auth.organizationId, livemode: auth.livemode, ...(auth.companyId ? { companyId: auth.companyId } : {}) };
}

export async function findDocument(em: EntityManager, auth: Principal, id: string): Promise<Document> {
  const doc = await em.findOne(Document, { id, ...scopeOf(auth) });
  if (!doc) throw new DomainError('DOCUMENT_NOT_FOUND', `Document '${id}' was not found`);
  return doc;
}
