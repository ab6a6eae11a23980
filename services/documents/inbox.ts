/**
 * The inbound hand-off (the connector host's `accept`): stores a document for a company of this
 * platform and commits before it answers. The unique index on (connector, network message id)
 * decides between concurrent hand-offs of one message: one document, and every hand-off answers it.
 * Another message carrying the same business document (the same SBDH instance id from the same
 * sender, or the same seller, type, number and issue date for the same company and mode) is stored
 * too, as a duplicate of the booked copy: status `duplicate`, `duplicateOf`, no lifecycle, and
 * `document.duplicate_received` instead of `document.received`.
 */
import type { Context } from 'moleculer';
import type { EntityManager } from '@mikro-orm/postgresql';
import { emOf } from '../../mixins/orm.mixin.ts';
import { call } from '../shared/call.ts';
import { companyClock } from '../shared/clock.ts';
import { DomainError, specCodeOf } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { storable } from '../shared/pg-text.ts';
import { registeredManifests } from '../connectors/adapters.contract.ts';
import { companyOf } from '../tenancy/tenancy.contract.ts';
import { validate } from '../validation/validation.contract.ts';
import type { AcceptResult, ConnectorManifest, InboundDocument } from '../../adapters/sdk/index.ts';
import type { CanonicalInvoice } from '../../mappings/index.ts';
import { Document } from './document.entity.ts';
import type { ReceivedValidation } from './documents.contract.ts';
import { BILLING_TYPES, FRENCH_STATUSES } from './lifecycle.ts';
import { applyStep, entryFor } from './lifecycle-steps.ts';
import { pdfCopyOf } from './pdf-copy.ts';
import { artefactsOf, storeOriginal } from './originals.ts';
import { storedEvidence } from './receipts.ts';
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
  // A purchase order's own headline facts (mappings/ubl-order): its total is what payments count against.
  const order = p.type === 'purchase-order' && normalized ? (normalized as { issueDate?: unknown; currency?: unknown; totals?: { payable?: unknown } }) : undefined;
  const orderTotal = typeof order?.totals?.payable === 'number' ? order.totals.payable.toFixed(2) : null;
  // Validated as it came, before any transaction opens (a remote call to the validation workers);
  // an invalid document is stored all the same: the verdict is recorded with it.
  const validation = billing && p.payload.xml ? await validationOf(ctx, p.payload.xml, p.payload.syntax, manifest.network) : null;
  const now = (await companyClock(em, p.recipient.companyId)).now();
  const id = newId('document');
  const keys = businessKeys(p, canonical, billing);
  // The legal record goes to the artefact store before any transaction opens (originals.ts).
  const originalSha256 = await storeOriginal(this.broker, { organizationId: organization.id, livemode, country: recipient.country ?? null, storedAt: now, bytes: Buffer.from(p.payload.content, 'base64'), contentType: p.payload.contentType });
  const evidence = p.evidence ? storable(await storedEvidence(artefactsOf(this.broker), { organizationId: organization.id, livemode, originalSha256 }, p.evidence)) : null;
  // No read of the message id first: the unique index on (connector, network message id) decides, so
  // two concurrent hand-offs of one message make one document and both answer it. A different
  // message carrying a booked business document is stored as its duplicate; the unique partial
  // indexes over booked copies decide between two copies arriving at once (the loser retries, and
  // its read then finds the winner).
  for (let attempt = 1; ; attempt++) {
    const original = await bookedOriginal(em.fork(), p.recipient.companyId, livemode, p.type, p.sender.peppolId, keys);
    try {
      await em.fork().transactional(async (tx) => {
        const doc = tx.create(Document, {
          id, organizationId: organization.id, companyId: p.recipient.companyId, livemode, direction: 'incoming', type: p.type, documentSubtype: null,
          format: p.payload.xml ? recordedFormat('auto', p.payload.syntax ?? 'ubl-2.1') : 'json',
          number: p.number, issueDate: canonical?.issueDate ?? (typeof order?.issueDate === 'string' && order.issueDate ? order.issueDate : null), dueDate: canonical?.dueDate ?? null,
          currency: canonical?.currency ?? (typeof order?.currency === 'string' ? order.currency : null),
          totalAmount: canonical?.totals?.taxInclusive ?? canonical?.totals?.payable ?? orderTotal, sellerKey: keys.sellerKey,
          senderPeppolId: p.sender.peppolId, senderName: p.sender.name, receiverPeppolId: p.recipient.peppolId, receiverName: p.recipient.name,
          recipient: { ...(p.recipient.peppolId ? { peppolId: p.recipient.peppolId } : {}), companyId: p.recipient.companyId, ...(p.recipient.name ? { name: p.recipient.name } : {}) },
          metadata: null, status: original ? 'duplicate' : 'received', lifecycleCode: null, lifecycle: [], deliveryStatus: 'received', connectorId: p.connectorId,
          connectorMessageId: p.messageId, evidence, instanceIdentifier: keys.instanceIdentifier, duplicateOf: original?.id ?? null,
          deliveryAttempts: 0, nextAttemptAt: null, errorCode: null, errorMessage: null, sentAt: null, deliveredAt: now,
          counterpartId: p.messageId, originalSha256, originalContent: null, originalContentType: p.payload.contentType,
          originalFilename: p.payload.filename ?? null, fileId: null, storedFormat: null, xml: p.payload.xml ?? null, xmlSyntax: p.payload.syntax ?? null,
          normalized, validation, hasPdf: p.payload.pdf === true, pdfCopy: p.payload.pdf !== true && pdfCopyOf(normalized) !== null, readAt: null, archivedAt: null, notes: [], relatedDocumentIds: [],
        });
        const parties = { direction: 'incoming', sender: { peppolId: p.sender.peppolId, name: p.sender.name }, receiver: { peppolId: p.recipient.peppolId, name: p.recipient.name } };
        if (original) {
          // Kept (nothing accepted is lost) but not booked: no lifecycle of its own, no 203, no document.received.
          await this.recordEvent(ctx, tx, {
            organizationId: organization.id, companyId: p.recipient.companyId, type: 'document.duplicate_received', livemode,
            data: { documentId: id, duplicateOf: original.id, matchedOn: original.matchedOn, type: p.type, number: p.number, ...parties },
          });
        } else {
          if (billing) {
            // The buyer's copy shares the history so far: deposited, issued, received, made available.
            doc.lifecycle = ['200', '201', '202'].map((code) => entryFor(code, FRENCH_STATUSES[code]!.emittedBy, now));
            doc.lifecycleCode = '202';
            applyStep(tx, doc, entryFor('203', 'buyer_platform', now)); // its event is document.received, below
          }
          await this.recordEvent(ctx, tx, {
            organizationId: organization.id, companyId: p.recipient.companyId, type: 'document.received', livemode,
            data: { documentId: id, type: p.type, number: p.number, ...parties },
          });
        }
        await tx.flush();
      });
      return { documentId: id, duplicate: false, ...(validation ? { validation: { valid: validation.valid, findings: validation.findings } } : {}) };
    } catch (err) {
      if ((err as { name?: string }).name !== 'UniqueConstraintViolationException') throw err;
      const first = await em.fork().findOne(Document, { $or: [{ connectorId: p.connectorId, connectorMessageId: p.messageId }, { organizationId: organization.id, counterpartId: p.messageId }], direction: 'incoming' }, { fields: ['id'] });
      if (first) return { documentId: first.id, duplicate: true };
      // Another copy of the business document was booked meanwhile: read it and store this one as its duplicate.
      if (original || attempt >= 3) throw err;
    }
  }
}

