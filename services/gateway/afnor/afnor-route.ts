/**
 * The AFNOR XP Z12-013 surface: `/afnor/flow-service/v1/…` (Annex A, Flow Service 1.3.0) and
 * `/afnor/directory-service/v1/…` (Annex B, Directory Service 1.3.0), the service-name segment
 * being the one the annexes' server URLs end with. A thin adapter: each operation maps its request
 * onto our own actions (documents, lifecycle, webhooks, directory) and their answers onto the AFNOR
 * shapes; it keeps no state.
 *
 * The caller authenticates as on /v1 (Bearer API key or OAuth token; the organization header is
 * also read under its `Organization-Id` alias, see credentials.ts); each request counts against the
 * credential's rate window, a flow upload against the document quota, and every call is in the
 * request log. Errors come in the annexes' `Error` shape with a status the operation declares.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context, ServiceBroker } from 'moleculer';
import type { AppConfig } from '../../shared/config.ts';
import type { Principal, RequestMeta } from '../../shared/auth.ts';
import type { ActionContract, HttpBinding } from '../../shared/contract.ts';
import { DomainError } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { assertAccess } from '../access.ts';
import { clientIp } from '../client-ip.ts';
import { readBody } from '../http-body.ts';
import { captureResponse, idempotencyKeyOf, requestHash } from '../idempotency.ts';
import { assertStorableParams, compileChecker, type ParamsChecker } from '../request-validation.ts';
import type { GatewayGuarantees } from '../guarantees.ts';
import { formatAfnorError } from './afnor-errors.ts';
import { FLOW_OPERATIONS } from './flow-operations.ts';
import { DIRECTORY_OPERATIONS } from './directory-operations.ts';
import type { AfnorAnswer, AfnorCall, AfnorOperation, AfnorRequest, RequestIdentity } from './operation.ts';

export const AFNOR_BASE = '/afnor';
export const AFNOR_OPERATIONS: readonly AfnorOperation[] = [...FLOW_OPERATIONS, ...DIRECTORY_OPERATIONS];

export interface AfnorGateway {
  broker: ServiceBroker;
  logger: ServiceBroker['logger'];
  guarantees: GatewayGuarantees;
  resolveCredential(ctx: Context, req: IncomingMessage): Promise<Principal>;
}

type AnyContract = ActionContract<unknown, unknown>;

interface CompiledOperation { operation: AfnorOperation; pattern: RegExp; names: string[] }

/** `{name}` segments (which may sit after a literal, as in `code-insee:{siren}`) → named groups. */
function compile(operation: AfnorOperation): CompiledOperation {
  const names: string[] = [];
  const source = `/${operation.service}${operation.path}`.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{([^}]+)\}/g, (_m, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  return { operation, pattern: new RegExp(`^${source}/?$`), names };
}

const COMPILED = AFNOR_OPERATIONS.map(compile);

function route(method: string, path: string): { found?: { operation: AfnorOperation; params: Record<string, string> }; allowed: boolean } {
  let pathKnown = false;
  for (const c of COMPILED) {
    const m = c.pattern.exec(path);
    if (!m) continue;
    pathKnown = true;
    if (c.operation.method !== method) continue;
    const params: Record<string, string> = {};
    c.names.forEach((name, i) => {
      try {
        params[name] = decodeURIComponent(m[i + 1]!);
      } catch {
        params[name] = m[i + 1]!;
      }
    });
    return { found: { operation: c.operation, params }, allowed: true };
  }
  return { allowed: !pathKnown };
}

const checkers = new Map<string, ParamsChecker>();

function checkerOf(contract: AnyContract): ParamsChecker {
  let checker = checkers.get(contract.action);
  if (!checker) {
    checker = compileChecker(contract);
    checkers.set(contract.action, checker);
  }
  return checker;
}

