/**
 * webhooks: subscriptions and secrets, the fan-out and the delivery worker. The fan-out follows the
 * committed event feed with a cursor of its own (feed-follower.ts), woken by every outbox write and
 * by a node-cron poll; it creates one delivery per subscribed webhook. Pending attempts are due-time rows
 * of the scheduler (kind `webhook.deliver`); this service handles them in batches: sends each
 * attempt, then records the outcome and completes or reschedules the row in one transaction. After
 * the 8th failed attempt of a delivery the webhook is paused; its events stay in the log for replay.
 */
import type { Context, Service, ServiceBroker, ServiceSchema } from 'moleculer';
import type { EntityManager } from '@mikro-orm/postgresql';
import { OrmMixin, emOf } from '../../mixins/orm.mixin.ts';
import { databaseOf } from '../shared/persistence/database.ts';
import { DrainLoop } from '../shared/drain-loop.ts';
import { SchedulerMixin, WAKE_EVENT } from '../../mixins/scheduler.mixin.ts';
import { BusinessClockMixin } from '../../mixins/business-clock.mixin.ts';
import { implement } from '../shared/contract.ts';
import { principalOf, type Principal } from '../shared/auth.ts';
import { DomainError } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { clockOffsetOf, offsetClock, systemClock } from '../shared/clock.ts';
import { loadConfig } from '../shared/config.ts';
import { readPageRequest, toPage } from '../shared/pagination.ts';
import { completeJobs, rescheduleJob, scheduleJobs, type ClaimedJob } from '../shared/scheduler/scheduler.ts';
import { call } from '../shared/call.ts';
import { countMetric, observeSeconds } from '../shared/metrics.ts';
import { API_VERSION, OUTBOX_WRITTEN_EVENT, findEvent, isLogOnly } from '../events/events.contract.ts';
import { companyOf } from '../tenancy/tenancy.contract.ts';
import { Webhook, type WebhookFormat } from './webhook.entity.ts';
import { WebhookDelivery } from './delivery.entity.ts';
import { generateWebhookSecret } from './signature.ts';
import { privateTargetProblem, urlShapeProblem } from '../shared/url-policy.ts';
import { attemptDelivery, type AttemptResult } from './http-delivery.ts';
import { payloadFor, retryDelayAfter } from './fan-out.ts';
import { flowFactsOf, flowPayload } from './afnor-flow-payload.ts';
import { fanOutPage } from './feed-follower.ts';
import * as contract from './webhooks.contract.ts';
import { WEBHOOK_PAUSED_EVENT, type DeliveryView, type WebhookPaused, type WebhookView } from './webhooks.contract.ts';

const DEFAULT_OVERLAP_SECONDS = 86_400;

/** A subscription of the caller's; `afnor-flow` ones get AFNOR flow bodies (services/webhooks/afnor-flow-payload.ts). */
async function createHook(ctx: Context<contract.CreateWebhookParams>, format: WebhookFormat): Promise<contract.WebhookView> {
  const auth = principalOf(ctx);
  await checkUrl(ctx.params.url, auth.livemode);
  const secret = generateWebhookSecret();
  const em = emOf(ctx);
  const hook = em.create(Webhook, {
    id: newId('webhook'), organizationId: auth.organizationId, companyId: auth.companyId ?? null, url: ctx.params.url,
    events: ctx.params.events, description: ctx.params.description ?? null, status: 'active', failureCount: 0, format,
    livemode: auth.livemode, secret, previousSecret: null, previousSecretExpiresAt: null,
  });
  await em.flush();
  return webhookView(hook, secret);
}

function webhookView(w: Webhook, secret?: string): WebhookView {
  const overlapping = w.previousSecretExpiresAt && w.previousSecretExpiresAt > systemClock.now();
  return {
    id: w.id, url: w.url, events: [...w.events], description: w.description ?? null, status: w.status, failureCount: w.failureCount,
    companyId: w.companyId ?? null, livemode: w.livemode, ...(secret ? { secret } : {}),
    previousSecretExpiresAt: overlapping ? w.previousSecretExpiresAt!.toISOString() : null,
    createdAt: w.createdAt.toISOString(), updatedAt: w.updatedAt.toISOString(),
  };
}