/** What makes two network messages the same business document (null: that key is unknown). */
export interface BusinessKeys {
  /** SBDH InstanceIdentifier, with the sender's Peppol id. */
  instanceIdentifier: string | null;
  /** Billing documents with a number and an issue date: the seller (VAT, else its electronic address, else the network sender). */
  sellerKey: string | null;
  number: string | null;
  issueDate: string | null;
}

/** A value usable as a key column as it is (an index entry compares the stored value exactly). */
const keyable = (s: string | null | undefined): string | null => (typeof s === 'string' && s.trim() !== '' && s.length <= 255 && !s.includes('\u0000') ? s : null);

export function businessKeys(p: InboundDocument, canonical: CanonicalInvoice | undefined, billing: boolean): BusinessKeys {
  const instanceIdentifier = p.sender.peppolId ? keyable(p.evidence?.instanceIdentifier) : null;
  // The stored columns, exactly: the hand-off's number and the canonical issue date.
  const number = keyable(p.number);
  const issueDate = keyable(canonical?.issueDate);
  const seller = canonical?.seller;
  const vat = seller?.vatId ? keyable(`VAT:${seller.vatId.replace(/[\s.-]/g, '').toUpperCase()}`) : null;
  const address = seller?.electronicAddress?.value ? keyable(`EA:${seller.electronicAddress.scheme ?? ''}:${seller.electronicAddress.value}`.toLowerCase()) : null;
  const sender = p.sender.peppolId ? keyable(`EA:${p.sender.peppolId}`.toLowerCase()) : null;
  const sellerKey = billing && number && issueDate ? (vat ?? address ?? sender) : null;
  return { instanceIdentifier, sellerKey, number: sellerKey ? number : null, issueDate: sellerKey ? issueDate : null };
}

