/**
 * The inbound hand-off (the connector host's `accept`): stores a document for a company of this
 * platform and commits before it answers. The unique index on (connector, network message id)
 * decides between concurrent hand-offs of one message: one document, and every hand-off answers it.
 */
import type { Context } from 'moleculer';
import { emOf } from '../../mixins/orm.mixin.ts';
import { call } from '../shared/call.ts';
import { companyClock } from '../shared/clock.ts';
import { DomainError } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { storable } from '../shared/pg-text.ts';
import { registeredManifests } from '../connectors/adapters.contract.ts';
import { companyOf } from '../tenancy/tenancy.contract.ts';
import type { AcceptResult, InboundDocument } from '../../adapters/sdk/index.ts';
import type { CanonicalInvoice } from '../../mappings/index.ts';
import { Document } from './document.entity.ts';
import { BILLING_TYPES, FRENCH_STATUSES } from './lifecycle.ts';
import { applyStep, entryFor } from './lifecycle-steps.ts';
import { recordedFormat } from './document-views.ts';
import type { DocsThis } from './service-state.ts';

export async function receiveInbound(this: DocsThis, ctx: Context<InboundDocument & { connectorId: string }>): Promise<AcceptResult> {
  const p = ctx.params;
  const em = emOf(ctx);
  const recipient = await call(ctx, companyOf, { organizationId: p.recipient.organizationId, companyId: p.recipient.companyId });
  if (!recipient) throw new DomainError('RECIPIENT_NOT_FOUND', `Company '${p.recipient.companyId}' is not a company of ${p.recipient.organizationId}`);
  const organization = { id: recipient.organizationId };
  if (p.messageId.includes('\u0000')) throw new DomainError('INVALID_REQUEST', 'The network message id contains a NUL byte');
  // A connector hands over documents only for the modes its manifest serves (a test network never fills a live inbox).
  const manifest = registeredManifests(ctx.broker).find((m) => m.id === p.connectorId);
  if (!manifest?.modes.includes(p.livemode ? 'live' : 'test')) throw new DomainError('INVALID_REQUEST', `Connector ${p.connectorId} does not serve ${p.livemode ? 'live' : 'test'} mode`);
  const livemode = p.livemode;
  const normalized = p.payload.normalized ?? null;
  const billing = BILLING_TYPES.has(p.type);
  const canonical = billing && normalized ? (normalized as unknown as CanonicalInvoice) : undefined;
  const now = (await companyClock(em, p.recipient.companyId)).now();
  const id = newId('document');
  // No read first: the unique index on (connector, network message id) decides, so two
  // concurrent hand-offs of one message make one document and both answer it.
  try {
    await em.fork().transactional(async (tx) => {
      const doc = tx.create(Document, {
        id, organizationId: organization.id, companyId: p.recipient.companyId, livemode, direction: 'incoming', type: p.type, documentSubtype: null,
        format: p.payload.xml ? recordedFormat('auto', p.payload.syntax ?? 'ubl-2.1') : 'json',
        number: p.number, issueDate: canonical?.issueDate ?? null, dueDate: canonical?.dueDate ?? null, currency: canonical?.currency ?? null,
        totalAmount: canonical?.totals?.taxInclusive ?? canonical?.totals?.payable ?? null, sellerKey: null,
        senderPeppolId: p.sender.peppolId, senderName: p.sender.name, receiverPeppolId: p.recipient.peppolId, receiverName: p.recipient.name,
        recipient: { ...(p.recipient.peppolId ? { peppolId: p.recipient.peppolId } : {}), companyId: p.recipient.companyId, ...(p.recipient.name ? { name: p.recipient.name } : {}) },
        metadata: null, status: 'received', lifecycleCode: null, lifecycle: [], deliveryStatus: 'received', connectorId: p.connectorId,
        connectorMessageId: p.messageId, evidence: p.evidence ? storable(p.evidence) : null, deliveryAttempts: 0, nextAttemptAt: null, errorCode: null, errorMessage: null, sentAt: null, deliveredAt: now,
        counterpartId: p.messageId, originalContent: Buffer.from(p.payload.content, 'base64'), originalContentType: p.payload.contentType,
        originalFilename: p.payload.filename ?? null, fileId: null, storedFormat: null, xml: p.payload.xml ?? null, xmlSyntax: p.payload.syntax ?? null,
        normalized, hasPdf: p.payload.pdf === true, readAt: null, archivedAt: null, notes: [], relatedDocumentIds: [],
      });
      if (billing) {
        // The buyer's copy shares the history so far: deposited, issued, received, made available.
        doc.lifecycle = ['200', '201', '202'].map((code) => entryFor(code, FRENCH_STATUSES[code]!.emittedBy, now));
        doc.lifecycleCode = '202';
        applyStep(doc, entryFor('203', 'buyer_platform', now)); // its event is document.received, below
      }
      await this.recordEvent(ctx, tx, {
        organizationId: organization.id, companyId: p.recipient.companyId, type: 'document.received', livemode,
        data: { documentId: id, type: p.type, number: p.number, direction: 'incoming', sender: { peppolId: p.sender.peppolId, name: p.sender.name }, receiver: { peppolId: p.recipient.peppolId, name: p.recipient.name } },
      });
      await tx.flush();
    });
  } catch (err) {
    if ((err as { name?: string }).name !== 'UniqueConstraintViolationException') throw err;
    const first = await em.fork().findOne(Document, { $or: [{ connectorId: p.connectorId, connectorMessageId: p.messageId }, { organizationId: organization.id, counterpartId: p.messageId }], direction: 'incoming' }, { fields: ['id'] });
    if (!first) throw err;
    return { documentId: first.id, duplicate: true };
  }

  return { documentId: id, duplicate: false };
}
