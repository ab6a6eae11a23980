/**
 * What a lifecycle step sets going beyond this platform: the buyer's answer passed back to the
 * sender of a document received over a network (a Peppol Invoice Response, through its connector's
 * `respond`), and the French statuses the law says to report to the tax platform (the CDAR, through
 * the reporting connector for France). One lifecycle model, two wire forms: a French-reform document
 * is reported, never answered with an Invoice Response.
 *
 * Each follow-up is a scheduled job written in the step's own transaction and keyed by document,
 * step and target, so it is never lost and never doubled. The job calls the connector outside any
 * transaction and records the outcome on the step itself (`history[i].response` / `.report`);
 * a report's outcome is also `compliance.reported`. Transient failures are tried again on a
 * doubling schedule; after the last try the follow-up is recorded as failed.
 */
import type { Service } from 'moleculer';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { recordEvent, type OutboxEventInput } from '../../mixins/outbox.mixin.ts';
import { OUTBOX_WRITTEN_EVENT } from '../events/events.contract.ts';
import { completeJobs, rescheduleJob, type ClaimedJob, type JobInput } from '../shared/scheduler/scheduler.ts';
import { companyClock } from '../shared/clock.ts';
import { storable } from '../shared/pg-text.ts';
import { responseCodeOf } from '../../mappings/peppol/invoice-response.ts';
import { Document, type FollowUpOutcome, type LifecycleEntry } from './document.entity.ts';
import { FRENCH_STATUSES } from './lifecycle.ts';
import { isFrenchReform } from './reform.ts';
import { connectorCallTimeoutMs, retryDelayMs } from './connector-timing.ts';

export const FOLLOW_UP_JOB = 'document.follow-up';
/** Tries before a follow-up the network keeps refusing for now is recorded as failed. */
export const MAX_FOLLOW_UP_ATTEMPTS = 8;

type Target = 'respond' | 'report';
/** Where each target's outcome is recorded on the step. */
const OUTCOME_FIELD = { respond: 'response', report: 'report' } as const satisfies Record<Target, keyof LifecycleEntry>;

/** A connector's answer to one follow-up, whichever verb it was. */
export type FollowUpAnswer =
  | { kind: 'done'; outcome: FollowUpOutcome; event?: (doc: Document) => OutboxEventInput }
  | { kind: 'transient'; message: string; failed: FollowUpOutcome; event?: (doc: Document) => OutboxEventInput }
  /** Nobody on this deployment carries it (no connector with the verb): nothing to record. */
  | { kind: 'skip' };

export type FollowUpHandler = (this: Service, doc: Document, entry: LifecycleEntry, index: number, attempt: number, now: Date) => Promise<FollowUpAnswer>;

/** Who emits each reported French status, hence which copy (the seller's or the buyer's) reports it. */
const REPORTING_SIDE = (code: string): 'outgoing' | 'incoming' => (FRENCH_STATUSES[code]!.emittedBy === 'buyer' ? 'incoming' : 'outgoing');

/** The handlers of the follow-ups, registered by the documents service (responses.ts, compliance-reports.ts). */
const HANDLERS: Partial<Record<Target, FollowUpHandler>> = {};

export function handleFollowUps(target: Target, handler: FollowUpHandler): void {
  HANDLERS[target] = handler;
}

/**
 * The follow-ups a step calls for, as jobs for the caller's transaction: `entry` is the step just
 * appended to `doc.lifecycle` (its index is the last).
 */
export function followUpsOf(doc: Document, entry: LifecycleEntry, dueAt: Date): JobInput[] {
  const index = doc.lifecycle.length - 1;
  const targets: Target[] = [];
  // Received over a network that proves its exchanges (Peppol), and booked: the sender hears the buyer's answers.
  const answerable = HANDLERS.respond && doc.direction === 'incoming' && doc.evidence && !doc.duplicateOf;
  if (isFrenchReform(doc)) {
    if (HANDLERS.report && FRENCH_STATUSES[entry.code]?.reportedToTaxAuthority && doc.direction === REPORTING_SIDE(entry.code)) targets.push('report');
    // Between platforms a French invoice's lifecycle travels as CDAR: every move of the buyer.
    if (answerable && entry.emittedBy === 'buyer') targets.push('respond');
  } else if (answerable && responseCodeOf(entry.code) && (entry.emittedBy === 'buyer' || entry.emittedBy === 'buyer_platform')) {
    targets.push('respond');
  }
  return targets.map((target) => ({ kind: FOLLOW_UP_JOB, ref: `${doc.id}:${index}:${target}`, companyId: doc.companyId, dueAt }));
}

function parseRef(ref: string): { documentId: string; index: number; target: Target } | null {
  const m = /^(.+):(\d+):(respond|report)$/.exec(ref);
  return m ? { documentId: m[1]!, index: Number(m[2]), target: m[3] as Target } : null;
}

/** A connector call with the follow-up's time budget: within the job's lease, so nobody else claims it meanwhile. */
export function followUpCallOptions(): { timeout: number; retries: number } {
  return { timeout: connectorCallTimeoutMs(), retries: 0 };
}

export async function runFollowUps(this: Service, jobs: ClaimedJob[], em: EntityManager): Promise<void> {
  for (const job of jobs) {
    try {
      await runOne.call(this, job, em);
    } catch (err) {
      this.logger.error(`follow-up ${job.ref} could not be recorded; it is tried again when its lease ends`, err);
    }
  }
}

async function runOne(this: Service, job: ClaimedJob, em: EntityManager): Promise<void> {
  const ref = parseRef(job.ref);
  const doc = ref ? await em.fork().findOne(Document, { id: ref.documentId }) : null;
  const entry = ref && doc ? doc.lifecycle[ref.index] : undefined;
  const handler = ref ? HANDLERS[ref.target] : undefined;
  if (!ref || !handler || !doc || !entry || entry[OUTCOME_FIELD[ref.target]]) { await completeJobs(em.fork(), [job.id]); return; }
  const field = OUTCOME_FIELD[ref.target];
  const now = (await companyClock(em.fork(), doc.companyId)).now();
  const answer = await handler.call(this, doc, entry, ref.index, job.claims, now);
  if (answer.kind === 'skip') { await completeJobs(em.fork(), [job.id]); return; }
  const giveUp = answer.kind === 'transient' && job.claims >= MAX_FOLLOW_UP_ATTEMPTS;
  if (answer.kind === 'transient' && !giveUp) {
    this.logger.warn(`follow-up ${job.ref} (attempt ${job.claims}) failed for now: ${answer.message}`);
    await rescheduleJob(em.fork(), job.id, new Date(now.getTime() + retryDelayMs(job.claims)));
    return;
  }
  const outcome = answer.kind === 'done' ? answer.outcome : answer.failed;
  const events: OutboxEventInput[] = [];
  await em.fork().transactional(async (tx) => {
    const locked = await tx.findOne(Document, { id: doc.id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    if (locked?.lifecycle[ref.index] && !locked.lifecycle[ref.index]![field]) {
      locked.lifecycle = locked.lifecycle.map((e, i) => (i === ref.index ? { ...e, [field]: storable(outcome) } : e));
      if (answer.event) events.push(answer.event(locked));
      for (const e of events) await recordEvent(tx, e);
    }
    await completeJobs(tx, [job.id]);
    await tx.flush();
  });
  if (events.length) void this.broker.broadcast(OUTBOX_WRITTEN_EVENT, {});
}
