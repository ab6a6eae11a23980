/**
 * `document.updated` for changes other services keep about a document (its tags): the event goes
 * through this service's outbox, in a transaction of its own, after checking the caller sees the
 * document. The tables stay this service's; the change itself lives with the service that made it.
 */
import type { Context } from 'moleculer';
import { emOf } from '../../mixins/orm.mixin.ts';
import { principalOf } from '../shared/auth.ts';
import { findDocument } from './access.ts';
import type { DocsThis } from './service-state.ts';

export async function recordDocumentUpdate(this: DocsThis, ctx: Context<{ id: string; changes: Record<string, unknown> }>): Promise<{ documentId: string }> {
  const auth = principalOf(ctx);
  return emOf(ctx).transactional(async (tx) => {
    const doc = await findDocument(tx, auth, ctx.params.id);
    await this.recordEvent(ctx, tx, { organizationId: doc.organizationId, companyId: doc.companyId, type: 'document.updated', livemode: doc.livemode, data: { documentId: doc.id, changes: ctx.params.changes } });
    await tx.flush();
    return { documentId: doc.id };
  });
}
