/**
 * The MCP server's tools: each one is an operation of the REST API, named for an agent, whose
 * input schema is the contract's own params turned into JSON Schema (the same conversion as the
 * OpenAPI document), and which runs through a `ContractRunner`: inside the product, the gateway's
 * runner (services/gateway/mcp.ts: the same actions, principal, scope and company checks as a
 * request); over stdio, a runner that calls the REST API (scripts/mcp-stdio.ts). Either way the
 * services' own checks apply exactly as over REST.
 *
 * The SDK's low-level `Server` is used, not `McpServer`: `McpServer` takes zod schemas, and ours
 * come from the contracts as JSON Schema.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ActionContract, JsonSchema } from '../shared/contract.ts';
import { objectSchema } from '../shared/json-schema.ts';
import * as documents from '../documents/documents.contract.ts';
import { validate } from '../validation/validation.contract.ts';
import { listEvents } from '../events/events.contract.ts';
import { verify } from '../directory/directory.contract.ts';

type AnyContract = ActionContract<unknown, unknown>;

/** Runs one contract's operation for the caller; a refusal throws the same error REST would answer. */
export interface ContractRunner {
  run(contract: AnyContract, params: Record<string, unknown>): Promise<unknown>;
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
  readOnly: boolean;
  call(runner: ContractRunner, args: Record<string, unknown>): Promise<unknown>;
}

const single = (contract: AnyContract) => (runner: ContractRunner, args: Record<string, unknown>) => runner.run(contract, args);

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

/** Scopes a tool needs: those of its operations' routes. */
export function scopesOf(tool: McpTool): string[] {
  return [...new Set(tool.contracts.map((c) => c.http!.access))];
}

export function toolDescription(tool: McpTool): string {
  const summaries = tool.contracts.map((c) => c.http!.summary);
  const routes = tool.contracts.map((c) => `${c.http!.method} ${c.http!.path}`).join(' + ');
  return `${summaries.join(' Then: ')}${tool.note ? ` ${tool.note}` : ''} (REST: ${routes}; scope: ${scopesOf(tool).join(', ')})`;
}

export function toolListing(): Tool[] {
  return MCP_TOOLS.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: toolDescription(tool),
    inputSchema: inputSchemaOf(tool.input) as Tool['inputSchema'],
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
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const tool = MCP_TOOLS.find((t) => t.name === request.params.name);
    if (!tool) {
      const envelope = { error: { type: 'invalid_request_error', code: 'RESOURCE_NOT_FOUND', message: `No tool named '${request.params.name}'; tools/list names them` } };
      return { isError: true, content: [{ type: 'text', text: JSON.stringify(envelope) }], structuredContent: envelope };
    }
    try {
      const result = await tool.call(runner, { ...(request.params.arguments ?? {}) });
      const structured = result !== null && typeof result === 'object' && !Array.isArray(result) && !Buffer.isBuffer(result) ? (result as Record<string, unknown>) : undefined;
      return { content: [{ type: 'text', text: typeof result === 'string' ? result : JSON.stringify(result) }], ...(structured ? { structuredContent: structured } : {}) };
    } catch (err) {
      const envelope = toEnvelope(err);
      return { isError: true, content: [{ type: 'text', text: JSON.stringify(envelope) }], structuredContent: envelope };
    }
  });
  return server;
}
