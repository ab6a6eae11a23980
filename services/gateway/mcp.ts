/**
 * The MCP server over streamable HTTP at `/mcp`, served by the gateway (stateless: one server and
 * transport per POST, so any replica answers any call; JSON answers, no SSE stream to keep).
 *
 * The caller authenticates like any API call (Bearer API key, a key an agent got by consent or
 * handoff, or a JWT). Each tool call then goes through what a REST request of the same operation
 * goes through: the route's access rules (scope, sandbox-only, company), the contract's params
 * check, the credential's rate window and the document quota, and the very action with the same
 * principal and meta, so the services' own checks apply. Refusals answer the REST error envelope
 * inside the tool result (`isError`), with the code REST gives.
 *
 * A tool call that changes something and carries an Idempotency-Key (its `idempotencyKey`, else
 * the request's header) is claimed in the same store as a REST request's key (guarantees.ts), its
 * answer kept as the call's result or refusal: a retry answers it again, another body under the
 * key is refused; the key travels to the action, so a send keeps it with its document and a retry
 * after an answer lost with its process still finds that document.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context, ServiceBroker } from 'moleculer';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { AppConfig } from '../shared/config.ts';
import type { Principal, RequestMeta } from '../shared/auth.ts';
import type { ActionContract } from '../shared/contract.ts';
import { newId } from '../shared/ids.ts';
import { assertAccess } from './access.ts';
import { clientIp } from './client-ip.ts';
import { readBody } from './http-body.ts';
import { formatError } from './error-formatter.ts';
import { checkedIdempotencyKey, IdempotentReplay, requestHash } from './idempotency.ts';
import type { StoredResponse } from '../idempotency/idempotency.contract.ts';
import { assertStorableParams, compileChecker, type ParamsChecker } from './request-validation.ts';
import type { GatewayGuarantees } from './guarantees.ts';
import { createMcpServer, IDEMPOTENCY_KEY_ARGUMENT, MCP_TOOLS, type ContractRunner, type ErrorEnvelope } from './mcp-tools.ts';

type AnyContract = ActionContract<unknown, unknown>;

export interface McpGateway {
  broker: ServiceBroker;
  logger: ServiceBroker['logger'];
  guarantees: GatewayGuarantees;
  resolveCredential(ctx: Context, req: IncomingMessage): Promise<Principal>;
}

/** Compiled once: the same checker the gateway builds for each route. */
const checkers = new Map<string, ParamsChecker>(MCP_TOOLS.flatMap((t) => t.contracts).map((c) => [c.action, compileChecker(c)]));

/** A refusal kept under an Idempotency-Key, answered again: its stored envelope, its status for the log. */
class ReplayedRefusal extends Error {
  readonly status: number;
  readonly envelope: ErrorEnvelope;
  constructor(status: number, envelope: ErrorEnvelope) {
    super(envelope.error.message);
    this.status = status;
    this.envelope = envelope;
  }
}

/** A tool call's answer as the idempotency store keeps it: the REST status and the JSON body. */
function storedAnswer(status: number, body: unknown): StoredResponse {
  return { status, headers: { 'Content-Type': 'application/json; charset=utf-8' }, body: Buffer.from(JSON.stringify(body ?? null)).toString('base64') };
}

/** A kept answer: the result again, or the refusal thrown again. */
function replayOf(stored: StoredResponse): unknown {
  const body = JSON.parse(Buffer.from(stored.body, 'base64').toString('utf8')) as unknown;
  if (stored.status >= 400) throw new ReplayedRefusal(stored.status, body as ErrorEnvelope);
  return body;
}