function deliveryView(d: WebhookDelivery): DeliveryView {
  return {
    id: d.id, webhookId: d.webhook.id, eventId: d.eventId, eventType: d.eventType, status: d.status, attempts: d.attempts,
    nextAttemptAt: d.nextAttemptAt?.toISOString() ?? null, lastStatusCode: d.lastStatusCode ?? null, lastLatencyMs: d.lastLatencyMs ?? null,
    lastError: d.lastError ?? null, test: d.test, createdAt: d.createdAt.toISOString(), deliveredAt: d.deliveredAt?.toISOString() ?? null,
    attemptLog: d.attemptLog,
  };
}

/** The secrets that sign now: the current one, plus the previous one during a rotation overlap. */
function signingSecrets(w: Webhook): string[] {
  const previous = w.previousSecret && w.previousSecretExpiresAt && w.previousSecretExpiresAt > systemClock.now() ? [w.previousSecret] : [];
  return [w.secret, ...previous];
}

async function checkUrl(url: string, livemode: boolean, field = 'url'): Promise<void> {
  const problem = urlShapeProblem(url, livemode) ?? (livemode ? await privateTargetProblem(url) : undefined);
  if (problem) throw new DomainError('INVALID_REQUEST', `${field} ${problem}`, { details: [{ field, rule: 'webhookTarget', message: `${field} ${problem}` }] });
}

async function findWebhook(ctx: Context, auth: Principal, id: string): Promise<Webhook> {
  const where: Record<string, unknown> = { id, organizationId: auth.organizationId, livemode: auth.livemode };
  if (auth.companyId) where.companyId = auth.companyId;
  const hook = await emOf(ctx).findOne(Webhook, where);
  if (!hook) throw new DomainError('RESOURCE_NOT_FOUND', `Webhook '${id}' was not found`);
  return hook;
}

function recordAttempt(d: WebhookDelivery, attempt: number, r: AttemptResult): void {
  // Attempts begun by a worker that died before recording them: their outcome is unknown.
  const lost = Array.from({ length: Math.max(0, attempt - d.attempts - 1) }, (_, i) => ({
    attempt: d.attempts + 1 + i, at: r.at.toISOString(), statusCode: null, latencyMs: 0, error: 'outcome unknown: the delivery worker stopped before recording it',
  }));
  d.attempts = attempt;
  d.attemptsStarted = Math.max(d.attemptsStarted, attempt);
  d.attemptLog = [...d.attemptLog, ...lost, { attempt, at: r.at.toISOString(), statusCode: r.statusCode, latencyMs: r.latencyMs, error: r.error }];
  d.lastStatusCode = r.statusCode;
  d.lastLatencyMs = r.latencyMs;
  d.lastError = r.error;
}

type WebhooksThis = Service & { follower: DrainLoop };

interface Outcome {
  job: ClaimedJob;
  d?: WebhookDelivery;
  cancelled?: boolean;
  hook?: Webhook;
  attempt?: number;
  result?: AttemptResult;
}

/** Outcomes known after this long are recorded at once; slower receivers are recorded when they answer. */
const FIRST_WAVE_MS = 1_000;
/** Batches with slow receivers still out, per service instance, before the worker waits for one. */
const MAX_SLOW_BATCHES = 8;
const slowBatches = new WeakMap<Service, Set<Promise<void>>>();

function slowBatchesOf(service: Service): Set<Promise<void>> {
  let set = slowBatches.get(service);
  if (!set) slowBatches.set(service, (set = new Set()));
  return set;
}

