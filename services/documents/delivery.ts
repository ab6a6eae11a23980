/**
 * Delivery on the scheduler: claim the job (done by the scheduler), call the document's connector
 * outside any transaction (at most its concurrency at once), then record the outcome with its
 * lifecycle steps and events. Transient failures are re-sent on a doubling schedule.
 */
import type { Service, ServiceBroker } from 'moleculer';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { recordEvent, type OutboxEventInput } from '../../mixins/outbox.mixin.ts';
import { OUTBOX_WRITTEN_EVENT } from '../events/events.contract.ts';
import { completeJobs, releaseJobs, rescheduleJob, type ClaimedJob } from '../shared/scheduler/scheduler.ts';
import { call } from '../shared/call.ts';
import { companyClock } from '../shared/clock.ts';
import { storable } from '../shared/pg-text.ts';
import { adapterContracts, registeredManifests } from '../connectors/adapters.contract.ts';
import { connectorSettings } from '../shared/connector-settings.ts';
import type { Clearance, OutboundMessage, Participant, SendResult, StatusResult } from '../../adapters/sdk/index.ts';
import { Document, type LifecycleEntry } from './document.entity.ts';
import { BILLING_TYPES } from './lifecycle.ts';
import { applyStep, entryFor, failDelivery } from './lifecycle-steps.ts';
import { ConnectorSlots } from './connector-slots.ts';
import { deliveredFormOf, originalOf } from './originals.ts';
import { withStoredReceipts } from './receipts.ts';
import { connectorCallTimeoutMs, retryDelayMs } from './connector-timing.ts';
import { countMetric, observeSeconds } from '../shared/metrics.ts';

export const DELIVER_JOB = 'document.deliver';
/** A temporary transport failure is re-sent automatically up to this many times (spec: TRANSPORT_FAILURE). */
export const MAX_RESENDS = 5;

/**
 * What travels: the original, or the form the sender asked for (a Factur-X PDF, which then travels
 * like a hybrid deposit: the PDF as content, its CII as `xml`). Both come from the artefact store.
 */
async function payloadOf(broker: ServiceBroker, doc: Document): Promise<OutboundMessage['payload']> {
  const delivered = doc.outputFormat === 'factur-x' ? await deliveredFormOf(broker, doc) : null;
  if (delivered) {
    return {
      content: delivered.toString('base64'),
      contentType: 'application/pdf',
      filename: `${(doc.number ?? doc.id).replace(/[^\w.-]+/g, '_')}.pdf`,
      ...(doc.xml ? { xml: doc.xml, syntax: doc.xmlSyntax ?? undefined } : {}),
      ...(doc.normalized ? { normalized: doc.normalized } : {}),
      pdf: true,
    } as OutboundMessage['payload'];
  }
  const original = await originalOf(broker, doc);
  return {
    content: (original ?? Buffer.alloc(0)).toString('base64'),
    contentType: doc.originalContentType ?? 'application/octet-stream',
    ...(doc.originalFilename ? { filename: doc.originalFilename } : {}),
    ...(doc.xml ? { xml: doc.xml, syntax: doc.xmlSyntax ?? undefined } : {}),
    ...(doc.normalized ? { normalized: doc.normalized } : {}),
    ...(doc.hasPdf ? { pdf: true } : {}),
  } as OutboundMessage['payload'];
}

/** A claimed job's first wave of outcomes is awaited this long; slower ones are recorded when they end. */
const FIRST_WAVE_MS = 500;
/** A delivery waits this long for a slot of its connector before its job goes back to the queue. */
const SLOT_WAIT_MS = 5_000;
/** A job handed back because its connector is saturated is due again after this long. */
const SATURATED_RETRY_MS = 1_000;
/** Deliveries started or waiting for a slot in this instance at most; past it the claim loop waits. */
const MAX_PENDING_DELIVERIES = 1_000;


export interface DeliveryState { slots: ConnectorSlots; inflight: Set<Promise<void>>; stopping: boolean }
export type DeliveryThis = Service & { delivery: DeliveryState };

export function createDeliveryState(): DeliveryState {
  return { slots: new ConnectorSlots((id) => connectorSettings(id).concurrency), inflight: new Set(), stopping: false };
}


/**
 * Hands claimed jobs to their connectors: each delivery takes a slot of its own connector (or,
 * when the connector stays saturated, goes back to the queue so it holds no lease meanwhile), calls
 * it outside any transaction, and records the outcome when it ends. The handler returns after a
 * short first wave, so a connector that hangs holds its own slots and nothing else.
 */