function callFor(gateway: AfnorGateway, ctx: Context, auth: Principal, request: AfnorRequest, config: AppConfig): AfnorCall {
  const meta = ctx.meta as Record<string, unknown>;
  const invoke = async (contract: AnyContract, params: Record<string, unknown>, binding: Pick<HttpBinding, 'access' | 'company'>) => {
    assertAccess(auth, binding as HttpBinding);
    assertStorableParams(params);
    checkerOf(contract)(params);
    delete meta.$responseType;
    return ctx.call(contract.action, params, { retries: 0, timeout: config.requestTimeoutMs });
  };
  return {
    auth,
    request,
    async run(contract, params, access) {
      const binding = contract.http ?? access;
      if (!binding) throw new Error(`${contract.action} has no route and no access rule was given`);
      return invoke(contract as AnyContract, params as Record<string, unknown>, binding) as never;
    },
    async send(contract, params) {
      const binding = contract.http!;
      const quota = await gateway.guarantees.takeDocumentQuota(ctx, auth, binding, params as Record<string, unknown>);
      try {
        return (await invoke(contract as AnyContract, params as Record<string, unknown>, binding)) as never;
      } catch (err) {
        if (quota) gateway.guarantees.giveBackDocumentQuota(auth, quota);
        throw err;
      }
    },
    responseType: () => (typeof meta.$responseType === 'string' ? meta.$responseType : undefined),
  };
}

/** The key a POST is claimed under: the caller's Idempotency-Key, or the one derived from its payload; and its request hash. */
interface RetryKey { key: string; requestHash: string; derived?: RequestIdentity['derivedKey'] }

/** The Idempotency-Key a POST is known by, if any: the caller's, else the operation's derived one (createFlow). */
async function retryKeyOf(req: IncomingMessage, operation: AfnorOperation, request: AfnorRequest, url: URL): Promise<RetryKey | undefined> {
  const explicit = idempotencyKeyOf(req);
  const identity = await operation.identity?.(request);
  const derived = explicit === undefined ? identity?.derivedKey : undefined;
  const key = explicit ?? derived?.key;
  if (key === undefined) return undefined;
  const hash = identity
    ? requestHash('POST', url.pathname, 'multipart/form-data', identity.content, undefined)
    : requestHash('POST', `${url.pathname}${url.search}`, request.contentType ?? (request.json === undefined ? undefined : 'application/json'), request.json, request.raw);
  return { key, requestHash: hash, ...(derived ? { derived } : {}) };
}

/**
 * A POST's retries, exactly as on /v1 (guarantees.ts `claimIdempotencyKey`, the same store and
 * 24-hour window): under the caller's `Idempotency-Key`, or else the key the operation derives
 * from its payload (createFlow: its trackingId or its file's digest), a request seen before
 * answers the stored answer and its send finds the document the first run created. A derived key
 * keeps successes only: a refused upload created nothing, and may run again once fixed.
 */
async function claimRetry(gateway: AfnorGateway, ctx: Context, res: ServerResponse, auth: Principal, retry: RetryKey, path: string): Promise<void> {
  const claimed = await gateway.guarantees.claimIdempotencyKey(ctx, {
    auth, key: retry.key, method: 'POST', path, requestHash: retry.requestHash, ...(retry.derived ? { keep: 'successes' as const } : {}),
  });
  (ctx.meta as RequestMeta).idempotency = claimed.idempotency;
  res.once('close', claimed.abandon);
  captureResponse(res, claimed.finish);
}

/** A conflict under a derived key names what the caller reused (its trackingId), not a header it never sent. */
function explainConflict(err: unknown, retry: RetryKey | undefined): unknown {
  const subject = retry?.derived?.subject;
  // By its code: a send's own refusal may have crossed the transporter.
  const code = (err as { type?: unknown } | null)?.type;
  if (!subject) return err;
  if (code === 'IDEMPOTENCY_BODY_MISMATCH') {
    return new DomainError('IDEMPOTENCY_BODY_MISMATCH', `A different flow was already submitted with ${subject} (another file or flowInfo); give a new flow its own trackingId`);
  }
  if (code === 'IDEMPOTENCY_IN_PROGRESS') return new DomainError('IDEMPOTENCY_IN_PROGRESS', `A flow with ${subject} is still being processed; retry shortly`, { retryAfter: 1 });
  return err;
}

function write(res: ServerResponse, answer: AfnorAnswer, headers: Record<string, string>): void {
  if (answer.file) {
    const safe = answer.file.filename.replace(/[^\w.\-]/g, '_');
    res.writeHead(answer.status, { ...headers, 'Content-Type': 'application/octet-stream', 'Content-Disposition': `attachment;filename=${safe}`, 'Content-Length': String(answer.file.bytes.length) });
    res.end(answer.file.bytes);
    return;
  }
  if (answer.json === undefined) {
    res.writeHead(answer.status, headers);
    res.end();
    return;
  }
  const body = JSON.stringify(answer.json);
  res.writeHead(answer.status, { ...headers, 'Content-Type': 'application/json; charset=utf-8' });
  res.end(body);
}