async function sendOne(job: ClaimedJob, d: WebhookDelivery | undefined, timeoutMs: number, startedAttempts: Map<string, number>): Promise<Outcome> {
  if (!d || d.status !== 'pending') return { job };
  const hook = d.webhook.getEntity();
  if (hook.status !== 'active') return { job, d, cancelled: true };
  const attempt = startedAttempts.get(d.id) ?? d.attempts + 1;
  const result = await attemptDelivery({ url: hook.url, livemode: hook.livemode, secrets: signingSecrets(hook), format: hook.format },
    { deliveryId: d.id, eventId: d.eventId, eventType: d.eventType, payload: d.payload, attempt }, timeoutMs);
  return { job, d, hook, attempt, result };
}

/**
 * Numbers the attempts about to leave, durably and before they leave (one autocommitted statement,
 * no transaction held across the requests): a worker killed mid-attempt leaves the count raised, so
 * the re-send after its lease carries the next attempt number instead of repeating this one.
 */
async function startAttempts(em: EntityManager, ids: string[]): Promise<Map<string, number>> {
  if (!ids.length) return new Map();
  const rows = await em.execute<Array<{ id: string; attempts_started: number }>>(
    `update webhook_deliveries set attempts_started = greatest(attempts_started, attempts) + 1 where id in (${ids.map(() => '?').join(', ')}) returning id, attempts_started`, ids, 'all');
  return new Map(rows.map((r) => [r.id, Number(r.attempts_started)]));
}

/**
 * Sends the due attempts of a batch. Outcomes are recorded (delivery, job, webhook counters) in one
 * transaction per wave: what answered within a second first, then the slow receivers when they
 * have answered, so one slow endpoint never holds back the others' records or the next claims.
 */
async function deliverDue(this: Service, jobs: ClaimedJob[], em: EntityManager): Promise<void> {
  const timeoutMs = loadConfig().events.webhookTimeoutMs;
  const deliveries = new Map((await em.find(WebhookDelivery, { id: { $in: jobs.map((j) => j.ref) } }, { populate: ['webhook'] })).map((d) => [d.id, d]));
  const startedAttempts = await startAttempts(em, [...deliveries.values()].filter((d) => d.status === 'pending').map((d) => d.id));
  const finished: Outcome[] = [];
  const all = Promise.all(jobs.map(async (job) => { finished.push(await sendOne(job, deliveries.get(job.ref), timeoutMs, startedAttempts)); }));
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([all, new Promise<void>((resolve) => { timer = setTimeout(resolve, FIRST_WAVE_MS); })]);
  clearTimeout(timer);
  const firstWave = finished.splice(0);
  await recordOutcomes.call(this, em, firstWave);
  if (firstWave.length === jobs.length) return;
  const slow = slowBatchesOf(this);
  const rest: Promise<void> = all
    .then(() => recordOutcomes.call(this, em, finished.splice(0)))
    // Unrecorded attempts keep their lease; when it runs out they are attempted again (at least once).
    .catch((err: unknown) => { this.logger.error('webhooks: recording slow deliveries failed; they will be attempted again', err); })
    .finally(() => { slow.delete(rest); });
  slow.add(rest);
  if (slow.size >= MAX_SLOW_BATCHES) await Promise.race(slow);
}

/** One attempt in the delivery metrics: success, http_error (a non-2xx answer) or no_answer. */
function observeAttempt(broker: ServiceBroker, result: AttemptResult): void {
  const outcome = result.ok ? 'success' : result.statusCode !== null ? 'http_error' : 'no_answer';
  countMetric(broker, 'webhookDeliveries', { outcome });
  observeSeconds(broker, 'webhookDuration', result.latencyMs, { outcome });
}

