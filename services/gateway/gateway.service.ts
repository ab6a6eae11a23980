/**
 * The HTTP edge (moleculer-web): request ids, bounded body reading (gzip included), credential
 * resolution, scope / company / test-mode rules, request validation against the contracts, and
 * the single error formatter. Only the contracts' explicit aliases are reachable.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context, ServiceSchema, ServiceSettingSchema } from 'moleculer';
import ApiGateway from 'moleculer-web';
import { loadConfig } from '../shared/config.ts';
import { newId } from '../shared/ids.ts';
import { DomainError } from '../shared/errors.ts';
import { call } from '../shared/call.ts';
import type { Principal, RequestMeta } from '../shared/auth.ts';
import { assertAccess } from './access.ts';
import { clientIp } from './client-ip.ts';
import { mcpHandler, type McpGateway } from './mcp.ts';
import { llmsTxt as renderLlmsTxt } from './llms-txt.ts';
import type { ActionContract, HttpBinding } from '../shared/contract.ts';
import { authenticateKey, API_KEY_REVOKED_EVENT, COMPANY_SUSPENDED_EVENT, CUSTOM_DOMAIN_CHANGED_EVENT, type ApiKeyRevoked, type CompanySuspended } from '../tenancy/tenancy.contract.ts';
import { CustomDomains } from './custom-domains.ts';
import { PrincipalCache } from './principal-cache.ts';
import { readBody } from './http-body.ts';
import { formatError, formatOAuthError, ERROR_TABLE } from './error-formatter.ts';
import { resolveBearerToken } from './credentials.ts';
import { applyDeprecationHeaders } from './deprecation.ts';
import { assertStorableParams, compileChecker, rawDepositParams, requestParams, type ParamsChecker } from './request-validation.ts';
import { buildOpenApi } from './openapi.ts';
import { connectorRouteHandler } from './connector-routes.ts';
import { afnorHandler, AFNOR_BASE, type AfnorGateway } from './afnor/afnor-route.ts';
import { HTTP_CONTRACTS } from './routes.ts';
import { IpLimiter } from './ip-limiter.ts';
import { AuthFailureThrottle, clientKey, ipKey, isAuthFailure } from './auth-failures.ts';
import { GatewayGuarantees, type GuardedRequest } from './guarantees.ts';
import { exhaustRateLimit } from './rate-limit.contract.ts';
import { openapi, errorCatalogue, errorPage, referencePage, referenceScript, llmsTxt, createSession, SESSION_SECONDS } from './gateway.contract.ts';
import { DashboardSessions, SESSION_TOKEN_PREFIX } from './dashboard-session.ts';
import { dashboardHandler } from './dashboard-assets.ts';
import { systemClock } from '../shared/clock.ts';
import { errorCataloguePage, REFERENCE_PAGE, referenceScriptBytes } from './docs-pages.ts';
import { implement } from '../shared/contract.ts';
import { traceIdOfRequest } from '../shared/tracing.ts';
import { countHttpError, observeHttpRequest, rememberRootSpan, rootSpanTags, tagRootSpan } from './http-observability.ts';

type Req = IncomingMessage & {
  $requestId?: string;
  $params: Record<string, unknown>;
  $alias?: GatewayAlias;
  $ctx?: Context;
  body?: unknown;
  query?: Record<string, unknown>;
  $rawBody?: Buffer;
  /** performance.now() at arrival (request-log durations). */
  $t0?: number;
  /** Rate-limit headers of this request, for every answer it gets. */
  $limitHeaders?: Record<string, string>;
};

/** The API key a sign-in (POST /v1/sessions) exchanges, handed from authenticate to the action. */
interface SessionMeta {
  $sessionKey?: string;
}

interface GatewayAlias {
  action: string;
  binding: HttpBinding;
  check: ParamsChecker;
  method: string;
}

const config = loadConfig();

/**
 * Every response, error or not, carries the request id; it is minted once per request (when the
 * request enters the gateway, see rootCallOptions). Set again on the way out: moleculer-web writes
 * its own context's id in the same header first.
 */
