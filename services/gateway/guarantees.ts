/**
 * What the gateway guarantees around every authenticated call, kept out of gateway.service.ts:
 * per-credential rate limits (headers on every response), the monthly document quota hook,
 * Idempotency-Key (claim, capture, replay) and the request log capture.
 *
 * gateway.service.ts calls: `beforeAuthorize` once the caller is known, `afterValidation` once
 * the params are valid (the action's timing starts there), `afterCall` after the action, `noteError` and `replay` from
 * its error handler, `exhaust` for the sandbox control, `stop` when the gateway stops.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context, ServiceBroker } from 'moleculer';
import { call } from '../shared/call.ts';
import { DomainError } from '../shared/errors.ts';
import type { AppConfig } from '../shared/config.ts';
import type { Principal, RequestIdempotency, RequestMeta } from '../shared/auth.ts';
import type { HttpBinding } from '../shared/contract.ts';
import type { Plan } from '../tenancy/tenancy.contract.ts';
import { organizationPlan, consumeDocumentQuota, refundDocumentQuota, planRateLimits, type OrganizationPlan } from '../limits/limits.contract.ts';
import { claim as claimInStore, complete, release, renew, idempotencyDigest, idempotencyScope, type StoredResponse } from '../idempotency/idempotency.contract.ts';
import { ingest, type RequestLogInput, type UpstreamCall, type ValidationDiffEntry } from '../requests/requests.contract.ts';
import { createRateLimitStore, rateLimitHeaders, retryAfterSeconds, type RateLimitStore } from './rate-limit.ts';
import { RequestLogBuffer } from './request-log.ts';
import { idempotencyKeyOf, requestHash, derivedIdempotencyKey, IdempotentReplay, writeReplay, captureResponse, redactSecrets } from './idempotency.ts';
import type { ExhaustResult } from './rate-limit.contract.ts';

/** What the gateway keeps on a request while it is handled. */
export interface GuardedRequest extends IncomingMessage {
  $params: Record<string, unknown>;
  body?: unknown;
  $rawBody?: Buffer;
  /** performance.now() when the request arrived. */
  $t0?: number;
  /** Rate headers, sent on every response (success through res, errors through the formatter). */
  $limitHeaders?: Record<string, string>;
  $guard?: {
    auth: Principal;
    action: string;
    idempotencyKey?: string;
    replayed?: boolean;
    calls: UpstreamCall[];
    callStartedAt?: number;
    errorCode?: string;
    validation?: ValidationDiffEntry[];
    /** The request context's meta: `$calls` collects the trace of the action (services/shared/call-trace.ts). */
    meta?: { $calls?: UpstreamCall[] };
    /** Depth of the request's own context: traced levels are counted from it. */
    baseLevel?: number;
    /** Documents counted against the monthly quota by this request (given back if it fails). */
    quota?: { period: string; count: number };
  };
}

/** One request's Idempotency-Key, as `claimIdempotencyKey` takes it. */
export interface IdempotencyClaimInput {
  auth: Principal;
  key: string;
  /** Stored with the key, for the record (`POST`, the path or tool it was used on). */
  method: string;
  path: string;
  /** What makes two requests under the key "the same" (idempotency.ts `requestHash`). */
  requestHash: string;
  /** Fields of a success answer stored masked (`HttpBinding.secretFields`). */
  secretFields?: readonly string[] | undefined;
  /** Which answers are kept for replay: all but faults and throttling (default), or successes only. */
  keep?: 'answers' | 'successes';
}

/** A claimed key: what the request's actions carry, and how its answer is kept. */
export interface IdempotencyClaim {
  idempotency: RequestIdempotency;
  /** Stores the answer for replay (or releases the key: see `keep`); call before the client sees it. */
  finish(response: StoredResponse): Promise<void>;
  /** The request ended without an answer to keep: stop renewing the lease (it lapses). */
  abandon(): void;
}

/** Plans change rarely; a gateway re-reads an organization's plan at most this often. */
const PLAN_TTL_MS = 30_000;

