/**
 * portability: France, change of approved platform — taxpayer resolution, migration requests
 * (legal clocks, hash-linked evidence chain, state folded on read), the mandate's signature, the
 * routing switch per SIREN and the annuaire. Owns portability_requests, portability_evidence,
 * portability_files and portability_routings; asks tenancy about companies and documents about an
 * agreement's object; folds the `portability.message.recorded` events of portability-messages.
 */
import type { Context, ServiceSchema } from 'moleculer';
import type { EntityManager } from '@mikro-orm/postgresql';
import { OrmMixin, emOf } from '../../mixins/orm.mixin.ts';
import { BusinessClockMixin } from '../../mixins/business-clock.mixin.ts';
import { SchedulerMixin } from '../../mixins/scheduler.mixin.ts';
import { implement } from '../shared/contract.ts';
import { companyClock, systemClock } from '../shared/clock.ts';
import { databaseOf } from '../shared/persistence/database.ts';
import type { RequestMeta } from '../shared/auth.ts';
import { classifyTaxpayer, resolution } from './taxpayer.ts';
import { resolveTaxpayer } from './resolve.ts';
import { createRequest, EXECUTE_JOB, getRequest, recordMessage } from './requests.ts';
import { depositSignedMandate, openSignature, readSignature } from './signature.ts';
import { readAnnuaire, setRouting } from './routing.ts';
import { downloadFile, downloadSignedMandate } from './files.ts';
import { executeDueRequests } from './execution-job.ts';
import * as contract from './portability.contract.ts';

const PortabilityService: ServiceSchema = {
  name: 'portability',
  mixins: [OrmMixin, BusinessClockMixin, SchedulerMixin({ [EXECUTE_JOB]: { batch: 20, handle: executeDueRequests } })],

  actions: {
    resolve: implement(contract.resolve, async (ctx) => {
      const livemode = (ctx.meta as RequestMeta).auth?.livemode ?? true;
      const id = classifyTaxpayer(ctx.params.taxpayer, ctx.params.country);
      return resolution(await resolveTaxpayer(ctx, id, livemode, ctx.params.taxpayer), id);
    }),
    createRequest: implement(contract.createRequest, async (ctx) => createRequest(ctx, emOf(ctx))),
    getRequest: implement(contract.getRequest, async (ctx) => getRequest(ctx, emOf(ctx))),
    openSignature: implement(contract.openSignature, async (ctx) => openSignature(ctx, emOf(ctx))),
    readSignature: implement(contract.readSignature, async (ctx) => readSignature(ctx, emOf(ctx))),
    depositSignedMandate: implement(contract.depositSignedMandate, async (ctx) => depositSignedMandate(ctx, emOf(ctx))),
    downloadFile: implement(contract.downloadFile, async (ctx) => downloadFile(ctx, emOf(ctx))),
    downloadSignedMandate: implement(contract.downloadSignedMandate, async (ctx) => downloadSignedMandate(ctx, emOf(ctx))),
    setRouting: implement(contract.setRouting, async (ctx) => setRouting(ctx, emOf(ctx))),
    // Also called by portability-messages (no credential: `livemode` says which mode, live by default).
    annuaire: implement(contract.annuaire, async (ctx) => {
      const auth = (ctx.meta as RequestMeta).auth;
      const em = emOf(ctx);
      const clock = auth?.companyId ? await companyClock(em, auth.companyId) : systemClock;
      return readAnnuaire(em, ctx.params.siren, auth?.livemode ?? ctx.params.livemode ?? true, clock);
    }),
  },

  events: {
    [contract.MESSAGE_RECORDED_EVENT]: {
      async handler(this: { broker: Context['broker']; logger: Context['broker']['logger'] }, ctx: Context<contract.PortabilityMessageRecorded>) {
        const m = ctx.params;
        if (!m || typeof m.requestRef !== 'string' || typeof m.organizationId !== 'string' || typeof m.messageId !== 'string') {
          this.logger.warn(`${contract.MESSAGE_RECORDED_EVENT} without requestRef, organizationId or messageId: ignored`);
          return;
        }
        const em = databaseOf(this.broker).em.fork() as EntityManager;
        const chained = await recordMessage(em, m);
        if (!chained) this.logger.debug(`portability message ${m.messageId} of ${m.requestRef}: not a request of ${m.organizationId} here, or already chained`);
      },
    },
  },
};

export default PortabilityService;
