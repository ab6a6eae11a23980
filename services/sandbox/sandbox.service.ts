/**
 * sandbox: self-service test organizations (bootstrap, no sign-up) and their controls. A reset
 * asks each owning service to wipe its own rows of the organization (documents, events and webhook
 * deliveries, idempotency keys), never reading or writing another service's tables. A sandbox
 * organization expires with its bootstrap key: tenancy writes its expiry job with it, and this
 * service's scheduler wipes it through the same owning services (its request log and company
 * clocks too), then has tenancy remove it.
 */
import type { Context, Service, ServiceSchema } from 'moleculer';
import type { EntityManager } from '@mikro-orm/postgresql';
import { implement } from '../shared/contract.ts';
import { call } from '../shared/call.ts';
import { systemClock } from '../shared/clock.ts';
import { loadConfig } from '../shared/config.ts';
import { isCompanyBound, principalOf } from '../shared/auth.ts';
import { completeJobs, type ClaimedJob } from '../shared/scheduler/scheduler.ts';
import { SchedulerMixin } from '../../mixins/scheduler.mixin.ts';
import { provision, removeSandboxOrganization, SANDBOX_EXPIRY_JOB } from '../tenancy/tenancy.contract.ts';
import type { Plan } from '../tenancy/tenancy.contract.ts';
import { resetSandbox as resetDocuments } from '../documents/documents.contract.ts';
import { resetSandbox as resetEvents } from '../events/events.contract.ts';
import { resetSandbox as resetWebhooks } from '../webhooks/webhooks.contract.ts';
import { resetSandbox as resetPayments } from '../payments/payments.contract.ts';
import { resetSandbox as resetTaggings } from '../categorization/categorization.contract.ts';
import { flush as flushOwnKeys, flushOrganization } from '../idempotency/idempotency.contract.ts';
import { forgetOrganization } from '../requests/requests.contract.ts';
import { forgetCompanyClocks } from '../clock/clock.contract.ts';
import type { KeyType } from '../shared/auth.ts';
import { bootstrap, reset, type ResetResult, type ResetScope } from './sandbox.contract.ts';
import { seededBelgianCompany } from './belgian-company.ts';

const PLAN_FOR_KEY_TYPE: Record<KeyType, Plan> = { personal: 'free', platform: 'platform', white_label: 'white_label' };

const NEXT_STEPS = [
  { step: 'Check who you are with the new key', method: 'GET', path: '/v1/me' },
  { step: 'See your seeded Belgian company', method: 'GET', path: '/v1/me/company' },
  { step: 'Read the API description', method: 'GET', path: '/v1/openapi.json' },
];

interface WipeTarget {
  organizationId: string;
  /** Only this company's rows (a credential bound to one company resets its own company). */
  companyId?: string;
  /** The webhook subscriptions too (an expired organization). */
  subscriptions?: boolean;
}

/** Asks each owning service to wipe its sandbox rows of the organization (or company) for a scope. */
async function wipe(caller: Context | Service['broker'], target: WipeTarget, scope: ResetScope): Promise<ResetResult['deleted']> {
  const { organizationId, companyId, subscriptions = false } = target;
  const only = companyId ? { companyId } : {};
  const deleted: ResetResult['deleted'] = {};
  if (scope === 'all' || scope === 'documents') {
    const docs = await call(caller, resetDocuments, { organizationId, ...only });
    deleted.documents = docs.documents;
    deleted.scheduledJobs = (deleted.scheduledJobs ?? 0) + docs.scheduledJobs;
    // What other services keep about the documents: payments and taggings (organization-wide resets only:
    // a one-company reset cannot tell them apart once its documents are gone).
    if (!companyId) {
      deleted.payments = (await call(caller, resetPayments, { organizationId })).payments;
      deleted.taggings = (await call(caller, resetTaggings, { organizationId })).taggings;
    }
  }
  if (scope === 'all' || scope === 'events') {
    const hooks = await call(caller, resetWebhooks, { organizationId, ...only, subscriptions });
    deleted.webhookDeliveries = hooks.deliveries;
    deleted.scheduledJobs = (deleted.scheduledJobs ?? 0) + hooks.scheduledJobs;
    deleted.events = (await call(caller, resetEvents, { organizationId, ...only })).events;
  }
  if (scope === 'all' || scope === 'idempotency') {
    // Stored answers belong to credentials: a one-company credential (only ever a reset's caller, whose
    // context carries it) drops its own, as /idempotency/flush does.
    deleted.idempotencyKeys = (companyId ? await call(caller, flushOwnKeys, {}) : await call(caller, flushOrganization, { organizationId })).flushed;
  }
  return deleted;
}

