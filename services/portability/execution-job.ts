/**
 * The wake-up of a request on its effective date: a `portability.execute` job (the house
 * scheduler, services/shared/scheduler; written with the request, `executionJob` in requests.ts)
 * due at 00:00 Paris of the mandate's effective date in the business time of the request's clock
 * company, so the sandbox's virtual clock moving past it (the clock service then wakes the
 * scheduler) runs it too. It does what a read does (advanceAndRead):
 * tacit acceptance if still due, execution, the routing switch for the SIREN and completion — so
 * the annuaire names this platform from the effective date even when nobody reads the request. A
 * read racing it is harmless: the switch is idempotent on the SIREN and the chain takes each row once.
 *
 * The job is done once the request is no longer on its way (completed, rejected, failed, a broken
 * chain, nothing to switch); a request still executing (the annuaire does not name this platform
 * yet) is looked at again a day later.
 */
import type { Service } from 'moleculer';
import type { EntityManager } from '@mikro-orm/postgresql';
import { completeJobs, rescheduleJob, type ClaimedJob } from '../shared/scheduler/scheduler.ts';
import { PortabilityRequest } from './portability.entity.ts';
import { advanceAndRead, clockOf } from './requests.ts';

const RETRY_EXECUTING_MS = 86_400_000;

export async function executeDueRequests(this: Service, jobs: ClaimedJob[], em: EntityManager): Promise<void> {
  for (const job of jobs) {
    const work = em.fork();
    try {
      const request = await work.findOne(PortabilityRequest, { requestRef: job.ref }, { disableIdentityMap: true });
      if (!request) { await completeJobs(work, [job.id]); continue; }
      const read = await advanceAndRead(work, request);
      if (read.verification.intact && read.folded.state === 'executing' && request.siren) {
        await rescheduleJob(work, job.id, new Date((await clockOf(work, request)).now().getTime() + RETRY_EXECUTING_MS));
      } else {
        await completeJobs(work, [job.id]);
      }
    } catch (err) {
      // Left leased: tried again once the lease runs out; the other requests of the batch go on.
      this.logger.error(`portability request ${job.ref}: its execution could not be advanced yet`, err);
    }
  }
}