/** Runs operations for one authenticated caller, as the gateway runs their routes. */
export function gatewayRunner(gateway: McpGateway, ctx: Context, auth: Principal, config: AppConfig): ContractRunner {
  async function run(contract: AnyContract, input: Record<string, unknown>, rawKey: unknown, requestId: string): Promise<unknown> {
    const binding = contract.http!;
    assertAccess(auth, binding);
    const params = { ...input };
    assertStorableParams(params);
    (checkers.get(contract.action) ?? compileChecker(contract))(params);
    const key = rawKey === undefined ? undefined : checkedIdempotencyKey(rawKey, IDEMPOTENCY_KEY_ARGUMENT);
    const { refusal } = await gateway.guarantees.countRequest(ctx, auth);
    if (refusal) throw refusal;
    // The same claim as a REST request's Idempotency-Key; the hash names the operation, so a key
    // used over REST or for another tool is a different request (IDEMPOTENCY_BODY_MISMATCH).
    const claimed = key === undefined ? undefined : await gateway.guarantees.claimIdempotencyKey(ctx, {
      auth, key, method: binding.method, path: '/mcp', requestHash: requestHash(binding.method, `/mcp#${contract.action}`, 'application/json', params, undefined),
    });
    try {
      const quota = await gateway.guarantees.takeDocumentQuota(ctx, auth, binding, params);
      let result: unknown;
      try {
        // `idempotency` set (or cleared) per call: the root context is shared by the request's calls.
        result = await ctx.call(contract.action, params, { retries: 0, timeout: config.requestTimeoutMs, meta: { idempotency: claimed?.idempotency } });
      } catch (err) {
        if (quota) gateway.guarantees.giveBackDocumentQuota(auth, quota);
        throw err;
      }
      await claimed?.finish(storedAnswer(binding.status ?? 200, result));
      return result;
    } catch (err) {
      if (claimed) {
        const out = formatError(err, requestId, config.docsUrl);
        await claimed.finish(storedAnswer(out.status, out.body));
      }
      throw err;
    }
  }
  return {
    async run(contract, input, options = {}) {
      const startedAt = performance.now();
      const entry = { id: newId('request'), method: contract.http!.method, path: '/mcp', action: contract.action, startedAt };
      const key = typeof options.idempotencyKey === 'string' ? options.idempotencyKey : null;
      try {
        const result = await run(contract, input, options.idempotencyKey, entry.id);
        gateway.guarantees.logCall(auth, { ...entry, status: contract.http!.status ?? 200, errorCode: null, idempotencyKey: key });
        return result;
      } catch (err) {
        if (err instanceof IdempotentReplay) {
          const status = err.response.status;
          try {
            const result = replayOf(err.response);
            gateway.guarantees.logCall(auth, { ...entry, status, errorCode: null, idempotencyKey: key, replayed: true });
            return result;
          } catch (refusal) {
            gateway.guarantees.logCall(auth, { ...entry, status, errorCode: (refusal as ReplayedRefusal).envelope?.error?.code ?? null, idempotencyKey: key, replayed: true });
            throw refusal;
          }
        }
        // What REST would have answered, in the log as in the tool's result.
        const out = formatError(err, entry.id, config.docsUrl);
        gateway.guarantees.logCall(auth, { ...entry, status: out.status, errorCode: out.body.error.code, validation: out.body.error.details, idempotencyKey: key });
        throw err;
      }
    },
  };
}

function answerError(res: ServerResponse, err: unknown, requestId: string, config: AppConfig, logger: ServiceBroker['logger']): void {
  const out = formatError(err, requestId, config.docsUrl);
  if (out.internal) logger.error(`[${requestId}] MCP request failed:`, err);
  if (res.headersSent) return void res.end();
  // RFC 6750 §3: a request without a usable credential is told how to authenticate.
  if (out.status === 401) out.headers['WWW-Authenticate'] = 'Bearer';
  res.writeHead(out.status, out.headers);
  res.end(JSON.stringify(out.body));
}

export function mcpHandler(gateway: McpGateway, config: AppConfig) {
  return async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestId = newId('request');
    res.setHeader('X-Request-Id', requestId);
    if (req.method !== 'POST') {
      // Stateless: no server-initiated stream (GET) and no session to end (DELETE).
      res.writeHead(405, { Allow: 'POST', 'Content-Type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: POST JSON-RPC messages to /mcp' }, id: null }));
      return;
    }
    // A root context, as moleculer-web makes for a request: the calls below are its children and carry its meta.
    const ctx = gateway.broker.ContextFactory.create(gateway.broker, null as never, {}, {}) as Context;
    const meta = ctx.meta as RequestMeta;
    meta.requestId = requestId;
    meta.clientIp = clientIp(req);
    let body: unknown;
    try {
      meta.auth = await gateway.resolveCredential(ctx, req);
      // Tool calls carry whole documents, like a send.
      body = (await readBody(req, { ...config, maxJsonBytes: config.maxBodyBytes })).json;
    } catch (err) {
      return answerError(res, err, requestId, config, gateway.logger);
    }
    const server = createMcpServer(gatewayRunner(gateway, ctx, meta.auth, config), (err) => {
      // A refusal kept under the call's key: as first answered, under this request's id.
      if (err instanceof ReplayedRefusal) return { ...err.envelope, error: { ...err.envelope.error, requestId } };
      const out = formatError(err, requestId, config.docsUrl);
      if (out.internal) gateway.logger.error(`[${requestId}] MCP tool call failed:`, err);
      return out.body as unknown as ErrorEnvelope;
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    } catch (err) {
      answerError(res, err, requestId, config, gateway.logger);
    }
  };
}