const MUTATIONS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export class GatewayGuarantees {
  readonly limiter: RateLimitStore;
  readonly log: RequestLogBuffer;
  private readonly broker: ServiceBroker;
  private readonly limits: Record<Plan, number>;
  private readonly logReads: boolean;
  private readonly claimLockMs: number;
  private readonly plans = new Map<string, { at: number; plan: Promise<OrganizationPlan> }>();

  constructor(broker: ServiceBroker, config: AppConfig) {
    this.broker = broker;
    this.limits = planRateLimits(config.rateLimitOverrides);
    this.logReads = config.requestLogReads;
    this.claimLockMs = config.idempotencyClaimMs;
    this.limiter = createRateLimitStore(config.redisUrl);
    this.log = new RequestLogBuffer(async (entries) => { await call(broker, ingest, { entries }); }, {
      capacity: config.requestLogBufferSize, batchSize: config.requestLogBatchSize, flushIntervalMs: config.requestLogFlushMs,
    });
  }

  private planOf(ctx: Context, organizationId: string): Promise<OrganizationPlan> {
    const cached = this.plans.get(organizationId);
    const now = Date.now();
    if (cached && now - cached.at < PLAN_TTL_MS) return cached.plan;
    if (this.plans.size > 50_000) this.plans.clear();
    const plan = call(ctx, organizationPlan, { organizationId });
    this.plans.set(organizationId, { at: now, plan });
    plan.catch(() => this.plans.delete(organizationId));
    return plan;
  }

  /** The caller is known: count the request against its window, and arrange its log entry. */
  async beforeAuthorize(ctx: Context, req: GuardedRequest, res: ServerResponse, action: string): Promise<void> {
    const auth = (ctx.meta as RequestMeta).auth;
    if (!auth) return;
    req.$guard = { auth, action, calls: [] };
    res.once('finish', () => this.capture(req, res));
    const { headers, refusal } = await this.countRequest(ctx, auth);
    if (headers) {
      req.$limitHeaders = headers;
      if (!res.headersSent) for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    }
    if (refusal) throw refusal;
  }

  /**
   * One request of this credential against its plan's per-minute window: the rate headers, and the
   * refusal when the window is full. Also counts the calls that do not come through a route (an MCP tool call).
   */
  async countRequest(ctx: Context, auth: Principal): Promise<{ headers?: Record<string, string>; refusal?: DomainError }> {
    let plan: Plan;
    try {
      plan = (await this.planOf(ctx, auth.organizationId)).plan;
    } catch (err) {
      // No limits service reachable: the strictest plan applies rather than none.
      this.broker.logger.warn('organization plan unavailable, free-plan limit applied:', err);
      plan = 'free';
    }
    let decision;
    try {
      decision = await this.limiter.hit(idempotencyScope(auth), auth.organizationId, this.limits[plan]);
    } catch (err) {
      // The limiter's store is down: serve rather than refuse everyone (fail open), loudly.
      this.broker.logger.warn('rate limiter unavailable, request not counted:', err);
      return {};
    }
    const headers = rateLimitHeaders(decision);
    if (decision.allowed) return { headers };
    const wait = retryAfterSeconds(decision);
    return {
      headers,
      refusal: new DomainError('RATE_LIMITED', decision.forcedMs > 0
        ? `Rate limit forced by the sandbox for this organization; retry in ${wait} s`
        : `Rate limit of ${decision.limit} requests per minute exceeded for this credential; retry in ${wait} s`, { retryAfter: wait }),
    };
  }

  /** The operation sends documents: they count against the organization's monthly quota (429 QUOTA_EXCEEDED when used up). */
  async takeDocumentQuota(ctx: Context, auth: Principal, binding: HttpBinding, params: Record<string, unknown>): Promise<{ period: string; count: number } | undefined> {
    const flag = binding.consumesDocumentQuota;
    if (!flag) return undefined;
    const count = typeof flag === 'function' ? flag(params) : 1;
    if (count <= 0) return undefined;
    const usage = await call(ctx, consumeDocumentQuota, { organizationId: auth.organizationId, count });
    return { period: usage.period, count };
  }

  /** The send did not happen: its documents do not count. */
  giveBackDocumentQuota(auth: Principal, quota: { period: string; count: number }): void {
    call(this.broker, refundDocumentQuota, { organizationId: auth.organizationId, ...quota })
      .catch((err: unknown) => this.broker.logger.warn('document quota: refund failed:', err));
  }

  /** Valid params: claim the Idempotency-Key (or replay), then count a document against the quota. */
  async afterValidation(ctx: Context, req: GuardedRequest, res: ServerResponse, binding: HttpBinding): Promise<void> {
    const guard = req.$guard;
    if (!guard) return;
    const method = req.method ?? 'GET';
    if (method === 'POST') {
      const path = (req.url ?? '').split('?')[0]!;
      const contentType = req.headers['content-type'];
      const key = idempotencyKeyOf(req) ?? (binding.idempotencyKeyFromPayload ? derivedIdempotencyKey(req.url ?? path, contentType, req.body, req.$rawBody) : undefined);
      if (key) await this.claimKey(ctx, req, res, key, method, path, binding);
    }
    const quota = await this.takeDocumentQuota(ctx, guard.auth, binding, req.$params);
    if (quota) guard.quota = quota;
    // What follows is the action itself (moleculer-web calls it right after authorization):
    // from here on every action run for this request is traced into meta.$calls.
    guard.meta = ctx.meta as { $calls?: UpstreamCall[] };
    guard.meta.$calls = [];
    guard.baseLevel = ctx.level;
    guard.callStartedAt = performance.now();
  }

  private async claimKey(ctx: Context, req: GuardedRequest, res: ServerResponse, key: string, method: string, path: string, binding: HttpBinding): Promise<void> {
    const guard = req.$guard!;
    guard.idempotencyKey = key;
    const hash = requestHash(method, req.url ?? path, req.headers['content-type'], req.body, req.$rawBody);
    const claimed = await this.claimIdempotencyKey(ctx, { auth: guard.auth, key, method, path, requestHash: hash, secretFields: binding.secretFields }).catch((err: unknown) => {
      if (err instanceof IdempotentReplay) guard.replayed = true;
      throw err;
    });
    // The action sees the key too: a send keeps it with its document, so a retry after a lost
    // answer (a 5xx releases the claim below) finds that document instead of a duplicate number.
    (ctx.meta as RequestMeta).idempotency = claimed.idempotency;
    res.once('close', claimed.abandon);
    captureResponse(res, claimed.finish);
  }

  /**
   * Claims an Idempotency-Key for one request of `claim.auth`, for every surface that takes one
   * (a /v1 route, an /afnor/ operation, an MCP tool call): a key seen before throws the stored
   * answer (`IdempotentReplay`), a key used with another request `IDEMPOTENCY_BODY_MISMATCH`, a key
   * still running `IDEMPOTENCY_IN_PROGRESS`. Claimed, the caller runs the request with
   * `idempotency` in its action's meta (a send keeps it with its document) and hands its answer to
   * `finish` before the client sees it; `abandon` when the request ends without one.
   *
   * Server faults and throttling are never kept: the key is released so that a retry runs again.
   * `keep: 'successes'` lets go of refusals too: for a key the caller did not choose (derived from
   * the payload), a refused request created nothing, and the same payload fixed elsewhere (a
   * recipient registered meanwhile) must run again rather than replay the refusal for a day.
   */
  async claimIdempotencyKey(ctx: Context, claim: IdempotencyClaimInput): Promise<IdempotencyClaim> {
    const { auth, key, method, path, requestHash } = claim;
    const scope = idempotencyScope(auth);
    const lockMs = this.claimLockMs;
    const result = await call(ctx, claimInStore, { scope, key, organizationId: auth.organizationId, method, path, requestHash, lockMs });
    if (result.outcome === 'mismatch') {
      throw new DomainError('IDEMPOTENCY_BODY_MISMATCH', 'This Idempotency-Key was already used with a different request body; use a new key for a different request');
    }
    if (result.outcome === 'in_progress') {
      throw new DomainError('IDEMPOTENCY_IN_PROGRESS', 'A request with this Idempotency-Key is still being processed; retry shortly', { retryAfter: 1 });
    }
    if (result.outcome === 'replay') throw new IdempotentReplay(result.response);
    // Claimed, for a short lease renewed while this request runs: a process that dies mid-request
    // stops renewing, so its claim lapses within one lease and a retry runs (no 409 for minutes).
    const renewal = setInterval(() => {
      call(this.broker, renew, { scope, key, lockMs }).catch((err: unknown) => this.broker.logger.warn(`idempotency: could not renew the claim of ${key}:`, err));
    }, Math.max(250, Math.floor(lockMs / 3)));
    renewal.unref();
    const kept = (status: number) => status < 500 && status !== 429 && (claim.keep !== 'successes' || status < 300);
    return {
      idempotency: { key: idempotencyDigest(scope, key), requestHash },
      abandon: () => clearInterval(renewal),
      finish: async (response) => {
        clearInterval(renewal);
        try {
          if (kept(response.status)) await call(this.broker, complete, { scope, key, response: redactSecrets(response, claim.secretFields) });
          else await call(this.broker, release, { scope, key });
        } catch (err) {
          this.broker.logger.warn(`idempotency: could not store the response of ${key}:`, err);
        }
      },
    };
  }

  /**
   * A call that came through no route (an MCP tool call, services/gateway/mcp.ts) in the request
   * log, by the same rule as a request: changes and failures always, reads when EINV_REQUEST_LOG_READS.
   */
  logCall(auth: Principal, call: {
    id: string; method: string; path: string; action: string; status: number; errorCode: string | null; startedAt: number; validation?: ValidationDiffEntry[];
    idempotencyKey?: string | null; replayed?: boolean;
  }): void {
    if (!MUTATIONS.has(call.method) && call.status < 400 && !this.logReads) return;
    const durationMs = +(performance.now() - call.startedAt).toFixed(3);
    this.log.push({
      id: call.id, organizationId: auth.organizationId, method: call.method, path: call.path, status: call.status, errorCode: call.errorCode,
      apiKeyId: auth.apiKeyId, userId: auth.userId, action: call.action, durationMs, upstreamCalls: null,
      validation: call.status === 400 && call.validation?.length ? call.validation : null, idempotencyKey: call.idempotencyKey ?? null, replayed: call.replayed ?? false,
      createdAt: new Date(Date.now() - durationMs).toISOString(),
    });
  }

  /** The action answered (or failed): its call is in the trace even when it never reached a service. */
  afterCall(req: GuardedRequest, errorCode?: string): void {
    const guard = req.$guard;
    if (!guard || guard.callStartedAt === undefined) return;
    const calls = guard.meta?.$calls ?? guard.calls;
    if (!calls.some((c) => c.action === guard.action)) {
      calls.push({ action: guard.action, durationMs: +(performance.now() - guard.callStartedAt).toFixed(3), level: (guard.baseLevel ?? 0) + 1, ...(errorCode ? { errorCode } : {}) });
    }
    guard.calls = calls;
    guard.callStartedAt = undefined;
  }

  /** From the error handler: the code and field details of the answer, for the log (validation diff of 400s). */
  noteError(req: GuardedRequest, body: unknown): void {
    const guard = req.$guard;
    if (!guard) return;
    const error = (body as { error?: unknown } | undefined)?.error;
    const envelope = error && typeof error === 'object' ? (error as { code?: unknown; details?: unknown }) : undefined;
    const code = typeof envelope?.code === 'string' ? envelope.code : typeof error === 'string' ? error : 'UNKNOWN';
    if (guard.callStartedAt !== undefined) this.afterCall(req, code);
    guard.errorCode = code;
    if (Array.isArray(envelope?.details) && envelope.details.length) guard.validation = envelope.details as ValidationDiffEntry[];
  }

  /** From the error handler: answers a replay; false when `err` is not one. */
  replay(err: unknown, res: ServerResponse, headers: Record<string, string>): boolean {
    if (!(err instanceof IdempotentReplay)) return false;
    writeReplay(res, err.response, headers);
    return true;
  }

  async exhaust(ctx: Context<{ durationSeconds?: number }>): Promise<ExhaustResult> {
    const auth = (ctx.meta as RequestMeta).auth!;
    const durationSeconds = ctx.params.durationSeconds ?? 60;
    await this.limiter.exhaust(auth.organizationId, durationSeconds);
    return { organizationId: auth.organizationId, durationSeconds, exhaustedUntil: new Date(Date.now() + durationSeconds * 1000).toISOString() };
  }

  private capture(req: GuardedRequest, res: ServerResponse): void {
    const guard = req.$guard;
    if (!guard) return;
    const method = req.method ?? 'GET';
    const status = res.statusCode;
    if (guard.quota && status >= 400) this.giveBackDocumentQuota(guard.auth, guard.quota);
    if (!MUTATIONS.has(method) && status < 400 && !this.logReads) return;
    const now = performance.now();
    const durationMs = +(now - (req.$t0 ?? now)).toFixed(3);
    const entry: RequestLogInput = {
      id: (req as { $requestId?: string }).$requestId ?? '',
      organizationId: guard.auth.organizationId,
      method,
      path: (req.url ?? '').split('?')[0]!,
      status,
      errorCode: status >= 400 ? guard.errorCode ?? null : null,
      apiKeyId: guard.auth.apiKeyId,
      userId: guard.auth.userId,
      action: guard.action,
      durationMs,
      upstreamCalls: guard.calls.length
        ? guard.calls.map((c) => ({ ...c, level: (c.level ?? 1) - (guard.baseLevel ?? 0) })).sort((a, b) => a.level - b.level)
        : null,
      validation: status === 400 && guard.validation ? guard.validation : null,
      idempotencyKey: guard.idempotencyKey ?? null,
      replayed: guard.replayed ?? false,
      createdAt: new Date(Date.now() - durationMs).toISOString(),
    };
    if (entry.id) this.log.push(entry);
  }

  async stop(): Promise<void> {
    await this.log.stop();
    await this.limiter.close();
  }
}
