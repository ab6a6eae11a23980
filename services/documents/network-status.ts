/**
 * What the network says of a document after it was delivered (through the connector host's
 * `outbound.statusReceived`): a Peppol MLS, a Peppol Invoice Response, an SDI notification.
 *
 * - Delivery: a rejection fails the document (`AP_REJECTED`, or the network's own code with a
 *   compliance verdict; the reasons as its error message, `document.failed`); an acceptance of a
 *   document still in flight delivers it.
 * - The buyer's answer (`lifecycle`: an Invoice Response, an SDI esito): the seller's copy moves
 *   as if the buyer had posted it (`lifecycle.updated`), when the lifecycle allows that move; an
 *   answer it does not allow (an "in process" after an acceptance) is kept as evidence only.
 * - The tax platform's verdict (`compliance`): `compliance.reported`.
 *
 * Either way the status message's evidence joins the document's. Only the carrying connector's own
 * sent documents can be addressed: by document id, network message id, or (an Invoice Response) the
 * invoice number and issue date sent from the seller's participant id.
 */
import type { Context } from 'moleculer';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { emOf } from '../../mixins/orm.mixin.ts';
import { companyClock } from '../shared/clock.ts';
import { storable } from '../shared/pg-text.ts';
import type { LifecycleAnswer, NetworkStatus } from '../../adapters/sdk/index.ts';
import { Document } from './document.entity.ts';
import { BILLING_TYPES, canMove, FRENCH_STATUSES } from './lifecycle.ts';
import { applyStep, currentPartial, entryFor, failDelivery } from './lifecycle-steps.ts';
import type { DocsThis } from './service-state.ts';

type Params = NetworkStatus & { connectorId: string };

const reasonText = (reasons: NetworkStatus['reasons']): string =>
  reasons.map((r) => [r.code, r.description, r.location && `at ${r.location}`].filter(Boolean).join(' ')).join('; ') || 'no reason given';

/** The buyer's code for each answer (`received` moves nothing: the seller's copy is past it once delivered). */
const BUYER_CODE: Readonly<Record<LifecycleAnswer['status'], string | null>> = {
  received: null, under_review: '204', approved: '205', disputed: '207', rejected: '210', paid: '211',
};

/** The sent document a status is about, locked. */
async function findAddressed(tx: EntityManager, p: Params): Promise<Document | null> {
  const base = { direction: 'outgoing' as const, connectorId: p.connectorId };
  if (p.documentId) return tx.findOne(Document, { ...base, id: p.documentId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (p.messageId) return tx.findOne(Document, { ...base, connectorMessageId: p.messageId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!p.invoice) return null;
  // An invoice number is unique per seller; the newest booked one when an issue date does not settle it.
  const rows = await tx.find(Document, {
    ...base, number: p.invoice.number, senderPeppolId: { $ilike: p.invoice.sellerPeppolId.replace(/[\\%_]/g, '\\$&') },
    ...(p.invoice.issueDate ? { issueDate: p.invoice.issueDate } : {}),
  }, { orderBy: { createdAt: 'desc' }, limit: 1, lockMode: LockMode.PESSIMISTIC_WRITE });
  return rows[0] ?? null;
}

export async function recordNetworkStatus(this: DocsThis, ctx: Context<Params>): Promise<{ documentId: string } | null> {
  const p = ctx.params;
  if (!p.documentId && !p.messageId && !p.invoice) return null;
  return emOf(ctx).fork().transactional(async (tx) => {
    const doc = await findAddressed(tx, p);
    if (!doc) return null;
    const now = (await companyClock(tx, doc.companyId)).now();
    const base = { organizationId: doc.organizationId, companyId: doc.companyId, livemode: doc.livemode };
    const record = (event: Parameters<DocsThis['recordEvent']>[2]) => this.recordEvent(ctx, tx, event);
    const prefix = p.lifecycle ? 'response' : 'status';
    const prefixed = Object.fromEntries(Object.entries(p.evidence).map(([k, v]) => [`${prefix}.${k}`, v]));
    if (doc.evidence) doc.evidence = storable({ ...doc.evidence, details: { ...doc.evidence.details, ...prefixed, [`${prefix}.status`]: p.lifecycle?.status ?? p.status } });

    if (p.status === 'rejected' && doc.deliveryStatus !== 'failed') {
      const code = p.compliance?.code ? `${p.compliance.reportedTo}:${p.compliance.code}` : 'AP_REJECTED';
      const who = p.compliance ? `The ${p.compliance.reportedTo} rejected it` : 'The receiving access point rejected it';
      for (const event of failDelivery(tx, doc, code, storable(`${who}: ${reasonText(p.reasons)}`), now)) await record(event);
    } else if (p.status === 'accepted' && doc.deliveryStatus === 'pending') {
      doc.deliveryStatus = 'delivered';
      doc.deliveredAt = now;
      doc.nextAttemptAt = null;
      await record({ ...base, type: 'document.delivered', data: { documentId: doc.id, deliveredAt: now.toISOString() } });
    }
    if (p.compliance) {
      // A platform that clears through its notifications (the SDI): its verdict is the document's clearance;
      // a refusal frees the invoice number for the corrected send, as any clearance rejection does.
      if (p.compliance.status === 'reported' && doc.clearanceStatus !== 'cleared') {
        doc.clearanceStatus = 'cleared';
        doc.clearance = storable({ status: 'cleared' as const, authorityId: doc.connectorMessageId ?? p.messageId ?? doc.id, at: now.toISOString(), authority: p.compliance.reportedTo, connectorId: p.connectorId, details: p.evidence });
      } else if (p.compliance.status === 'failed' && doc.clearanceStatus !== 'cleared') {
        doc.clearanceStatus = 'rejected';
        doc.clearance = { authority: p.compliance.reportedTo, connectorId: p.connectorId };
      }
      await record({
        ...base, type: 'compliance.reported',
        data: { documentId: doc.id, reportedTo: p.compliance.reportedTo, status: p.compliance.status, connectorId: p.connectorId, ...(p.compliance.code ? { errorCode: `${p.compliance.reportedTo}:${p.compliance.code}` } : {}), ...(p.compliance.message ? { errorMessage: storable(p.compliance.message) } : {}) },
      });
    }
    if (p.lifecycle) {
      // The wire form's own code when it carries one (a CDAR), if it is a buyer's move; else the status's.
      const given = p.lifecycle.code && FRENCH_STATUSES[p.lifecycle.code]?.emittedBy === 'buyer' ? p.lifecycle.code : undefined;
      const code = given ?? BUYER_CODE[p.lifecycle.status];
      if (code && BILLING_TYPES.has(doc.type) && doc.lifecycle.length > 0 && canMove(doc.lifecycleCode ?? null, currentPartial(doc), code, 'buyer')) {
        const a = p.lifecycle;
        const extra = storable({ ...(a.reason ? { reason: a.reason } : {}), ...(a.reasonCode ? { reasonCode: a.reasonCode } : {}), ...(a.note ? { note: a.note } : {}), via: p.connectorId });
        const event = applyStep(tx, doc, entryFor(code, 'buyer', now, extra));
        if (event) await record(event);
      } else if (code) {
        this.logger.info(`${p.connectorId}: the buyer's answer ${p.lifecycle.status} on ${doc.id} does not follow its lifecycle (at ${doc.lifecycleCode ?? 'none'}, ${FRENCH_STATUSES[doc.lifecycleCode ?? '']?.label ?? ''}): kept as evidence only`);
      }
    }
    await tx.flush();
    return { documentId: doc.id };
  });
}