export async function deliverDue(this: DeliveryThis, jobs: ClaimedJob[], em: EntityManager): Promise<void> {
  const rows = await em.fork().find(Document, { id: { $in: jobs.map((j) => j.ref) } }, { fields: ['id', 'connectorId'] });
  const connectorOf = new Map(rows.map((r) => [r.id, r.connectorId ?? null]));
  const { slots, inflight } = this.delivery;
  const started = jobs.map((job) => {
    const connectorId = connectorOf.get(job.ref) ?? null;
    const run: Promise<void> = (async () => {
      const taken = connectorId ? await slots.take(connectorId, SLOT_WAIT_MS) : true;
      // Saturated, or the service is stopping: the job goes back to the queue untouched.
      if (!taken || this.delivery.stopping) {
        if (taken && connectorId) slots.give(connectorId);
        await releaseJobs(em.fork(), [job.id], SATURATED_RETRY_MS);
        return;
      }
      try {
        await deliverJob.call(this, job, em);
      } finally {
        if (connectorId) slots.give(connectorId);
      }
    })()
      .catch((err: unknown) => { this.logger.error(`delivery of ${job.ref} could not be recorded; it is attempted again when its lease ends`, err); })
      .finally(() => { inflight.delete(run); });
    inflight.add(run);
    return run;
  });
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.all(started), new Promise<void>((resolve) => { timer = setTimeout(resolve, FIRST_WAVE_MS); })]);
  clearTimeout(timer);
  while (inflight.size >= MAX_PENDING_DELIVERIES) await Promise.race(inflight);
}

/** Claim (done by the scheduler), call the connector with no transaction or connection held, then record. */
async function deliverJob(this: Service, job: ClaimedJob, em: EntityManager): Promise<void> {
  const seen = await em.fork().findOne(Document, { id: job.ref });
  if (!seen || seen.deliveryStatus !== 'pending' || !seen.connectorId) { await completeJobs(em.fork(), [job.id]); return; }
  const adapter = adapterContracts(seen.connectorId);
  const waitingForConfirmation = seen.connectorMessageId !== null;
  const options = { timeout: connectorCallTimeoutMs(), retries: 0 };

  let outcome: SendResult | StatusResult;
  const startedAt = performance.now();
  try {
    if (waitingForConfirmation) {
      outcome = await call(this.broker, adapter.status, { messageId: seen.connectorMessageId!, livemode: seen.livemode }, options);
    } else {
      const msg: OutboundMessage = {
        documentId: seen.id, livemode: seen.livemode, type: seen.type, number: seen.number ?? null,
        sender: { peppolId: seen.senderPeppolId ?? null, name: seen.senderName ?? null, organizationId: seen.organizationId, companyId: seen.companyId },
        recipient: recipientOf(seen),
        // Read from the artefact store here: a store that fails is a transient failure, re-sent like any other.
        payload: await payloadOf(this.broker, seen),
        attempt: seen.deliveryAttempts + 1,
      };
      outcome = await call(this.broker, adapter.send, msg, options);
    }
  } catch (err) {
    // The adapter failed, timed out, is unreachable or its circuit is open: a transport failure
    // like any other, re-sent on the same schedule, so the document always ends delivered or failed.
    this.logger.warn(`delivery of ${seen.id} through adapter.${seen.connectorId} failed: ${(err as Error).message}`);
    outcome = { outcome: 'transient', errorMessage: (err as Error).message.startsWith('adapter.') ? (err as Error).message : `adapter.${seen.connectorId}: ${(err as Error).message}` };
  }
  const labels = { connector: seen.connectorId, verb: waitingForConfirmation ? 'status' : 'send' };
  countMetric(this.broker, 'connectorCalls', { ...labels, outcome: outcome.outcome });
  observeSeconds(this.broker, 'connectorDuration', performance.now() - startedAt, labels);
  const manifest = registeredManifests(this.broker).find((m) => m.id === seen.connectorId);
  const authority = manifest?.capabilities.clearance ? manifest.authority ?? manifest.id : null;
  // Receipts go to the artefact store before the transaction that records them (receipts.ts).
  outcome = await withStoredReceipts(this.broker, seen, outcome);
  await recordDelivery.call(this, job, em, seen, waitingForConfirmation, outcome, authority);
}

/**
 * A clearance connector's outcome, on the document and as `compliance.reported`: the authority's id,
 * receipt and QR when it cleared (or took the report of) the invoice; its code when it refused it, which
 * frees the invoice number for the corrected send (the refused invoice was never issued).
 */
function recordClearance(doc: Document, authority: string, outcome: SendResult | StatusResult): OutboxEventInput | null {
  const base = { organizationId: doc.organizationId, companyId: doc.companyId, livemode: doc.livemode, type: 'compliance.reported' as const };
  if (outcome.outcome === 'delivered' && 'clearance' in outcome && outcome.clearance) {
    const clearance: Clearance = outcome.clearance;
    doc.clearance = storable({ ...clearance, authority, connectorId: doc.connectorId! });
    doc.clearanceStatus = clearance.status;
    return { ...base, data: { documentId: doc.id, reportedTo: authority, status: 'reported', connectorId: doc.connectorId, authorityId: clearance.authorityId, clearance: clearance.status } };
  }
  if (outcome.outcome === 'rejected') {
    doc.clearanceStatus = 'rejected';
    doc.clearance = { authority, connectorId: doc.connectorId! };
    return { ...base, data: { documentId: doc.id, reportedTo: authority, status: 'failed', connectorId: doc.connectorId, errorCode: outcome.errorCode, errorMessage: storable(outcome.errorMessage) } };
  }
  return null;
}

