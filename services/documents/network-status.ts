/**
 * What the network says of a document after it was delivered (a Peppol MLS, through the connector
 * host's `outbound.statusReceived`): a rejection fails the document (`AP_REJECTED`, the reasons as
 * its error message, `document.failed`); an acceptance of a document still in flight delivers it.
 * Either way the status message's evidence joins the document's. Only the carrying connector's
 * own sent documents can be addressed.
 */
import type { Context } from 'moleculer';
import { LockMode } from '@mikro-orm/core';
import { emOf } from '../../mixins/orm.mixin.ts';
import { companyClock } from '../shared/clock.ts';
import { storable } from '../shared/pg-text.ts';
import type { NetworkStatus } from '../../adapters/sdk/index.ts';
import { Document } from './document.entity.ts';
import { failDelivery } from './lifecycle-steps.ts';
import type { DocsThis } from './service-state.ts';

const reasonText = (reasons: NetworkStatus['reasons']): string =>
  reasons.map((r) => [r.code, r.description, r.location && `at ${r.location}`].filter(Boolean).join(' ')).join('; ') || 'no reason given';

export async function recordNetworkStatus(this: DocsThis, ctx: Context<NetworkStatus & { connectorId: string }>): Promise<{ documentId: string } | null> {
  const p = ctx.params;
  if (!p.documentId && !p.messageId) return null;
  const where = { direction: 'outgoing' as const, connectorId: p.connectorId, ...(p.documentId ? { id: p.documentId } : { connectorMessageId: p.messageId! }) };
  return emOf(ctx).fork().transactional(async (tx) => {
    const doc = await tx.findOne(Document, where, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!doc) return null;
    const now = (await companyClock(tx, doc.companyId)).now();
    const base = { organizationId: doc.organizationId, companyId: doc.companyId, livemode: doc.livemode };
    const prefixed = Object.fromEntries(Object.entries(p.evidence).map(([k, v]) => [`status.${k}`, v]));
    if (doc.evidence) doc.evidence = storable({ ...doc.evidence, details: { ...doc.evidence.details, ...prefixed, 'status.status': p.status } });
    if (p.status === 'rejected' && doc.deliveryStatus !== 'failed') {
      for (const event of failDelivery(doc, 'AP_REJECTED', storable(`The receiving access point rejected it: ${reasonText(p.reasons)}`), now)) await this.recordEvent(ctx, tx, event);
    } else if (p.status === 'accepted' && doc.deliveryStatus === 'pending') {
      doc.deliveryStatus = 'delivered';
      doc.deliveredAt = now;
      doc.nextAttemptAt = null;
      await this.recordEvent(ctx, tx, { ...base, type: 'document.delivered', data: { documentId: doc.id, deliveredAt: now.toISOString() } });
    }
    await tx.flush();
    return { documentId: doc.id };
  });
}
