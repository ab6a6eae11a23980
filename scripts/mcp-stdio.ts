/**
 * The MCP server over stdio, for agents that launch their tools as a process (desktop clients):
 * `EINV_API_URL=https://api.example.com EINV_API_KEY=svc_… node scripts/mcp-stdio.ts`
 * (`EINV_COMPANY=<company id>` for a platform key). The same tools as /mcp (services/gateway/mcp-tools.ts);
 * each one calls its REST operation with the key, so the deployment applies every rule it applies to
 * any request (scopes, company, rate limits, quotas, idempotency of sends, the request log), and a
 * refusal is the REST answer's own error envelope.
 *
 * Stdout carries the protocol: nothing else is written there.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { ActionContract } from '../services/shared/contract.ts';
import { createMcpServer, type ContractRunner, type ErrorEnvelope, type RunOptions } from '../services/gateway/mcp-tools.ts';

type AnyContract = ActionContract<unknown, unknown>;

/** A REST answer that is not a success: its body is the API's error envelope. */
class RestRefusal extends Error {
  readonly envelope: ErrorEnvelope;
  constructor(envelope: ErrorEnvelope) {
    super(envelope.error.message);
    this.envelope = envelope;
  }
}

/** Runs a contract's operation through its route: path parameters in the path, the rest in the query (reads) or the JSON body. */
function restRunner(baseUrl: string, key: string, companyId?: string): ContractRunner {
  return {
    async run(contract: AnyContract, input: Record<string, unknown>, options: RunOptions = {}) {
      const http = contract.http!;
      const rest = { ...input };
      const path = http.path.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => {
        const value = rest[name];
        delete rest[name];
        return encodeURIComponent(String(value ?? ''));
      });
      const url = new URL(path, baseUrl);
      const read = http.method === 'GET' || http.method === 'DELETE';
      if (read) for (const [name, value] of Object.entries(rest)) if (value !== undefined) url.searchParams.set(name, typeof value === 'object' ? JSON.stringify(value) : String(value));
      const headers: Record<string, string> = { authorization: `Bearer ${key}`, accept: 'application/json' };
      if (companyId) headers['x-service-company'] = companyId;
      if (!read) headers['content-type'] = 'application/json';
      // A tool call's idempotency key is the REST request's Idempotency-Key: the deployment checks and applies it.
      const { idempotencyKey } = options;
      if (idempotencyKey !== undefined) headers['idempotency-key'] = String(idempotencyKey);
      const res = await fetch(url, { method: http.method, headers, ...(read ? {} : { body: JSON.stringify(rest) }) });
      const text = await res.text();
      let body: unknown = text;
      try { body = text ? JSON.parse(text) : undefined; } catch { /* not JSON: the text itself */ }
      if (res.ok) return body;
      const envelope = body as ErrorEnvelope | undefined;
      throw new RestRefusal(envelope?.error?.code ? envelope : { error: { code: 'UPSTREAM_ERROR', message: `HTTP ${res.status} from ${http.method} ${path}` } });
    },
  };
}

function toEnvelope(err: unknown): ErrorEnvelope {
  if (err instanceof RestRefusal) return err.envelope;
  // The deployment could not be reached at all.
  return { error: { code: 'UPSTREAM_UNAVAILABLE', message: `The API could not be reached: ${(err as Error).message}` } };
}

const baseUrl = process.env.EINV_API_URL ?? `http://localhost:${process.env.PORT ?? '3000'}`;
const key = process.env.EINV_API_KEY;
if (!key) {
  process.stderr.write('Set EINV_API_KEY to the API key the agent acts with (and EINV_API_URL to the deployment).\n');
  process.exit(2);
}
const server = createMcpServer(restRunner(baseUrl, key, process.env.EINV_COMPANY || undefined), toEnvelope);
await server.connect(new StdioServerTransport());
