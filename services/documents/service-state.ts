/** What the documents service's modules share of the service: its outbox writer and document workers. */
import type { Context, Service } from 'moleculer';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { OutboxEventInput } from '../../mixins/outbox.mixin.ts';
import type { ScheduledTask } from 'node-cron';
import type { WorkerPool } from '../shared/worker-pool.ts';

export type DocsThis = Service & {
  recordEvent(ctx: Context, em: EntityManager, input: OutboxEventInput): Promise<unknown>;
  /** Document workers: the send path's parsing runs there, off the event loop. */
  workers: WorkerPool;
  /** The retention sweep's schedule (artefact-sweep.ts); none when EINV_ARTEFACT_SWEEP_CRON=off. */
  artefactSweep?: ScheduledTask | undefined;
};