function requestIdOf(req: Req, res: ServerResponse): string {
  req.$requestId ??= newId('request');
  if (!res.headersSent) res.setHeader('X-Request-Id', req.$requestId);
  return req.$requestId;
}

/** What a client authentication's failures count against: the address, and the client id it names. */
function clientAuthenticationKeys(req: Req): string[] {
  const clientId = req.$params?.client_id;
  return typeof clientId === 'string' && clientId ? [ipKey(clientIp(req)), clientKey(clientId)] : [ipKey(clientIp(req))];
}

/**
 * A route the gateway answers outside /v1's pipeline (connectors' push routes, the dashboard's files,
 * MCP, AFNOR): only the aliases it names, no body parsing (each reads its own body, bounded), no key
 * authentication (each authenticates its callers itself, or serves public files).
 */
const SELF_ANSWERED_ROUTE = { mappingPolicy: 'restrict', autoAliases: false, bodyParsers: false, authentication: false, authorization: false } as const;

/** Paths of the operations that carry documents inside their JSON (`largeBody`): capped at the body limit. */
const LARGE_BODY_PATHS = new Set(HTTP_CONTRACTS.filter((c) => c.http?.largeBody).map((c) => c.http!.path));

function aliasesFor(contracts: readonly ActionContract<unknown, unknown>[]): Record<string, GatewayAlias> {
  const aliases: Record<string, GatewayAlias> = {};
  for (const contract of contracts) {
    const binding = contract.http!;
    aliases[`${binding.method} ${binding.path}`] = { action: contract.action, binding, check: compileChecker(contract), method: binding.method };
  }
  return aliases;
}

interface GatewayVars {
  openapiDocument: Record<string, unknown>;
  /** /llms.txt, written from the same contracts as the OpenAPI document. */
  llmsText: string;
  /** Per gateway instance: the per-IP limit of public calls marked `perIpLimit` (sandbox bootstrap, an agent's consent request), each path counted apart. */
  ipLimiter: IpLimiter;
  /** Failed authentications per client IP and client id (services/gateway/auth-failures.ts). */
  authFailures: AuthFailureThrottle;
  /** Rate limits, quotas, idempotency and the request log (services/gateway/guarantees.ts). */
  guarantees: GatewayGuarantees;
  /** API-key principals kept for a moment (services/gateway/principal-cache.ts). */
  principals: PrincipalCache;
  /** White-label custom domains: which organization a request's host serves (services/gateway/custom-domains.ts). */
  customDomains: CustomDomains;
  /** Dashboard session tokens: an API key sealed for 30 minutes (services/gateway/dashboard-session.ts). */
  sessions: DashboardSessions;
  /** One line per answered request (EINV_ACCESS_LOG=true). */
  accessLog?: { info(...args: unknown[]): void };
}

/** What moleculer-web's mixin provides that we call. */
interface ApiGatewayMethods {
  sendError(req: Req, res: ServerResponse, err: unknown): void;
  resolveCredential(ctx: Context, req: IncomingMessage): Promise<Principal>;
}

