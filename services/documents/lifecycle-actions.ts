/**
 * The lifecycle and document actions callers take (POST …/lifecycle, POST …/actions): each locks
 * the document and its counterpart on this platform, applies the step to both, and records the
 * events in the same transaction.
 */
import type { Context } from 'moleculer';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { emOf } from '../../mixins/orm.mixin.ts';
import { principalOf, type Principal } from '../shared/auth.ts';
import { companyClock } from '../shared/clock.ts';
import { DomainError } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { Document, type LifecycleEntry } from './document.entity.ts';
import { BILLING_TYPES, FRENCH_STATUSES, allowedTransitions, canMove, resolveTransition } from './lifecycle.ts';
import { applyStep, currentPartial, entryFor, partyOf } from './lifecycle-steps.ts';
import { findDocument } from './access.ts';
import { documentView } from './document-views.ts';
import { issue, missing } from './document-errors.ts';
import type { DocsThis } from './service-state.ts';
import type { ActionParams, DocumentView, LifecycleView, TransitionParams } from './documents.contract.ts';


/** BT-109, the total without VAT, from the normalised document (null for documents without one). */
function netTotalOf(doc: Document): number | null {
  const net = (doc.normalized as { totals?: { taxExclusive?: unknown } } | null | undefined)?.totals?.taxExclusive;
  return net === undefined || net === null || Number.isNaN(Number(net)) ? null : Number(net);
}

export function lifecycleView(doc: Document): LifecycleView {
  const party = partyOf(doc);
  const billing = BILLING_TYPES.has(doc.type) && doc.lifecycle.length > 0;
  return {
    documentId: doc.id,
    status: doc.status,
    currentCode: doc.lifecycleCode ?? null,
    party,
    history: doc.lifecycle as unknown as Array<Record<string, unknown>>,
    allowedTransitions: billing ? allowedTransitions(doc.lifecycleCode ?? null, currentPartial(doc), party) : [],
  };
}

function invalidTransition(doc: Document, message: string): DomainError {
  return new DomainError('INVALID_TRANSITION', message, { extra: { currentStatus: doc.status, currentCode: doc.lifecycleCode ?? null, allowedTransitions: lifecycleView(doc).allowedTransitions } });
}

/**
 * Loads a document and its counterpart on this platform (the other party's copy) and locks both,
 * always in id order, so a buyer and a supplier moving the same invoice at once never deadlock.
 */
async function lockWithCounterpart(tx: EntityManager, auth: Principal, id: string): Promise<{ doc: Document; counterpart: Document | null }> {
  const seen = await findDocument(tx, auth, id);
  const otherId = seen.counterpartId ?? (await tx.findOne(Document, { counterpartId: seen.id }))?.id ?? null;
  const ids = [seen.id, ...(otherId ? [otherId] : [])].sort();
  const rows = await tx.find(Document, { id: { $in: ids } }, { lockMode: LockMode.PESSIMISTIC_WRITE, orderBy: { id: 'asc' }, refresh: true });
  const doc = rows.find((r) => r.id === seen.id)!;
  return { doc, counterpart: rows.find((r) => r.id !== seen.id) ?? null };
}

/** Applies a step to a document and to its counterpart; lifecycle.updated on both sides. */
async function applyEverywhere(this: DocsThis, ctx: Context, tx: EntityManager, doc: Document, counterpart: Document | null, entry: LifecycleEntry): Promise<void> {
  for (const event of [applyStep(tx, doc, entry), counterpart ? applyStep(tx, counterpart, { ...entry }) : null]) {
    if (event) await this.recordEvent(ctx, tx, event);
  }
}