/** Records a connector's answer, if the document is still where it was when the call began. */
async function recordDelivery(this: Service, job: ClaimedJob, em: EntityManager, seen: Document, waitingForConfirmation: boolean, outcome: SendResult | StatusResult, authority: string | null): Promise<void> {
  const events: OutboxEventInput[] = [];
  await em.fork().transactional(async (tx) => {
    const doc = await tx.findOne(Document, { id: seen.id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    // Someone else recorded this attempt meanwhile (a lease taken over): theirs stands.
    if (!doc || doc.deliveryStatus !== 'pending' || doc.deliveryAttempts !== seen.deliveryAttempts || doc.connectorMessageId !== seen.connectorMessageId) return;
    if (!waitingForConfirmation && outcome.outcome !== 'transient') doc.deliveryAttempts += 1;
    const now = (await companyClock(tx, doc.companyId)).now();
    const base = { organizationId: doc.organizationId, companyId: doc.companyId, livemode: doc.livemode };
    const billing = BILLING_TYPES.has(doc.type);
    const step = (code: string, by: string, extra: Partial<LifecycleEntry> = {}) => {
      const event = billing ? applyStep(tx, doc, entryFor(code, by, now, extra)) : null;
      if (event) events.push(event);
    };

    const sent = () => {
      if (doc.sentAt) return;
      doc.sentAt = now;
      events.push({ ...base, type: 'document.sent', data: { documentId: doc.id, type: doc.type, sentAt: now.toISOString() } });
      step('201', 'seller_platform');
    };
    const failed = (errorCode: string, errorMessage: string) => events.push(...failDelivery(tx, doc, errorCode, errorMessage, now));
    const compliance = authority ? recordClearance(doc, authority, outcome) : null;
    if (compliance) events.push(compliance);
    switch (outcome.outcome) {
      case 'delivered': {
        sent();
        doc.deliveryStatus = 'delivered';
        // The network's id of the exchange: what a later status message (Peppol MLS) refers to.
        if ('messageId' in outcome) doc.connectorMessageId = outcome.messageId;
        // As the connector gave it, minus what PostgreSQL would refuse (a NUL from the other side).
        if ('evidence' in outcome && outcome.evidence) doc.evidence = storable(outcome.evidence);
        doc.deliveredAt = now;
        doc.nextAttemptAt = null;
        const local = 'localDocumentId' in outcome ? outcome.localDocumentId : undefined;
        if (local) doc.counterpartId = local;
        step('202', 'buyer_platform');
        step('203', 'buyer_platform');
        events.push({ ...base, type: 'document.delivered', data: { documentId: doc.id, deliveredAt: now.toISOString() } });
        await completeJobs(tx, [job.id]);
        break;
      }
      case 'accepted':
      case 'pending': {
        sent();
        if ('messageId' in outcome) doc.connectorMessageId = outcome.messageId;
        doc.nextAttemptAt = new Date(now.getTime() + outcome.checkAfterMs);
        await rescheduleJob(tx, job.id, doc.nextAttemptAt);
        break;
      }
      case 'rejected':
        // The network's own code (AP_REJECTED, SBDH_ERROR, EBMS:…, a PPF or SDI code) is the document's errorCode.
        failed(outcome.errorCode, outcome.errorMessage);
        await completeJobs(tx, [job.id]);
        break;
      case 'transient': {
        doc.deliveryAttempts += 1;
        doc.errorMessage = outcome.errorMessage;
        if (doc.deliveryAttempts > MAX_RESENDS) {
          failed('TRANSPORT_FAILURE', `Delivery failed after ${doc.deliveryAttempts} attempts: ${outcome.errorMessage}`);
          // The authority never answered: not cleared (the number stays taken: it may have been registered).
          if (authority) events.push({ ...base, type: 'compliance.reported', data: { documentId: doc.id, reportedTo: authority, status: 'failed', connectorId: doc.connectorId, errorCode: 'TRANSPORT_FAILURE', errorMessage: storable(outcome.errorMessage) } });
          await completeJobs(tx, [job.id]);
        } else {
          doc.nextAttemptAt = new Date(now.getTime() + retryDelayMs(doc.deliveryAttempts));
          await rescheduleJob(tx, job.id, doc.nextAttemptAt);
        }
        break;
      }
    }
    for (const e of events) await recordEvent(tx, e);
    await tx.flush();
  });
  if (events.length) void this.broker.broadcast(OUTBOX_WRITTEN_EVENT, {});
}

function recipientOf(doc: Document): Participant {
  const r = doc.recipient ?? {};
  const out: Participant = {};
  if (r.companyId) out.companyId = r.companyId;
  if (r.peppolId) out.peppolId = r.peppolId;
  if (r.addressingIdentifier) out.addressingIdentifier = r.addressingIdentifier;
  if (r.addressingSuffix) out.addressingSuffix = r.addressingSuffix;
  if (r.addressingIdentifier) out.country = 'FR';
  return out;
}