/** Expired sandbox organizations: wiped service by service, then removed by tenancy (which checks the expiry itself). */
async function expireSandboxes(this: Service, jobs: ClaimedJob[], em: EntityManager): Promise<void> {
  for (const job of jobs) {
    try {
      await wipe(this.broker, { organizationId: job.ref, subscriptions: true }, 'all');
      await call(this.broker, forgetOrganization, { organizationId: job.ref });
      const { removed, companyIds } = await call(this.broker, removeSandboxOrganization, { organizationId: job.ref });
      // Removal deletes the job with the organization; one that was not removed (no longer expiring) is done too.
      if (!removed) { await completeJobs(em.fork(), [job.id]); continue; }
      this.logger.info(`sandbox organization ${job.ref} expired and was removed`);
      // What remains names companies that are gone: best effort, it harms nobody if it waits.
      await call(this.broker, forgetCompanyClocks, { companyIds }).catch((err: unknown) => this.logger.warn(`sandbox organization ${job.ref}: its company clocks stay for now`, err));
    } catch (err) {
      // Left leased: tried again once the lease runs out.
      this.logger.error(`sandbox organization ${job.ref} could not be removed yet`, err);
    }
  }
}

const SandboxService: ServiceSchema = {
  name: 'sandbox',
  mixins: [SchedulerMixin({ [SANDBOX_EXPIRY_JOB]: { batch: 10, handle: expireSandboxes } })],
  actions: {
    bootstrap: implement(bootstrap, async (ctx) => {
      const label = ctx.params.label ?? 'quickstart';
      const keyType = ctx.params.keyType ?? 'personal';
      const expiresAt = new Date(systemClock.now().getTime() + loadConfig().sandboxKeyDays * 86_400_000);
      const result = await call(ctx, provision, {
        organization: { name: `${label} (sandbox)`, sandbox: true, plan: PLAN_FOR_KEY_TYPE[keyType], country: 'BE', expiresAt: expiresAt.toISOString() },
        company: seededBelgianCompany(label),
        apiKey: { name: label, keyType, ...(ctx.params.email ? { email: ctx.params.email } : {}), expiresAt: expiresAt.toISOString() },
      });
      return {
        apiKey: result.apiKey.key,
        keyPrefix: result.apiKey.keyPrefix,
        keyType,
        organizationId: result.organizationId,
        company: result.company,
        nextSteps: keyType === 'personal' ? NEXT_STEPS : NEXT_STEPS.map((s) => (s.path === '/v1/me/company' ? { ...s, step: `${s.step} (send X-Service-Company: ${result.company.id})` } : s)),
        expiresAt: expiresAt.toISOString(),
      };
    }),

    reset: implement(reset, async (ctx) => {
      const auth = principalOf(ctx);
      const scope = ctx.params.scope ?? 'all';
      const companyId = isCompanyBound(auth) ? auth.companyId ?? undefined : undefined;
      const deleted = await wipe(ctx, { organizationId: auth.organizationId, ...(companyId ? { companyId } : {}) }, scope);
      return { organizationId: auth.organizationId, companyId: companyId ?? null, scope, deleted, resetAt: systemClock.now().toISOString() };
    }),
  },
};

export default SandboxService;
