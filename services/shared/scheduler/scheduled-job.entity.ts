import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * A due-time row: the one scheduling mechanism (webhook retries, deadlines, delayed sandbox
 * scenarios). `dueAt` is in the business time of `companyId` (virtual in the sandbox), so moving a
 * company's clock makes its rows due. Claimed with FOR UPDATE SKIP LOCKED and leased until
 * `lockedUntil`, so any number of replicas can tick and a crashed one's claims come back.
 */
export const ScheduledJob = defineEntity({
  name: 'ScheduledJob',
  tableName: 'scheduled_jobs',
  properties: {
    id: p.uuid().primary(),
    kind: p.string(),
    /** What the job is about (e.g. a delivery id); one job per (kind, ref). */
    ref: p.string(),
    companyId: p.string().nullable(),
    dueAt: p.datetime(),
    lockedUntil: p.datetime().nullable(),
    claims: p.integer().default(0),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
  uniques: [{ name: 'scheduled_jobs_kind_ref_unique', properties: ['kind', 'ref'] }],
  indexes: [{ name: 'scheduled_jobs_due_index', properties: ['kind', 'dueAt'] }],
});
export type ScheduledJob = InferEntity<typeof ScheduledJob>;