async function recordOutcomes(this: Service, em: EntityManager, outcomes: Outcome[]): Promise<void> {
  if (!outcomes.length) return;
  const offsets = new Map<string, number>();
  for (const companyId of new Set(outcomes.map((o) => o.d?.companyId).filter((c): c is string => !!c))) offsets.set(companyId, await clockOffsetOf(em, companyId));

  const done: string[] = [];
  const failuresByHook = new Map<string, number>();
  const successes = new Set<string>();
  const exhausted = new Map<string, Required<Outcome>>();
  const reschedules: Array<[string, Date]> = [];
  for (const o of outcomes) {
    if (!o.d) { done.push(o.job.id); continue; }
    if (o.cancelled) { o.d.status = 'cancelled'; o.d.nextAttemptAt = null; done.push(o.job.id); continue; }
    const { d, hook, attempt, result } = o as Required<Outcome>;
    recordAttempt(d, attempt, result);
    observeAttempt(this.broker, result);
    if (result.ok) {
      d.status = 'succeeded';
      d.deliveredAt = result.at;
      d.nextAttemptAt = null;
      successes.add(hook.id);
      done.push(o.job.id);
      continue;
    }
    failuresByHook.set(hook.id, (failuresByHook.get(hook.id) ?? 0) + 1);
    const delay = retryDelayAfter(attempt);
    if (delay === null) {
      d.status = 'failed';
      d.nextAttemptAt = null;
      exhausted.set(hook.id, o as Required<Outcome>);
      done.push(o.job.id);
    } else {
      // The retry is due in the company's business time, so the sandbox clock can bring it forward.
      d.nextAttemptAt = new Date(offsetClock(offsets.get(d.companyId ?? '') ?? 0).now().getTime() + delay * 1000);
      reschedules.push([o.job.id, d.nextAttemptAt]);
    }
  }
  const paused: WebhookPaused[] = [];
  await em.begin();
  try {
    await em.flush();
    await completeJobs(em, done);
    for (const [id, dueAt] of reschedules) await rescheduleJob(em, id, dueAt);
    // Webhook rows in id order, and only touched when something changes: parallel batches never deadlock on them.
    for (const id of [...new Set([...successes, ...failuresByHook.keys(), ...exhausted.keys()])].sort()) {
      if (successes.has(id)) await em.execute(`update webhooks set failure_count = 0 where id = ? and failure_count <> 0`, [id], 'run');
      else await em.execute(`update webhooks set failure_count = failure_count + ? where id = ?`, [failuresByHook.get(id) ?? 0, id], 'run');
      const last = exhausted.get(id);
      if (!last) continue;
      const pausedAt = systemClock.now();
      // Only the batch that moved it from active tells anyone: a webhook is paused (and announced) once.
      const moved = await em.execute<Array<{ id: string }>>(`update webhooks set status = 'paused', updated_at = ? where id = ? and status = 'active' returning id`, [pausedAt, id], 'all');
      if (moved.length) paused.push(pausedEvent(last, pausedAt));
    }
    await em.commit();
  } catch (err) {
    await em.rollback();
    throw err;
  }
  // Announced after the commit, never from inside the transaction: the notification e-mail is sent by the mail service.
  for (const event of paused) {
    this.logger.warn(`webhook ${event.webhookId} paused: a delivery failed all its attempts`);
    void this.broker.emit(WEBHOOK_PAUSED_EVENT, event);
  }
}

function pausedEvent({ d, hook, result }: Required<Outcome>, pausedAt: Date): WebhookPaused {
  return {
    webhookId: hook.id, organizationId: hook.organizationId, companyId: hook.companyId ?? null, url: hook.url, livemode: hook.livemode, pausedAt: pausedAt.toISOString(),
    eventId: d.eventId, eventType: d.eventType, attempts: d.attempts, lastStatusCode: result.statusCode, lastError: result.error,
  };
}