export function afnorHandler(gateway: AfnorGateway, config: AppConfig) {
  return async function handle(req: IncomingMessage & { originalUrl?: string }, res: ServerResponse): Promise<void> {
    const requestId = newId('request');
    const startedAt = performance.now();
    // Set before any answer, so that an answer kept for replay is read back with its headers.
    res.setHeader('X-Request-Id', requestId);
    let limitHeaders: Record<string, string> = {};
    let operation: AfnorOperation | undefined;
    let auth: Principal | undefined;
    let retry: RetryKey | undefined;
    let replayed = false;
    const url = new URL(req.originalUrl ?? req.url ?? '/', 'http://afnor.invalid');
    const path = url.pathname.startsWith(AFNOR_BASE) ? url.pathname.slice(AFNOR_BASE.length) : url.pathname;
    const method = req.method ?? 'GET';
    const log = (status: number, errorCode: string | null) => {
      if (auth && operation) {
        gateway.guarantees.logCall(auth, {
          id: requestId, method, path: `${AFNOR_BASE}/${operation.service}${operation.path}`, action: `afnor.${operation.operationId}`, status, errorCode, startedAt,
          idempotencyKey: retry?.key ?? null, replayed,
        });
      }
    };
    try {
      const matched = route(method, path);
      if (!matched.found) {
        throw matched.allowed ? new DomainError('ROUTE_NOT_FOUND', `No AFNOR operation ${method} ${AFNOR_BASE}${path}`) : new DomainError('METHOD_NOT_ALLOWED', `${AFNOR_BASE}${path} does not accept ${method}`);
      }
      operation = matched.found.operation;
      if (operation.public) return write(res, await operation.handle(undefined as never), { 'X-Request-Id': requestId });
      // A root context, as moleculer-web makes for a request: the calls below are its children and carry its meta.
      const ctx = gateway.broker.ContextFactory.create(gateway.broker, null as never, {}, {}) as Context;
      const meta = ctx.meta as RequestMeta;
      meta.requestId = requestId;
      meta.clientIp = clientIp(req);
      if (typeof req.headers.host === 'string') meta.host = req.headers.host;
      auth = await gateway.resolveCredential(ctx, req);
      meta.auth = auth;
      const counted = await gateway.guarantees.countRequest(ctx, auth);
      limitHeaders = counted.headers ?? {};
      if (counted.refusal) throw counted.refusal;
      const body = operation.body ? await readBody(req, config) : undefined;
      if (operation.body === 'json' && body?.raw) {
        throw new DomainError('UNSUPPORTED_MEDIA_TYPE', 'Send a JSON body (Content-Type: application/json)', { details: [{ field: 'Content-Type', rule: 'json', message: 'application/json expected' }] });
      }
      const request: AfnorRequest = { path: matched.found.params, query: url.searchParams, headers: req.headers, json: body?.json, raw: body?.raw, contentType: body?.contentType };
      if (method === 'POST') retry = await retryKeyOf(req, operation, request, url);
      if (retry) await claimRetry(gateway, ctx, res, auth, retry, url.pathname);
      const answer = await operation.handle(callFor(gateway, ctx, auth, request, config));
      log(answer.status, null);
      write(res, answer, { ...limitHeaders, ...answer.headers, 'X-Request-Id': requestId });
    } catch (caught) {
      // A retry seen before: the first answer, as stored.
      if (gateway.guarantees.replay(caught, res, { ...limitHeaders, 'X-Request-Id': requestId })) {
        replayed = true;
        return log(res.statusCode, null);
      }
      const err = explainConflict(caught, retry);
      const out = formatAfnorError(err, requestId, config.docsUrl, operation?.declared ?? [400, 404, 500], limitHeaders);
      if (out.internal) gateway.logger.error(`[${requestId}] ${method} ${AFNOR_BASE}${path}:`, err);
      log(out.status, out.body.errorCode);
      if (res.headersSent) return void res.end();
      if (out.status === 401) out.headers['WWW-Authenticate'] = 'Bearer';
      res.writeHead(out.status, out.headers);
      res.end(JSON.stringify(out.body));
    }
  };
}
