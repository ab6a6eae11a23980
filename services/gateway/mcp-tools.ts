/**
 * The MCP server's tools: each one is an operation of the REST API, named for an agent, whose
 * input schema is the contract's own params turned into JSON Schema (the same conversion as the
 * OpenAPI document), and which runs through a `ContractRunner`: inside the product, the gateway's
 * runner (services/gateway/mcp.ts: the same actions, principal, scope and company checks as a
 * request); over stdio, a runner that calls the REST API (scripts/mcp-stdio.ts). Either way the
 * services' own checks apply exactly as over REST.
 *
 * A tool that changes something (`readOnly: false`) takes an `idempotencyKey`, or else the MCP
 * request's `Idempotency-Key` header, and hands it to the runner, which applies it as REST applies
 * the header: a retried call answers the first call's result, never sends twice.
 *
 * The SDK's low-level `Server` is used, not `McpServer`: `McpServer` takes zod schemas, and ours
 * come from the contracts as JSON Schema.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ActionContract, JsonSchema } from '../shared/contract.ts';
import { objectSchema } from '../shared/json-schema.ts';
import { MAX_IDEMPOTENCY_KEY_LENGTH } from '../idempotency/idempotency.contract.ts';
import * as documents from '../documents/documents.contract.ts';
import { validate } from '../validation/validation.contract.ts';
import { listEvents } from '../events/events.contract.ts';
import { verify } from '../directory/directory.contract.ts';

type AnyContract = ActionContract<unknown, unknown>;

/** How one operation of a tool call runs. */
export interface RunOptions {
  /**
   * The tool call's Idempotency-Key (its `idempotencyKey` argument, else the request's header),
   * as the caller gave it: the runner checks it and applies it as REST applies the header.
   */
  idempotencyKey?: unknown;
}

/** Runs one contract's operation for the caller; a refusal throws the same error REST would answer. */
export interface ContractRunner {
  run(contract: AnyContract, params: Record<string, unknown>, options?: RunOptions): Promise<unknown>;
}

/** The error a refused tool call reports: the REST error envelope, so an agent reads one shape everywhere. */
export type ErrorEnvelope = { error: { code: string; message: string; [member: string]: unknown } };

export interface McpTool {
  name: string;
  title: string;
  /** The operations it runs, in order; their HTTP bindings give the scope each needs. */
  contracts: readonly AnyContract[];
  /** The contract whose params are the tool's input. */
  input: AnyContract;
  /** What the tool adds to the operations' own summaries. */
  note?: string;
  /** Changes nothing: takes no idempotency key. A tool that changes something runs one operation (the one the key applies to). */
  readOnly: boolean;
  call(runner: ContractRunner, args: Record<string, unknown>, options: RunOptions): Promise<unknown>;
}

const single = (contract: AnyContract) => (runner: ContractRunner, args: Record<string, unknown>, options: RunOptions) => runner.run(contract, args, options);

/** The argument a tool that changes something takes its Idempotency-Key in. */
export const IDEMPOTENCY_KEY_ARGUMENT = 'idempotencyKey';

const IDEMPOTENCY_KEY_SCHEMA: JsonSchema = {
  type: 'string', minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY_LENGTH,
  description: 'Makes a retry safe, as the Idempotency-Key header does over REST: a call repeated with the same key (within 24 hours) answers the first call\'s result instead of doing it again; another body under the same key is refused (IDEMPOTENCY_BODY_MISMATCH). Give each new operation a new key (a UUID).',
};

export const MCP_TOOLS: readonly McpTool[] = [
  { name: 'validate_document', title: 'Validate a document', contracts: [validate], input: validate, readOnly: true, call: single(validate) },
  {
    name: 'send_document', title: 'Send a document', contracts: [documents.send], input: documents.send, readOnly: false, call: single(documents.send),
    note: 'JSON bodies only here (format json, ubl-xml, cii-xml or auto with `xml`, or `file` with base64 content).',
  },
  { name: 'search_documents', title: 'Search documents', contracts: [documents.search], input: documents.search, readOnly: true, call: single(documents.search) },
  {
    name: 'get_document', title: 'Read a document with its lifecycle', contracts: [documents.get, documents.getLifecycle], input: documents.get, readOnly: true,
    note: 'Answers `{document, lifecycle}`: the document and its lifecycle history with the moves your party may make next.',
    async call(runner, args) {
      const document = await runner.run(documents.get, args);
      const lifecycle = await runner.run(documents.getLifecycle, args);
      return { document, lifecycle };
    },
  },
  { name: 'move_lifecycle', title: 'Move a document\'s lifecycle', contracts: [documents.postLifecycle], input: documents.postLifecycle, readOnly: false, call: single(documents.postLifecycle) },
  { name: 'list_events', title: 'List events', contracts: [listEvents], input: listEvents, readOnly: true, call: single(listEvents) },
  { name: 'verify_recipient', title: 'Verify a recipient', contracts: [verify], input: verify, readOnly: true, call: single(verify) },
];

