/**
 * Applying French lifecycle steps to a document (send, delivery, inbox and the lifecycle actions
 * all do), and which event each step fires.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { OutboxEventInput } from '../../mixins/outbox.mixin.ts';
import { scheduleJobs } from '../shared/scheduler/scheduler.ts';
import type { Document, LifecycleEntry } from './document.entity.ts';
import { BILLING_TYPES, FRENCH_STATUSES, apiStatusOf, type Party } from './lifecycle.ts';
import { isFrenchReform } from './reform.ts';
import { followUpsOf } from './follow-ups.ts';

export function partyOf(doc: Document): Party {
  return doc.direction === 'incoming' ? 'buyer' : 'supplier';
}

export function currentPartial(doc: Document): boolean {
  return doc.lifecycle.at(-1)?.partial === true;
}

export function entryFor(code: string, emittedBy: string, at: Date, extra: Partial<LifecycleEntry> = {}): LifecycleEntry {
  const s = FRENCH_STATUSES[code]!;
  return { code, label: s.label, status: s.apiStatus, emittedBy, at: at.toISOString(), ...extra };
}

function complianceOf(code: string, doc: Document): Record<string, unknown> | null {
  if (!isFrenchReform(doc)) return null;
  const s = FRENCH_STATUSES[code]!;
  return { framework: 'fr-ctc', code, label: s.label, reportedToTaxAuthority: s.reportedToTaxAuthority, country: 'FR' };
}

/**
 * Steps whose webhook is not `lifecycle.updated` (spec, French lifecycle table): issued (201) fires
 * `document.sent`, received by the platform (202) `document.delivered`, made available (203)
 * `document.received`, a technical rejection (213) `document.failed`: each emitted by its caller.
 */
const STEPS_WITH_THEIR_OWN_EVENT = new Set(['201', '202', '203', '213']);

/**
 * Appends a lifecycle step in the caller's transaction and returns the lifecycle.updated event it
 * fires, if any. Deposit (200) fires one only under the French reform, where it is a status reported
 * to the tax platform. What the step sets going beyond the platform (an Invoice Response to the
 * sender, a report to the tax platform) is scheduled in the same unit of work (follow-ups.ts).
 */
export function applyStep(tx: EntityManager, doc: Document, entry: LifecycleEntry): OutboxEventInput | null {
  const previous = doc.lifecycleCode ?? null;
  doc.lifecycle = [...doc.lifecycle, entry];
  scheduleJobs(tx, followUpsOf(doc, entry, new Date(entry.at)));
  doc.lifecycleCode = entry.code;
  if (BILLING_TYPES.has(doc.type) && !(doc.deliveryStatus === 'failed' && entry.code !== '213')) doc.status = apiStatusOf(entry.code, entry.partial === true, doc.direction);
  if (STEPS_WITH_THEIR_OWN_EVENT.has(entry.code) || (entry.code === '200' && !isFrenchReform(doc))) return null;
  return {
    organizationId: doc.organizationId, companyId: doc.companyId, type: 'lifecycle.updated', livemode: doc.livemode,
    data: { documentId: doc.id, previousStatus: previous, currentStatus: entry.code, status: doc.status, label: entry.label, compliance: complianceOf(entry.code, doc) },
  };
}

/**
 * A sent document the network will not take (a permanent refusal, the last re-send spent, a rejection
 * it reports later): failed, French status 213 for a billing document, and `document.failed`.
 * Answers the events for the caller's outbox.
 */
export function failDelivery(tx: EntityManager, doc: Document, errorCode: string, errorMessage: string, now: Date): OutboxEventInput[] {
  doc.deliveryStatus = 'failed';
  doc.errorCode = errorCode;
  doc.errorMessage = errorMessage;
  doc.nextAttemptAt = null;
  doc.status = 'rejected';
  const step = BILLING_TYPES.has(doc.type) ? applyStep(tx, doc, entryFor('213', 'platform', now, { reason: errorMessage, reasonCode: errorCode })) : null;
  return [
    ...(step ? [step] : []),
    { organizationId: doc.organizationId, companyId: doc.companyId, livemode: doc.livemode, type: 'document.failed', data: { documentId: doc.id, errorCode, errorMessage } },
  ];
}
