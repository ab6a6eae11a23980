/**
 * The scheduler as a mixin: a service declares the job kinds it handles and gets a node-cron tick
 * (every second by default, EINV_SCHEDULER_CRON) plus immediate wake-ups (`scheduler.wake`,
 * broadcast after a sandbox clock move or when new work is written). Each tick claims due rows of
 * its kinds with SKIP LOCKED (services/shared/scheduler/scheduler.ts), hands them to the handler in
 * batches, and keeps claiming until nothing is due. Any number of replicas can run it.
 *
 * A handler must finish or reschedule every job it gets (completeJobs / rescheduleJob, ideally in
 * the transaction that records the outcome); if it throws, the jobs are released for a retry.
 */
import type { Service, ServiceSchema } from 'moleculer';
import type { EntityManager } from '@mikro-orm/postgresql';
import { schedule, type ScheduledTask } from 'node-cron';
import { databaseOf } from '../services/shared/persistence/database.ts';
import { claimDueJobs, countDueJobs, releaseJobs, type ClaimedJob } from '../services/shared/scheduler/scheduler.ts';
import { sampleWhileMetricsOn, setMetric } from '../services/shared/metrics.ts';
import { loadConfig } from '../services/shared/config.ts';

export interface JobHandlerSpec {
  /** Jobs handed over at once. */
  batch?: number;
  /** Claim-and-handle loops run side by side in this instance (SKIP LOCKED keeps them apart). */
  parallel?: number;
  handle(this: Service, jobs: ClaimedJob[], em: EntityManager): Promise<void>;
}

export interface SchedulerSettings {
  jobs: Record<string, JobHandlerSpec>;
}

interface SchedulerState {
  task?: ScheduledTask;
  running: boolean;
  again: boolean;
  stopping: boolean;
  inflight?: Promise<void>;
  stopBacklogSampler?: () => void;
}

type SchedulerThis = Service & { schedulerState: SchedulerState; runDueJobs(): Promise<void>; schedulerJobs(): Record<string, JobHandlerSpec> };

export const WAKE_EVENT = 'scheduler.wake';

export function SchedulerMixin(jobs: Record<string, JobHandlerSpec>): Partial<ServiceSchema> {
  return {
    events: {
      [WAKE_EVENT]: {
        handler(this: SchedulerThis) {
          void this.runDueJobs();
        },
      },
    },
    methods: {
      schedulerJobs() {
        return jobs;
      },
      /** Claims and runs due jobs until none is left; overlapping calls coalesce into one more round. */
      async runDueJobs(this: SchedulerThis) {
        const state = this.schedulerState;
        if (state.stopping) return;
        if (state.running) {
          state.again = true;
          return;
        }
        state.running = true;
        const cfg = loadConfig();
        const round = (async () => {
          try {
            do {
              state.again = false;
              for (const [kind, spec] of Object.entries(jobs)) {
                const loop = async () => {
                  for (;;) {
                    if (state.stopping) return;
                    const em = databaseOf(this.broker).em.fork() as EntityManager;
                    const claimed = await claimDueJobs(em, [kind], spec.batch ?? 50, cfg.events.schedulerLeaseMs);
                    if (!claimed.length) return;
                    try {
                      await spec.handle.call(this, claimed, em);
                    } catch (err) {
                      this.logger.error(`scheduler: ${kind} handler failed; its jobs are released for a retry`, err);
                      await releaseJobs(databaseOf(this.broker).em.fork() as EntityManager, claimed.map((j) => j.id), 5_000).catch(() => undefined);
                      return;
                    }
                  }
                };
                await Promise.all(Array.from({ length: spec.parallel ?? 1 }, loop));
              }
            } while (state.again && !state.stopping);
          } catch (err) {
            if (!state.stopping) this.logger.error('scheduler: claiming due jobs failed', err);
          } finally {
            state.running = false;
          }
        })();
        state.inflight = round;
        await round;
      },
    },
    created() {
      const self = this as unknown as SchedulerThis;
      self.schedulerState = { running: false, again: false, stopping: false };
    },
    started() {
      const self = this as unknown as SchedulerThis;
      self.schedulerState.task = schedule(loadConfig().events.schedulerCron, () => { void self.runDueJobs(); });
      // The backlog of this service's own job kinds, for the metrics endpoint (every replica reports the same rows).
      self.schedulerState.stopBacklogSampler = sampleWhileMetricsOn(this.broker, loadConfig().observability.metrics?.pollMs, async () => {
        const due = await countDueJobs(databaseOf(this.broker).em.fork() as EntityManager, Object.keys(jobs));
        for (const [kind, count] of Object.entries(due)) setMetric(this.broker, 'schedulerDue', count, { kind });
      });
    },
    async stopped() {
      const self = this as unknown as SchedulerThis;
      self.schedulerState.stopBacklogSampler?.();
      self.schedulerState.stopping = true;
      await self.schedulerState.task?.stop();
      await self.schedulerState.inflight?.catch(() => undefined);
    },
  };
}
