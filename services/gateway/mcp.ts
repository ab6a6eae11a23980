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
import { assertStorableParams, compileChecker, type ParamsChecker } from './request-validation.ts';
import type { GatewayGuarantees } from './guarantees.ts';
import { createMcpServer, MCP_TOOLS, type ContractRunner, type ErrorEnvelope } from './mcp-tools.ts';

type AnyContract = ActionContract<unknown, unknown>;

export interface McpGateway {
  broker: ServiceBroker;
  logger: ServiceBroker['logger'];
  guarantees: GatewayGuarantees;
  resolveCredential(ctx: Context, req: IncomingMessage): Promise<Principal>;
}

/** Compiled once: the same checker the gateway builds for each route. */
const checkers = new Map<string, ParamsChecker>(MCP_TOOLS.flatMap((t) => t.contracts).map((c) => [c.action, compileChecker(c)]));

/** Runs operations for one authenticated caller, as the gateway runs their routes. */
export function gatewayRunner(gateway: McpGateway, ctx: Context, auth: Principal, config: AppConfig): ContractRunner {
  async function run(contract: AnyContract, input: Record<string, unknown>): Promise<unknown> {
    const binding = contract.http!;
    assertAccess(auth, binding);
    const params = { ...input };
    assertStorableParams(params);
    (checkers.get(contract.action) ?? compileChecker(contract))(params);
    const { refusal } = await gateway.guarantees.countRequest(ctx, auth);
    if (refusal) throw refusal;
    const quota = await gateway.guarantees.takeDocumentQuota(ctx, auth, binding, params);
    try {
      return await ctx.call(contract.action, params, { retries: 0, timeout: config.requestTimeoutMs });
    } catch (err) {
      if (quota) gateway.guarantees.giveBackDocumentQuota(auth, quota);
      throw err;
    }
  }
  return {
    async run(contract, input) {
      const startedAt = performance.now();
      const entry = { id: newId('request'), method: contract.http!.method, path: '/mcp', action: contract.action, startedAt };
      try {
        const result = await run(contract, input);
        gateway.guarantees.logCall(auth, { ...entry, status: contract.http!.status ?? 200, errorCode: null });
        return result;
      } catch (err) {
        // What REST would have answered, in the log as in the tool's result.
        const out = formatError(err, entry.id, config.docsUrl);
        gateway.guarantees.logCall(auth, { ...entry, status: out.status, errorCode: out.body.error.code, validation: out.body.error.details });
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