/** The booked incoming copy this business document repeats, if any (an index probe on either unique partial index). */
async function bookedOriginal(em: EntityManager, companyId: string, livemode: boolean, type: string, senderPeppolId: string | null, k: BusinessKeys): Promise<{ id: string; matchedOn: 'instance_identifier' | 'seller_number_issue_date' } | null> {
  const byInstance = k.instanceIdentifier && senderPeppolId ? { senderPeppolId, instanceIdentifier: k.instanceIdentifier } : null;
  const byNumber = k.sellerKey ? { sellerKey: k.sellerKey, type, number: k.number, issueDate: k.issueDate } : null;
  const or = [byInstance, byNumber].filter((x) => x !== null);
  if (or.length === 0) return null;
  const found = await em.find(Document, { companyId, livemode, direction: 'incoming', duplicateOf: null, $or: or }, { fields: ['id', 'senderPeppolId', 'instanceIdentifier'], orderBy: { createdAt: 'asc' }, limit: 2 });
  const first = found.find((d) => byInstance && d.instanceIdentifier === byInstance.instanceIdentifier && d.senderPeppolId === senderPeppolId) ?? found[0];
  if (!first) return null;
  return { id: first.id, matchedOn: byInstance && first.instanceIdentifier === byInstance.instanceIdentifier && first.senderPeppolId === senderPeppolId ? 'instance_identifier' : 'seller_number_issue_date' };
}

/** How many findings a received document keeps with it (its full report is one POST /v1/documents/validate away). */
const KEPT_FINDINGS = 50;

/**
 * The rules' verdict on a received document: the packs its CustomizationID selects plus the network's
 * own (a Peppol connector's documents pass the Peppol rules). A document the validator refuses
 * outright (not well formed, too complex) is invalid with that reason; when the validator cannot
 * run (its workers busy or gone) the document is stored unvalidated (null) rather than refused.
 */
async function validationOf(ctx: Context, xml: string, syntax: string | undefined, network: ConnectorManifest['network']): Promise<ReceivedValidation | null> {
  try {
    const r = await call(ctx, validate, { format: syntax?.startsWith('cii') ? 'cii-xml' : 'ubl-xml', xml, ...(network ? { network } : {}) });
    const errors = r.findings.filter((f) => f.severity === 'fatal').length;
    const kept = r.findings.slice(0, KEPT_FINDINGS).map((f) => ({ rule: f.rule, severity: f.severity, message: f.message, location: f.location }));
    return storable({ valid: r.valid, packs: r.packs, errors, warnings: r.findings.length - errors, findings: kept });
  } catch (err) {
    const code = specCodeOf(err);
    if (!code || code === 'UPSTREAM_UNAVAILABLE') {
      ctx.broker.logger.warn(`documents: a received document is stored unvalidated: ${(err as Error).message}`);
      return null;
    }
    return storable({ valid: false, packs: [], errors: 1, warnings: 0, findings: [{ rule: code, severity: 'fatal', message: (err as Error).message, location: '' }] });
  }
}