const GatewayService: ServiceSchema<ServiceSettingSchema & Record<string, unknown>, ApiGatewayMethods, GatewayVars> = {
  name: 'gateway',
  mixins: [ApiGateway],

  settings: {
    port: config.port,
    ip: config.host,
    log4XXResponses: false,
    logRequest: 'debug',
    logResponse: 'debug',
    // Never at any level: params carry documents, keys and client secrets; responses one-time secrets.
    logRequestParams: null,
    logResponseData: null,
    etag: false,
    /**
     * Runs as a request enters, before any route: mints its id, makes the id the trace's (every span
     * of the request, in every process, carries it) and the meta every call inherits (log lines), and
     * counts the request once answered (metrics).
     */
    rootCallOptions(this: { broker: Context['broker']; accessLog?: { info(...args: unknown[]): void } }, options: { requestID?: string; meta?: Record<string, unknown> }, req: Req, res: ServerResponse) {
      const t0 = performance.now();
      const requestId = requestIdOf(req, res);
      options.requestID = traceIdOfRequest(requestId);
      options.meta = { requestId };
      observeHttpRequest(this.broker, req, res, t0, this.accessLog);
    },
    routes: [
      {
        // Connectors' push-receive routes: outside /v1 and its key auth; each route authenticates its caller.
        path: '/connectors',
        ...SELF_ANSWERED_ROUTE,
        use: [
          function stampRequestId(req: Req, res: ServerResponse, next: () => void) {
            requestIdOf(req, res);
            rememberRootSpan(req);
            next();
          },
        ],
        aliases: Object.fromEntries(['GET', 'POST', 'PUT'].map((method) => [`${method} /:connectorId/:route`, function connectorRoute(this: { broker: Context['broker'] }, req: Req, res: ServerResponse) {
          // Answered here; moleculer-web's next() is never called, so no action runs after it.
          void connectorRouteHandler(this.broker, config)(req, res);
        }])),
      },
      {
        // The web dashboard (app/, bundled into app/dist): static files, no credentials; it calls the API like any client.
        path: '/app',
        ...SELF_ANSWERED_ROUTE,
        use: [
          function stampRequestId(req: Req, res: ServerResponse, next: () => void) {
            requestIdOf(req, res);
            next();
          },
        ],
        aliases: (() => {
          const serve = dashboardHandler();
          return Object.fromEntries(['GET', 'HEAD'].flatMap((method) => [[`${method} /`, serve], [`${method} /:file`, serve]]));
        })(),
      },
      {
        // The MCP server (streamable HTTP, services/gateway/mcp.ts): authenticates and checks each tool call itself.
        path: '/mcp',
        ...SELF_ANSWERED_ROUTE,
        aliases: Object.fromEntries(['GET', 'POST', 'DELETE'].map((method) => [`${method} /`, function mcpRoute(this: McpGateway, req: Req, res: ServerResponse) {
          void mcpHandler(this, config)(req, res);
        }])),
      },
      {
        // AFNOR XP Z12-013 (services/gateway/afnor/): its own paths, bodies and error shape; authenticates and checks each call itself.
        path: AFNOR_BASE,
        ...SELF_ANSWERED_ROUTE,
        use: [
          function afnorRoute(this: AfnorGateway, req: Req, res: ServerResponse) {
            // Answered here; the route's next() is never called, so no alias or action runs after it.
            void afnorHandler(this, config)(req, res);
          },
        ],
      },
      {
        path: '',
        mappingPolicy: 'restrict',
        autoAliases: false,
        aliases: aliasesFor(HTTP_CONTRACTS),
        // A client's request runs its action once: a timed-out call is answered 504 (the client
        // retries with its Idempotency-Key), never re-run behind its back while the first may still land.
        callOptions: { retries: 0, timeout: config.requestTimeoutMs },
        // Our own reader replaces moleculer-web's parsers: it caps decompressed bytes (gzip bombs).
        bodyParsers: false,
        authentication: true,
        authorization: true,
        use: [
          function readRequest(req: Req, res: ServerResponse, next: (err?: unknown) => void) {
            req.$t0 = performance.now();
            requestIdOf(req, res);
            rememberRootSpan(req);
            const method = req.method ?? 'GET';
            if (method === 'GET' || method === 'HEAD' || method === 'DELETE' || method === 'OPTIONS') return next();
            const pathname = (req.url ?? '').split('?')[0]!;
            readBody(req, LARGE_BODY_PATHS.has(pathname) ? { ...config, maxJsonBytes: config.maxBodyBytes } : config).then(
              (body) => {
                req.body = body.json;
                if (body.raw) req.$rawBody = body.raw;
                next();
              },
              next,
            );
          },
        ],
        onBeforeCall(ctx: Context, _route: unknown, req: Req, res: ServerResponse) {
          applyDeprecationHeaders(res, req.$alias?.binding);
          const meta = ctx.meta as RequestMeta & { $statusCode?: number };
          meta.requestId = req.$requestId;
          meta.clientIp = clientIp(req);
          if (typeof req.headers.host === 'string') meta.host = req.headers.host;
          const status = req.$alias?.binding.status;
          if (status) meta.$statusCode = status;
        },
        onAfterCall(ctx: Context, _route: unknown, req: Req, _res: ServerResponse, data: unknown) {
          (this as unknown as GatewayVars).guarantees.afterCall(req as unknown as GuardedRequest);
          const location = req.$alias?.binding.location;
          if (location) (ctx.meta as { $location?: string }).$location = location(data as never);
          return data;
        },
      },
    ],
    onError(this: { broker: Context['broker']; logger: Context['broker']['logger']; guarantees: GatewayGuarantees; authFailures: AuthFailureThrottle }, req: Req, res: ServerResponse, err: unknown) {
      const requestId = requestIdOf(req, res);
      // A wrong client secret counts against the address and the client id; the next attempt is checked (authorize).
      if (req.$alias?.binding.clientAuthentication && isAuthFailure(err)) void this.authFailures.fail(clientAuthenticationKeys(req), err);
      // An Idempotency-Key seen before: the stored response, not an error.
      if (this.guarantees.replay(err, res, req.$limitHeaders ?? {})) {
        tagRootSpan(req, res.statusCode);
        return;
      }
      const out = req.$alias?.binding.errorFormat === 'oauth' ? formatOAuthError(err, requestId, req.$limitHeaders) : formatError(err, requestId, config.docsUrl, req.$limitHeaders);
      this.guarantees.noteError(req as unknown as GuardedRequest, out.body);
      const code = (out.body as { error?: { code?: unknown } | string }).error;
      countHttpError(this.broker, req, typeof code === 'string' ? code : typeof code?.code === 'string' ? code.code : 'UNKNOWN');
      tagRootSpan(req, out.status);
      if (out.internal) this.logger.error(`[${requestId}] ${req.method} ${req.url}:`, err);
      if (res.headersSent) return res.end();
      res.writeHead(out.status, out.headers);
      res.end(JSON.stringify(out.body));
    },
  },

  actions: {
    // An HTTP request is one attempt: when a call inside it times out, that call's own retries have
    // run; re-running the whole request (a send, a payment) would do its work twice.
    // Its span is the trace's root: named by method, tagged with the request id, route template and status.
    rest: { retryPolicy: { enabled: false }, tracing: { spanName: (ctx: Context) => `HTTP ${(ctx.params as { req: Req }).req.method}`, tags: rootSpanTags } },
    openapi: implement(openapi, async function (this: { openapiDocument: Record<string, unknown> }) {
      return this.openapiDocument;
    }),
    errorCatalogue: implement(errorCatalogue, async () => ERROR_TABLE),
    errorPage: implement(errorPage, async (ctx) => {
      (ctx.meta as { $responseType?: string }).$responseType = 'text/html; charset=utf-8';
      return errorCataloguePage(ERROR_TABLE);
    }),
    referencePage: implement(referencePage, async (ctx) => {
      (ctx.meta as { $responseType?: string }).$responseType = 'text/html; charset=utf-8';
      return REFERENCE_PAGE;
    }),
    llmsTxt: implement(llmsTxt, async function (this: GatewayVars, ctx) {
      (ctx.meta as { $responseType?: string }).$responseType = 'text/markdown; charset=utf-8';
      return this.llmsText;
    }),
    referenceScript: implement(referenceScript, async (ctx) => {
      (ctx.meta as { $responseType?: string; $responseHeaders?: Record<string, string> }).$responseType = 'application/javascript; charset=utf-8';
      (ctx.meta as { $responseHeaders?: Record<string, string> }).$responseHeaders = { 'Cache-Control': 'public, max-age=86400' };
      return referenceScriptBytes();
    }),
    createSession: implement(createSession, async function (this: GatewayVars, ctx) {
      const key = (ctx.meta as SessionMeta).$sessionKey;
      if (!key) throw new DomainError('INVALID_TOKEN', 'Only an API key (svc_…) can be exchanged for a dashboard session; a token is used as it is');
      const { token, expiresAt } = await this.sessions.seal(key, systemClock.now());
      return { token, tokenType: 'Bearer', expiresAt: expiresAt.toISOString(), expiresIn: SESSION_SECONDS };
    }),
    exhaustRateLimit: implement(exhaustRateLimit, async function (this: GatewayVars, ctx) {
      return this.guarantees.exhaust(ctx);
    }),
  },

  events: {
    [API_KEY_REVOKED_EVENT](this: GatewayVars, ctx: Context<ApiKeyRevoked>) {
      this.principals.dropKey(ctx.params.apiKeyId);
    },
    [COMPANY_SUSPENDED_EVENT](this: GatewayVars, ctx: Context<CompanySuspended>) {
      this.principals.dropCompany(ctx.params.companyId);
    },
    [CUSTOM_DOMAIN_CHANGED_EVENT](this: GatewayVars, ctx: Context<{ domains: string[] }>) {
      this.customDomains.forget(ctx.params.domains);
    },
  },

  created() {
    const published = (this.settings.httpContracts as readonly ActionContract<unknown, unknown>[] | undefined) ?? HTTP_CONTRACTS;
    this.openapiDocument = buildOpenApi(published, config.publicUrl);
    this.llmsText = renderLlmsTxt(published, config.publicUrl);
    this.ipLimiter = new IpLimiter(config.bootstrapPerIpPerHour, 3_600_000);
    this.authFailures = new AuthFailureThrottle(config.credentials, config.redisUrl, this.logger);
    this.guarantees = new GatewayGuarantees(this.broker, config);
    this.principals = new PrincipalCache(config.credentials.principalCacheTtlMs);
    this.sessions = new DashboardSessions(config.jwt.signingKeySecret);
    this.customDomains = new CustomDomains([config.customDomainTarget, new URL(config.publicUrl).hostname]);
    if (config.observability.accessLog) this.accessLog = this.broker.getLogger('access', { svc: 'gateway' });
    // Idle keep-alive sockets outlive a load balancer's usual 60 s idle timeout, so the proxy (or a
    // client pool) never reuses a socket we are closing at that very moment (ECONNRESET).
    const server = (this as unknown as { server?: { keepAliveTimeout: number; headersTimeout: number } }).server;
    if (server) {
      server.keepAliveTimeout = config.keepAliveMs;
      server.headersTimeout = config.keepAliveMs + 1_000;
    }
  },

  async stopped() {
    await this.guarantees.stop();
    await this.authFailures.close();
  },

  methods: {
    /** Replaces moleculer-web's handler, which logs every non-4xx-coded error: onError decides. */
    errorHandler(req: Req, res: ServerResponse, err: unknown) {
      this.sendError(req, res, err);
    },

    /** Resolves the credential to a Principal in `ctx.meta.auth`; public routes need none. */
    async authenticate(ctx: Context, _route: unknown, req: Req, _res: ServerResponse, alias: GatewayAlias) {
      if (alias.binding.access === 'public' && !(alias.binding.optionalAuth && req.headers.authorization)) return null;
      const principal = await this.resolveCredential(ctx, req);
      // The sign-in of the dashboard seals the key itself (never a session or a JWT: see dashboard-session.ts).
      if (alias.action === createSession.action) {
        const bearer = /^Bearer\s+(svc_\S+)\s*$/i.exec(req.headers.authorization ?? '');
        if (bearer) (ctx.meta as SessionMeta).$sessionKey = bearer[1]!;
      }
      // A verified custom domain serves its own organization only.
      await this.customDomains.check(ctx, req.headers.host, principal);
      (ctx.meta as RequestMeta).auth = principal;
      return null;
    },

    /** The request's Bearer credential (an API key, or a JWT) → its Principal; failures count against the address. */
    async resolveCredential(ctx: Context, req: IncomingMessage): Promise<Principal> {
      const header = req.headers.authorization;
      if (!header) throw new DomainError('MISSING_AUTH', 'Send Authorization: Bearer <API key or token>');
      const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (!match) throw new DomainError('INVALID_TOKEN', 'The Authorization header must be "Bearer <API key or token>"');
      let token = match[1]!;
      try {
        // A dashboard session stands for the API key sealed inside it: authenticated as that key.
        if (token.startsWith(SESSION_TOKEN_PREFIX)) token = await this.sessions.open(token, systemClock.now());
        if (token.startsWith('svc_')) {
          const header = req.headers['x-service-company'];
          const companyHeader = typeof header === 'string' && header ? header : undefined;
          const cached = this.principals.get(token, companyHeader);
          if (cached) return cached;
          const resolved = await call(ctx, authenticateKey, { key: token, ...(companyHeader ? { companyHeader } : {}) });
          this.principals.set(token, companyHeader, resolved.principal, resolved.expiresAt);
          return resolved.principal;
        }
        return await resolveBearerToken(ctx, token, req.headers);
      } catch (err) {
        // Guessing keys or tokens from one address ends in 429s: past the limit, no verdict on the guess.
        throw isAuthFailure(err) ? await this.authFailures.fail([ipKey(clientIp(req))], err) : err;
      }
    },

    /** Access rules of the route, then the request's params against the action's contract. */
    async authorize(ctx: Context, _route: unknown, req: Req, _res: ServerResponse, alias: GatewayAlias) {
      const { binding } = alias;
      const auth = (ctx.meta as RequestMeta).auth;
      await this.guarantees.beforeAuthorize(ctx, req as unknown as GuardedRequest, _res, alias.action);
      if (binding.access === 'public') {
        if (binding.perIpLimit) {
          // Each throttled public call (sandbox bootstrap, an agent's consent request) has its own budget per address.
          const wait = this.ipLimiter.hit(`${binding.path} ${clientIp(req)}`, Date.now());
          if (wait > 0) throw new DomainError('RATE_LIMITED', `Too many ${binding.path} calls from this address; retry in ${wait} s`, { retryAfter: wait });
        }
      } else {
        if (!auth) throw new DomainError('MISSING_AUTH', 'Send Authorization: Bearer <API key or token>');
        assertAccess(auth, binding);
      }
      const pathParams = Object.fromEntries(Object.entries(req.$params).filter(([k]) => binding.path.includes(`:${k}`)));
      const params = binding.rawBody && req.$rawBody && req.body === undefined
        ? rawDepositParams(req.query ?? {}, req.$rawBody, req.headers['content-type'], pathParams, binding.rawBodyFormat)
        : requestParams(alias.method, req.query ?? {}, req.body, pathParams);
      assertStorableParams(params);
      alias.check(params);
      req.$params = params;
      if (binding.clientAuthentication) await this.authFailures.check(clientAuthenticationKeys(req));
      await this.guarantees.afterValidation(ctx, req as unknown as GuardedRequest, _res, binding);
    },
  },
};

export default GatewayService;

/**
 * The same gateway publishing contracts beyond routes.ts. The application never uses it: it lets a
 * test boot the real gateway with an operation that exists only in that test (e.g. a deprecated one).
 */
// Typed like the service catalogue's entries, so it goes wherever a schema does (createApp's extraServices).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function gatewayPublishing(extra: readonly ActionContract<unknown, unknown>[]): ServiceSchema<any, any, any, any> {
  const contracts = [...HTTP_CONTRACTS, ...extra];
  // The API route is the one at the root; the others (connectors' inbound routes) stay as they are.
  const routes = (GatewayService.settings!.routes as Array<Record<string, unknown>>).map((route) => (route.path === '' ? { ...route, aliases: aliasesFor(contracts) } : route));
  return { ...GatewayService, settings: { ...GatewayService.settings, httpContracts: contracts, routes } };
}