/**
 * A contract's params as a self-contained JSON Schema: the OpenAPI conversion, with the named
 * schemas it refers to (`#/components/schemas/<name>`) carried along under `$defs`.
 */
export function inputSchemaOf(contract: AnyContract): JsonSchema {
  const named = contract.http?.schemas ?? {};
  const local = (schema: unknown) => JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', '"#/$defs/')) as JsonSchema;
  const schema = local(objectSchema(contract.params as Record<string, unknown>));
  return Object.keys(named).length ? { ...schema, $defs: local(named) } : schema;
}

/** The tool's input: its contract's params, and for a tool that changes something its `idempotencyKey`. */
export function toolInputSchema(tool: McpTool): JsonSchema {
  const schema = inputSchemaOf(tool.input);
  if (tool.readOnly) return schema;
  const properties = (schema as { properties?: Record<string, JsonSchema> }).properties ?? {};
  return { ...schema, properties: { ...properties, [IDEMPOTENCY_KEY_ARGUMENT]: IDEMPOTENCY_KEY_SCHEMA } };
}

/** Scopes a tool needs: those of its operations' routes. */
export function scopesOf(tool: McpTool): string[] {
  return [...new Set(tool.contracts.map((c) => c.http!.access))];
}

export function toolDescription(tool: McpTool): string {
  const summaries = tool.contracts.map((c) => c.http!.summary);
  const routes = tool.contracts.map((c) => `${c.http!.method} ${c.http!.path}`).join(' + ');
  const retries = tool.readOnly ? '' : ` Safe to retry with \`${IDEMPOTENCY_KEY_ARGUMENT}\` (or the request's Idempotency-Key header): the same key answers the first call's result; another body under it is refused (IDEMPOTENCY_BODY_MISMATCH).`;
  return `${summaries.join(' Then: ')}${tool.note ? ` ${tool.note}` : ''}${retries} (REST: ${routes}; scope: ${scopesOf(tool).join(', ')})`;
}

export function toolListing(): Tool[] {
  return MCP_TOOLS.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: toolDescription(tool),
    inputSchema: toolInputSchema(tool) as Tool['inputSchema'],
    annotations: { title: tool.title, readOnlyHint: tool.readOnly, openWorldHint: !tool.readOnly },
  }));
}

const SERVER_INFO = { name: 'einvoicing-exchange', version: '1.0.0' };

/**
 * An MCP server over the given runner. `toEnvelope` turns a refusal into the REST error envelope
 * (the gateway's formatter, or the REST answer itself over stdio); anything it cannot place is rethrown.
 */
export function createMcpServer(runner: ContractRunner, toEnvelope: (err: unknown) => ErrorEnvelope): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: {} },
    instructions: 'E-invoicing exchange: validate, send, search and read e-invoices, move their lifecycle, list events, verify recipients. Each tool is one REST operation (see /llms.txt) with the same scopes; a refusal answers the REST error envelope {error: {code, message, ...}}.',
  });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: toolListing() }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const tool = MCP_TOOLS.find((t) => t.name === request.params.name);
    if (!tool) {
      const envelope = { error: { type: 'invalid_request_error', code: 'RESOURCE_NOT_FOUND', message: `No tool named '${request.params.name}'; tools/list names them` } };
      return { isError: true, content: [{ type: 'text', text: JSON.stringify(envelope) }], structuredContent: envelope };
    }
    try {
      const args: Record<string, unknown> = { ...(request.params.arguments ?? {}) };
      const options: RunOptions = {};
      if (!tool.readOnly) {
        // The call's own key first; else the header of the HTTP request that carried it (none over stdio).
        const header = extra.requestInfo?.headers['idempotency-key'];
        const key = args[IDEMPOTENCY_KEY_ARGUMENT] ?? (Array.isArray(header) ? header[0] : header);
        delete args[IDEMPOTENCY_KEY_ARGUMENT];
        if (key !== undefined) options.idempotencyKey = key;
      }
      const result = await tool.call(runner, args, options);
      const structured = result !== null && typeof result === 'object' && !Array.isArray(result) && !Buffer.isBuffer(result) ? (result as Record<string, unknown>) : undefined;
      return { content: [{ type: 'text', text: typeof result === 'string' ? result : JSON.stringify(result) }], ...(structured ? { structuredContent: structured } : {}) };
    } catch (err) {
      const envelope = toEnvelope(err);
      return { isError: true, content: [{ type: 'text', text: JSON.stringify(envelope) }], structuredContent: envelope };
    }
  });
  return server;
}