const WebhooksService: ServiceSchema = {
  name: 'webhooks',
  mixins: [OrmMixin, BusinessClockMixin, SchedulerMixin({ [contract.DELIVER_JOB]: { batch: loadConfig().events.webhookBatch, parallel: 4, handle: deliverDue } })],

  created() {
    const self = this as unknown as WebhooksThis;
    const batch = loadConfig().events.dispatcherBatch;
    // Fans the feed out until it is caught up; the cursor did not move for a page that failed, so it is taken again.
    self.follower = new DrainLoop(async (stopping) => {
      let events = 0;
      while (!stopping()) {
        const page = await fanOutPage(self.broker, databaseOf(self.broker).em.fork() as EntityManager, batch);
        events += page.events;
        if (page.deliveries) void self.broker.broadcast(WAKE_EVENT, { kind: contract.DELIVER_JOB });
        if (page.won && page.events < batch) break;
      }
      return events;
    }, (err) => self.logger.error('webhooks: fanning out the event feed failed; it is retried on the next poll', err));
  },

  started() {
    (this as unknown as WebhooksThis).follower.start(loadConfig().events.dispatcherCron);
  },

  async stopped() {
    await (this as unknown as WebhooksThis).follower.stop();
    // Slow receivers' outcomes still being awaited are recorded before the database closes.
    await Promise.allSettled([...slowBatchesOf(this as unknown as Service)]);
  },

  events: {
    [OUTBOX_WRITTEN_EVENT]: {
      handler(this: WebhooksThis) {
        void this.follower.run();
      },
    },
  },

  actions: {
    checkWebhookTarget: implement(contract.checkWebhookTarget, async (ctx) => {
      await checkUrl(ctx.params.url, ctx.params.livemode, ctx.params.field);
      return { ok: true as const };
    }),

    openTenantWebhook: implement(contract.openTenantWebhook, async (ctx) => {
      const p = ctx.params;
      await checkUrl(p.url, p.livemode);
      const secret = generateWebhookSecret();
      const em = emOf(ctx);
      const hook = em.create(Webhook, {
        id: newId('webhook'), organizationId: p.organizationId, companyId: p.companyId, url: p.url, events: p.events, description: p.description ?? null,
        status: 'active', failureCount: 0, livemode: p.livemode, secret, previousSecret: null, previousSecretExpiresAt: null,
      });
      await em.flush();
      return webhookView(hook, secret);
    }),

    resetSandbox: implement(contract.resetSandbox, async (ctx) => {
      const { organizationId, companyId, subscriptions } = ctx.params;
      return emOf(ctx).transactional(async (tx) => {
        const sandboxDeliveries = `select d.id from webhook_deliveries d join webhooks w on w.id = d.webhook_id where w.organization_id = ? and not w.livemode${companyId ? ' and d.company_id = ?' : ''}`;
        const args = companyId ? [organizationId, companyId] : [organizationId];
        const jobs = await tx.execute<{ affectedRows?: number }>(`delete from scheduled_jobs where kind = ? and ref in (${sandboxDeliveries})`, [contract.DELIVER_JOB, ...args], 'run');
        const deliveries = await tx.execute<{ affectedRows?: number }>(`delete from webhook_deliveries where id in (${sandboxDeliveries})`, args, 'run');
        const hooks = subscriptions ? await tx.execute<{ affectedRows?: number }>(`delete from webhooks where organization_id = ? and not livemode`, [organizationId], 'run') : { affectedRows: 0 };
        return { deliveries: deliveries.affectedRows ?? 0, scheduledJobs: jobs.affectedRows ?? 0, webhooks: hooks.affectedRows ?? 0 };
      });
    }),

    deliveryStats: implement(contract.deliveryStats, async (ctx) => {
      const { organizationId, livemode, companyId, from, to } = ctx.params;
      // Served by webhook_deliveries_usage_index (organization, created_at; test events left out).
      const rows = await emOf(ctx).execute<Array<{ status: string; n: string }>>(
        `select d.status, count(*) as n from webhook_deliveries d join webhooks w on w.id = d.webhook_id
         where d.organization_id = ? and not d.test and d.created_at >= ? and d.created_at < ? and w.livemode = ?${companyId ? ' and d.company_id = ?' : ''}
         group by d.status`,
        [organizationId, new Date(from), new Date(to), livemode, ...(companyId ? [companyId] : [])], 'all');
      const count = (status: string) => Number(rows.find((r) => r.status === status)?.n ?? 0);
      const succeeded = count('succeeded');
      const failed = count('failed');
      return { succeeded, failed, pending: count('pending'), successRate: succeeded + failed ? Math.round((succeeded / (succeeded + failed)) * 10_000) / 10_000 : null };
    }),

    createWebhook: implement(contract.createWebhook, async (ctx) => createHook(ctx, 'native')),

    createFlowWebhook: implement(contract.createFlowWebhook, async (ctx) => createHook(ctx, 'afnor-flow')),

    listWebhooks: implement(contract.listWebhooks, async (ctx) => {
      const auth = principalOf(ctx);
      const page = readPageRequest(ctx.params);
      const where: Record<string, unknown> = { organizationId: auth.organizationId, livemode: auth.livemode };
      if (auth.companyId) where.companyId = auth.companyId;
      if (page.after) where.id = { $lt: page.after };
      const rows = await emOf(ctx).find(Webhook, where, { orderBy: { id: 'desc' }, limit: page.limit + 1 });
      return toPage(rows, page, (r) => r.id, (r) => webhookView(r));
    }),

    getWebhook: implement(contract.getWebhook, async (ctx) => webhookView(await findWebhook(ctx, principalOf(ctx), ctx.params.id))),

    updateWebhook: implement(contract.updateWebhook, async (ctx) => {
      const auth = principalOf(ctx);
      const hook = await findWebhook(ctx, auth, ctx.params.id);
      if (ctx.params.url !== undefined) {
        await checkUrl(ctx.params.url, auth.livemode);
        hook.url = ctx.params.url;
      }
      if (ctx.params.events !== undefined) hook.events = ctx.params.events;
      if (ctx.params.description !== undefined) hook.description = ctx.params.description;
      if (ctx.params.status !== undefined && ctx.params.status !== hook.status) {
        hook.status = ctx.params.status;
        if (hook.status === 'active') hook.failureCount = 0;
      }
      await emOf(ctx).flush();
      return webhookView(hook);
    }),

    deleteWebhook: implement(contract.deleteWebhook, async (ctx) => {
      const auth = principalOf(ctx);
      const hook = await findWebhook(ctx, auth, ctx.params.id);
      const em = emOf(ctx);
      await em.transactional(async (tx) => {
        await tx.execute(`delete from scheduled_jobs where kind = ? and ref in (select id from webhook_deliveries where webhook_id = ?)`, [contract.DELIVER_JOB, hook.id], 'run');
        await tx.execute(`delete from webhooks where id = ?`, [hook.id], 'run');
      });
      return { id: hook.id, deleted: true as const };
    }),

    rotateWebhookSecret: implement(contract.rotateWebhookSecret, async (ctx) => {
      const auth = principalOf(ctx);
      const hook = await findWebhook(ctx, auth, ctx.params.id);
      const overlap = ctx.params.overlapSeconds ?? DEFAULT_OVERLAP_SECONDS;
      const secret = generateWebhookSecret();
      hook.previousSecret = overlap > 0 ? hook.secret : null;
      hook.previousSecretExpiresAt = overlap > 0 ? new Date(systemClock.now().getTime() + overlap * 1000) : null;
      hook.secret = secret;
      await emOf(ctx).flush();
      return webhookView(hook, secret);
    }),

    listDeliveries: implement(contract.listDeliveries, async (ctx) => {
      const auth = principalOf(ctx);
      const hook = await findWebhook(ctx, auth, ctx.params.id);
      const page = readPageRequest(ctx.params);
      const where: Record<string, unknown> = { webhook: hook.id };
      if (ctx.params.status) where.status = ctx.params.status;
      if (ctx.params.eventId) where.eventId = ctx.params.eventId;
      if (page.after) where.id = { $lt: page.after };
      const rows = await emOf(ctx).find(WebhookDelivery, where, { orderBy: { id: 'desc' }, limit: page.limit + 1 });
      return toPage(rows, page, (r) => r.id, deliveryView);
    }),

    sendTestEvent: implement(contract.sendTestEvent, async (ctx) => {
      const auth = principalOf(ctx);
      const hook = await findWebhook(ctx, auth, ctx.params.id);
      if (hook.status === 'disabled') throw new DomainError('INVALID_TRANSITION', 'This webhook is disabled; set it active or paused to test it', { extra: { allowedTransitions: ['active', 'paused'] } });
      const em = emOf(ctx);
      const clock = offsetClock(await clockOffsetOf(em, hook.companyId));
      const envelope = {
        id: newId('event'), type: 'webhook.test', livemode: hook.livemode, createdAt: clock.now().toISOString(), apiVersion: API_VERSION,
        data: { webhookId: hook.id, message: 'A test event sent on request; it is not in the event log.' },
      };
      const d = em.create(WebhookDelivery, {
        id: newId('delivery'), webhook: hook, organizationId: auth.organizationId, companyId: hook.companyId ?? null, eventId: envelope.id,
        eventType: envelope.type, payload: JSON.stringify(envelope), status: 'pending', attempts: 0, attemptLog: [], test: true,
        nextAttemptAt: null, lastStatusCode: null, lastLatencyMs: null, lastError: null, deliveredAt: null,
      });
      const result = await attemptDelivery({ url: hook.url, livemode: hook.livemode, secrets: signingSecrets(hook), format: hook.format },
        { deliveryId: d.id, eventId: d.eventId, eventType: d.eventType, payload: d.payload, attempt: 1 }, loadConfig().events.webhookTimeoutMs);
      recordAttempt(d, 1, result);
      observeAttempt(ctx.broker, result);
      d.status = result.ok ? 'succeeded' : 'failed';
      d.deliveredAt = result.ok ? result.at : null;
      await em.flush();
      return deliveryView(d);
    }),

    replayEvent: implement(contract.replayEvent, async function (this: WebhooksThis, ctx) {
      const auth = principalOf(ctx);
      const hook = await findWebhook(ctx, auth, ctx.params.id);
      if (hook.status !== 'active') {
        throw new DomainError('INVALID_TRANSITION', `This webhook is ${hook.status}; set it active (PATCH status=active) before replaying`, { extra: { allowedTransitions: ['active'] } });
      }
      const em = emOf(ctx);
      const found = await call(ctx, findEvent, { organizationId: auth.organizationId, id: ctx.params.eventId, livemode: hook.livemode, ...(hook.companyId ? { companyId: hook.companyId } : {}) });
      if (!found) throw new DomainError('RESOURCE_NOT_FOUND', `Event '${ctx.params.eventId}' was not found`);
      const { envelope, companyId: eventCompanyId } = found;
      if (isLogOnly(envelope.type)) throw new DomainError('INVALID_REQUEST', `'${envelope.type}' events exist only in the event log and are never delivered to webhooks`, { details: [{ field: 'eventId', rule: 'logOnly', message: 'Log-only event type' }] });
      const tenant = !hook.companyId && eventCompanyId ? await call(ctx, companyOf, { organizationId: auth.organizationId, companyId: eventCompanyId }) : null;
      const payload = hook.format === 'afnor-flow'
        ? flowPayload(envelope, await flowFactsOf(ctx, [{ envelope, organizationId: auth.organizationId }], [hook]))
        : payloadFor({ companyId: hook.companyId ?? null }, envelope, tenant ?? undefined);
      if (payload === undefined) throw new DomainError('INVALID_REQUEST', `Event '${envelope.id}' announces no AFNOR flow to this subscription`, { details: [{ field: 'eventId', rule: 'flow', message: 'no flow for this event' }] });
      const dueAt = offsetClock(await clockOffsetOf(em, eventCompanyId)).now();
      const d = em.create(WebhookDelivery, {
        id: newId('delivery'), webhook: hook, organizationId: auth.organizationId, companyId: eventCompanyId, eventId: envelope.id,
        eventType: envelope.type, payload: JSON.stringify(payload), status: 'pending', attempts: 0, attemptLog: [], test: false,
        nextAttemptAt: dueAt, lastStatusCode: null, lastLatencyMs: null, lastError: null, deliveredAt: null,
      });
      scheduleJobs(em, [{ kind: contract.DELIVER_JOB, ref: d.id, companyId: eventCompanyId, dueAt }]);
      await em.flush();
      void this.broker.broadcast(WAKE_EVENT, { kind: contract.DELIVER_JOB });
      return deliveryView(d);
    }),
  },
};

export default WebhooksService;