export async function postLifecycle(this: DocsThis, ctx: Context<TransitionParams>): Promise<LifecycleView> {
  const auth = principalOf(ctx);
  return emOf(ctx).transactional(async (tx) => {
    const { doc, counterpart } = await lockWithCounterpart(tx, auth, ctx.params.id);
    if (doc.duplicateOf) throw invalidTransition(doc, `Document ${doc.id} is a duplicate of ${doc.duplicateOf} and is not booked; move the original`);
    if (!BILLING_TYPES.has(doc.type) || doc.lifecycle.length === 0) throw invalidTransition(doc, `A ${doc.type} sent as ${doc.format} has no French lifecycle`);
    const party = partyOf(doc);
    const total = doc.totalAmount === null || doc.totalAmount === undefined ? null : Number(doc.totalAmount);
    const res = resolveTransition(ctx.params, party, total, netTotalOf(doc));
    if (!res.ok) {
      const code = res.rule === 'required' ? 'MISSING_FIELD' : 'INVALID_REQUEST';
      if (res.rule === 'party') throw invalidTransition(doc, res.message);
      throw new DomainError(code, res.message, { details: [issue(res.field, res.rule, res.message)] });
    }
    if (!canMove(doc.lifecycleCode ?? null, currentPartial(doc), res.code, party)) {
      const target = FRENCH_STATUSES[res.code]!;
      throw invalidTransition(doc, `Cannot move from ${doc.lifecycleCode} (${FRENCH_STATUSES[doc.lifecycleCode ?? '']?.label ?? 'none'}) to ${res.code} (${target.label}) as the ${party}`);
    }
    const p = ctx.params;
    const now = (await companyClock(tx, doc.companyId)).now();
    const extra: Partial<LifecycleEntry> = {};
    if (p.reason) extra.reason = p.reason;
    if (p.reasonCode) extra.reasonCode = p.reasonCode;
    if (p.note) extra.note = p.note;
    if (Object.keys(res.amounts).length) extra.amounts = res.amounts;
    if (p.paymentDate) extra.paymentDate = p.paymentDate;
    if (p.paymentReference) extra.paymentReference = p.paymentReference;
    if (p.paymentCurrency) extra.paymentCurrency = p.paymentCurrency;
    if (res.partial) extra.partial = true;
    await applyEverywhere.call(this, ctx, tx, doc, counterpart, entryFor(res.code, party, now, extra));
    await tx.flush();
    return lifecycleView(doc);
  });
}

export async function documentAction(this: DocsThis, ctx: Context<ActionParams>): Promise<DocumentView> {
  const auth = principalOf(ctx);
  const p = ctx.params;
  return emOf(ctx).transactional(async (tx) => {
    const { doc, counterpart } = await lockWithCounterpart(tx, auth, p.id);
    const now = (await companyClock(tx, doc.companyId)).now();
    const changes: Record<string, unknown> = {};
    if (p.relatedDocumentId) {
      const related = await tx.findOne(Document, { id: p.relatedDocumentId, organizationId: auth.organizationId, livemode: auth.livemode });
      if (!related) throw new DomainError('DOCUMENT_NOT_FOUND', `Related document '${p.relatedDocumentId}' was not found`, { details: [issue('relatedDocumentId', 'exists', 'not a document of this organization')] });
    }
    switch (p.action) {
      case 'link':
        if (!p.relatedDocumentId) throw missing('relatedDocumentId', 'action=link needs relatedDocumentId');
        if (!doc.relatedDocumentIds.includes(p.relatedDocumentId)) {
          changes.relatedDocumentIds = { from: doc.relatedDocumentIds, to: [...doc.relatedDocumentIds, p.relatedDocumentId] };
          doc.relatedDocumentIds = [...doc.relatedDocumentIds, p.relatedDocumentId];
        }
        break;
      case 'add-note': {
        const text = p.note ?? (p.relatedDocumentId ? `Completed by ${p.relatedDocumentId}` : undefined);
        if (!text) throw missing('note', 'action=add-note needs note');
        const note = { id: newId('note'), text, at: now.toISOString() };
        doc.notes = [...doc.notes, note];
        changes.notes = { added: note };
        if (p.relatedDocumentId && !doc.relatedDocumentIds.includes(p.relatedDocumentId)) {
          changes.relatedDocumentIds = { from: doc.relatedDocumentIds, to: [...doc.relatedDocumentIds, p.relatedDocumentId] };
          doc.relatedDocumentIds = [...doc.relatedDocumentIds, p.relatedDocumentId];
        }
        break;
      }
      case 'mark-read':
      case 'mark-unread': {
        const read = p.action === 'mark-read';
        if ((doc.readAt != null) !== read) { changes.read = { from: !read, to: read }; doc.readAt = read ? now : null; }
        break;
      }
      case 'archive':
      case 'unarchive': {
        const archived = p.action === 'archive';
        if ((doc.archivedAt != null) !== archived) { changes.archived = { from: !archived, to: archived }; doc.archivedAt = archived ? now : null; }
        break;
      }
    }
    // A link or note naming the completing document lifts a suspension (208 → 209), by the supplier.
    if ((p.action === 'link' || p.action === 'add-note') && p.relatedDocumentId && doc.lifecycleCode === '208') {
      if (partyOf(doc) !== 'supplier') throw invalidTransition(doc, 'Only the supplier completes a suspended invoice (209)');
      await applyEverywhere.call(this, ctx, tx, doc, counterpart, entryFor('209', 'supplier', now, { relatedDocumentId: p.relatedDocumentId }));
      changes.lifecycleCode = { from: '208', to: '209' };
    }
    if (Object.keys(changes).length) {
      await this.recordEvent(ctx, tx, { organizationId: auth.organizationId, companyId: doc.companyId, type: 'document.updated', livemode: doc.livemode, data: { documentId: doc.id, changes } });
    }
    await tx.flush();
    return documentView(doc);
  });
}
