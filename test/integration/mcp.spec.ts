/**
 * The MCP server at /mcp, driven by the SDK's own Client over its streamable HTTP client transport
 * against the real app: the tools and their contract-derived input schemas, an invoice validated,
 * sent, found and read back with its lifecycle, a lifecycle moved by the buyer, events listed and a
 * recipient verified; a handoff-redeemed key working through it; scopes refused with REST's code;
 * a send retried under an idempotency key (argument or header) answering the first result, never a
 * second document; and /llms.txt written from the contracts.
 */
import { loseTheAnswer as loseAnswer, sqlOn } from '../support/lost-answer.ts';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startTestApp, api, bootstrap, type TestApp } from '../support/app.ts';
import { MCP_TOOLS, toolInputSchema } from '../../services/gateway/mcp-tools.ts';
import { HTTP_CONTRACTS } from '../../services/gateway/routes.ts';
import * as documents from '../../services/documents/documents.contract.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
process.env.EINV_RATE_LIMITS = 'free=100000';

let t: TestApp;
let a: Awaited<ReturnType<typeof bootstrap>>;
let b: Awaited<ReturnType<typeof bootstrap>>;
const clients: Client[] = [];
beforeAll(async () => {
  t = await startTestApp();
  [a, b] = [await bootstrap(t.baseUrl, { label: 'alice' }), await bootstrap(t.baseUrl, { label: 'bob' })];
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await t.stop();
});

async function connect(key: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${t.baseUrl}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}`, ...headers } } }));
  clients.push(client);
  return client;
}

type ToolAnswer = { isError?: boolean; structuredContent?: any; content: Array<{ type: string; text?: string }> };
async function tool(client: Client, name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  return (await client.callTool({ name, arguments: args })) as ToolAnswer;
}
function ok(answer: ToolAnswer): any {
  if (answer.isError) throw new Error(`tool refused: ${answer.content[0]?.text}`);
  expect(JSON.parse(answer.content[0]!.text!)).toEqual(answer.structuredContent);
  return answer.structuredContent;
}

let n = 0;
const invoice = (number = `MCP-${Date.now()}-${++n}`) => ({
  number, issueDate: '2026-03-01', dueDate: '2026-04-01', buyerReference: 'PO-9',
  seller: { name: 'Acme SPRL', vatNumber: a.company.vatNumber, address: { street: 'Rue Neuve 1', city: 'Brussels', postalCode: '1000', country: 'BE' } },
  buyer: { name: 'Client SA', vatNumber: 'FR40303265045', address: { street: '1 rue de Paris', city: 'Paris', postalCode: '75001', country: 'FR' } },
  lines: [{ description: 'Consulting', quantity: 2, unit: 'HUR', unitPrice: 100, vatRate: 21 }],
});

describe('tools', () => {
  it('lists the seven tools, each with the input schema of its REST contract', async () => {
    const client = await connect(a.apiKey);
    const { tools } = await client.listTools();
    expect(tools.map((x) => x.name)).toEqual(['validate_document', 'send_document', 'search_documents', 'get_document', 'move_lifecycle', 'list_events', 'verify_recipient']);
    for (const def of MCP_TOOLS) expect(tools.find((x) => x.name === def.name)!.inputSchema).toEqual(toolInputSchema(def));
    const send = tools.find((x) => x.name === 'send_document')!;
    expect(Object.keys(send.inputSchema.properties!)).toEqual(expect.arrayContaining(['type', 'format', 'to', 'document', 'xml', 'idempotencyKey']));
    // The tools that change something take an idempotency key, and say so; the reads take none.
    for (const def of MCP_TOOLS) {
      const listed = tools.find((x) => x.name === def.name)!;
      expect([def.name, Object.keys(listed.inputSchema.properties ?? {}).includes('idempotencyKey')]).toEqual([def.name, !def.readOnly]);
      expect([def.name, listed.description!.includes('idempotencyKey')]).toEqual([def.name, !def.readOnly]);
    }
    // `format` may be left out: the organization's preferred format (platform settings) then applies.
    expect(send.inputSchema.required).toEqual(['type']);
    expect(send.description).toContain('scope: send');
    // A named schema the contract refers to travels with it.
    const search = tools.find((x) => x.name === 'search_documents')!;
    expect(JSON.stringify(search.inputSchema)).toContain('#/$defs/SearchFilter');
    expect((search.inputSchema as { $defs?: Record<string, unknown> }).$defs).toHaveProperty('SearchFilter');
    expect(tools.find((x) => x.name === 'get_document')!.annotations).toMatchObject({ readOnlyHint: true });
  });

  it('validates, sends, finds and reads back an invoice with its lifecycle; the buyer moves it, lists events, verifies a recipient', async () => {
    const alice = await connect(a.apiKey);
    const number = `MCP-${Date.now()}-${++n}`;
    const validated = ok(await tool(alice, 'validate_document', { format: 'json', type: 'invoice', document: invoice(number) }));
    expect(validated).toMatchObject({ valid: true });
    // A refusal is the REST answer's envelope, code for code.
    const lineless = { format: 'json', type: 'invoice', document: { ...invoice(), lines: [] } };
    const invalid = await tool(alice, 'validate_document', lineless);
    expect(invalid.isError).toBe(true);
    const rest = await api(t.baseUrl, 'POST', '/v1/documents/validate', { key: a.apiKey, body: lineless });
    expect(invalid.structuredContent.error).toMatchObject({ code: rest.body.error.code, details: rest.body.error.details, requestId: expect.stringMatching(/^req_/) });

    const verified = ok(await tool(alice, 'verify_recipient', { peppolId: b.company.peppolId, documentType: 'invoice' }));
    expect(verified).toMatchObject({ registered: true, canReceive: true });

    const sent = ok(await tool(alice, 'send_document', { type: 'invoice', format: 'json', to: b.company.peppolId, document: invoice(number) }));
    expect(sent).toMatchObject({ id: expect.stringMatching(/^doc_/), number, direction: 'outgoing' });
    // The same document over REST.
    expect((await api(t.baseUrl, 'GET', `/v1/documents/${sent.id}`, { key: a.apiKey })).body.number).toBe(number);

    const read = ok(await tool(alice, 'get_document', { id: sent.id }));
    expect(read.document).toMatchObject({ id: sent.id, number });
    expect(read.lifecycle).toMatchObject({ documentId: sent.id, party: 'supplier' });
    expect(Array.isArray(read.lifecycle.history)).toBe(true);

    const found = ok(await tool(alice, 'search_documents', { filters: { number } }));
    expect(found.data.map((d: { id: string }) => d.id)).toEqual([sent.id]);

    // The buyer, through its own MCP session, finds its copy and moves the lifecycle.
    const bob = await connect(b.apiKey);
    let incoming: { id: string } | undefined;
    for (const until = Date.now() + 15_000; !incoming && Date.now() < until;) {
      incoming = ok(await tool(bob, 'search_documents', { filters: { number, direction: 'incoming' } })).data[0];
      if (!incoming) await new Promise((r) => setTimeout(r, 100));
    }
    expect(incoming).toBeDefined();
    const moved = ok(await tool(bob, 'move_lifecycle', { id: incoming!.id, status: 'under_review' }));
    expect(moved).toMatchObject({ documentId: incoming!.id, status: 'under_review', currentCode: '204' });
    const refused = await tool(bob, 'move_lifecycle', { id: incoming!.id, status: 'paid', paymentAmount: -1 });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent.error.code).toBe('INVALID_REQUEST');

    const events = ok(await tool(alice, 'list_events', { limit: 100 }));
    expect(events.data.some((e: { data: { documentId?: string } }) => e.data.documentId === sent.id)).toBe(true);
  });

  it('works with a key an agent redeemed from a handoff token, within its scopes', async () => {
    const minted = await api(t.baseUrl, 'POST', '/v1/oauth/handoffs', { key: a.apiKey, body: { scopes: ['send', 'documents.read'] } });
    const redeemed = await api(t.baseUrl, 'POST', '/v1/oauth/handoffs/redeem', { body: { token: minted.body.token } });
    const agent = await connect(redeemed.body.key);
    const sent = ok(await tool(agent, 'send_document', { type: 'invoice', format: 'json', to: b.company.peppolId, document: invoice() }));
    expect(ok(await tool(agent, 'get_document', { id: sent.id })).document.id).toBe(sent.id);
    // documents.search is not among a handoff's scopes.
    const search = await tool(agent, 'search_documents', { query: 'x' });
    expect(search.isError).toBe(true);
    expect(search.structuredContent.error).toMatchObject({ code: 'INSUFFICIENT_SCOPE', requiredScope: 'documents.search' });
  });
});

describe('retries', () => {
  const sql = (text: string, values: unknown[] = []) => sqlOn(t.databaseUrl, text, values);
  const loseTheAnswer = (key: string) => loseAnswer(t.databaseUrl, key);
  const documentsNumbered = async (number: string) => (await sql('select count(*)::int as n from documents where organization_id = $1 and number = $2', [a.organizationId, number])).rows[0].n as number;

  it('send_document retried with the same idempotencyKey answers the first result, lost answer or not: one document; another body under the key is the conflict /v1 gives', async () => {
    const alice = await connect(a.apiKey);
    const idempotencyKey = `mcp-send-${Date.now()}`;
    const args = { type: 'invoice', format: 'json', to: b.company.peppolId, document: invoice(), idempotencyKey };
    const first = ok(await tool(alice, 'send_document', args));
    expect(first).toMatchObject({ id: expect.stringMatching(/^doc_/), number: args.document.number });
    expect(ok(await tool(alice, 'send_document', args))).toEqual(first);
    // The answer was lost with its process after the send committed: the document keeps the key.
    await loseTheAnswer(idempotencyKey);
    expect(ok(await tool(alice, 'send_document', args)).id).toBe(first.id);
    expect(await documentsNumbered(args.document.number)).toBe(1);

    // Another body under the key: the tool error carries what /v1 answers in that case.
    const restKey = `${idempotencyKey}-rest`;
    const body = { type: 'invoice', format: 'json', to: b.company.peppolId, document: invoice() };
    expect((await api(t.baseUrl, 'POST', '/v1/documents/send', { key: a.apiKey, headers: { 'idempotency-key': restKey }, body })).status).toBe(201);
    const rest = await api(t.baseUrl, 'POST', '/v1/documents/send', { key: a.apiKey, headers: { 'idempotency-key': restKey }, body: { ...body, document: invoice() } });
    expect(rest.status).toBe(409);
    const other = invoice();
    const conflict = await tool(alice, 'send_document', { ...args, document: other });
    expect(conflict.isError).toBe(true);
    expect(conflict.structuredContent.error).toMatchObject({ code: rest.body.error.code, type: rest.body.error.type, message: rest.body.error.message });
    expect(conflict.structuredContent.error.code).toBe('IDEMPOTENCY_BODY_MISMATCH');
    // Also when the kept answer is gone: the document that keeps the key refuses it.
    await loseTheAnswer(idempotencyKey);
    expect((await tool(alice, 'send_document', { ...args, document: other })).structuredContent.error.code).toBe('IDEMPOTENCY_BODY_MISMATCH');
    expect(await documentsNumbered(other.number)).toBe(0);
    // A refusal is kept as well: the same refused call again is the same refusal.
    const lineless = { ...args, document: { ...invoice(), lines: [] }, idempotencyKey: `${idempotencyKey}-refused` };
    const refused = await tool(alice, 'send_document', lineless);
    expect(refused.isError).toBe(true);
    const refusedAgain = await tool(alice, 'send_document', lineless);
    expect(refusedAgain.structuredContent.error).toEqual({ ...refused.structuredContent.error, requestId: expect.stringMatching(/^req_/) });
  });

  it('the Idempotency-Key header of the MCP request stands for a call that names no key; a key that is no string is refused', async () => {
    const agent = await connect(a.apiKey, { 'Idempotency-Key': `mcp-header-${Date.now()}` });
    const args = { type: 'invoice', format: 'json', to: b.company.peppolId, document: invoice() };
    const first = ok(await tool(agent, 'send_document', args));
    expect(ok(await tool(agent, 'send_document', args)).id).toBe(first.id);
    expect(await documentsNumbered(args.document.number)).toBe(1);
    // Reads are not claimed under the header: the search runs each time.
    ok(await tool(agent, 'search_documents', { filters: { number: args.document.number } }));
    expect(ok(await tool(agent, 'search_documents', { filters: { number: args.document.number } })).data.map((d: { id: string }) => d.id)).toEqual([first.id]);
    const alice = await connect(a.apiKey);
    const bad = await tool(alice, 'send_document', { ...args, document: invoice(), idempotencyKey: 42 });
    expect(bad.structuredContent.error).toMatchObject({ code: 'INVALID_REQUEST', details: [expect.objectContaining({ field: 'idempotencyKey' })] });
  });
});

describe('refusals', () => {
  it('refuses the send tool to a key without the send scope, with the code REST gives', async () => {
    const reader = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: a.apiKey, body: { name: 'reader', scopes: ['documents.read'] } });
    const body = { type: 'invoice', format: 'json', to: b.company.peppolId, document: invoice() };
    const rest = await api(t.baseUrl, 'POST', '/v1/documents/send', { key: reader.body.key, body });
    const client = await connect(reader.body.key);
    const answer = await tool(client, 'send_document', body);
    expect(answer.isError).toBe(true);
    expect(answer.structuredContent.error.code).toBe(rest.body.error.code);
    expect(answer.structuredContent.error).toMatchObject({ code: 'INSUFFICIENT_SCOPE', type: 'permission_error', requiredScope: 'send' });
    // Nothing was sent.
    const none = await api(t.baseUrl, 'POST', '/v1/documents/search', { key: a.apiKey, body: { filters: { number: body.document.number } } });
    expect(none.body.data).toEqual([]);
    // The refusal is in the organization's request log as REST's would be, marked as coming through /mcp.
    await (t.app.broker.getLocalService('gateway') as unknown as { guarantees: { log: { flush(): Promise<void> } } }).guarantees.log.flush();
    const log = await api(t.baseUrl, 'GET', '/v1/requests?limit=100', { key: a.apiKey });
    const entry = log.body.data.find((e: { path: string; apiKeyId: string }) => e.path === '/mcp' && e.apiKeyId === reader.body.id);
    expect(entry).toMatchObject({ method: 'POST', status: 403, errorCode: 'INSUFFICIENT_SCOPE' });
    expect((await api(t.baseUrl, 'GET', `/v1/requests/${entry.id}`, { key: a.apiKey })).body).toMatchObject({ action: 'documents.send', status: 403 });
  });

  it('checks the tool input against the contract as REST does, and a company-bound operation as REST does', async () => {
    const client = await connect(a.apiKey);
    const answer = await tool(client, 'send_document', { type: 'invoice', format: 'telepathy' });
    expect(answer.isError).toBe(true);
    expect(answer.structuredContent.error).toMatchObject({ code: 'INVALID_ENUM', details: [expect.objectContaining({ field: 'format' })] });
    const platform = await bootstrap(t.baseUrl, { keyType: 'platform' });
    const noCompany = await tool(await connect(platform.apiKey), 'send_document', { type: 'invoice', format: 'json', document: invoice() });
    expect(noCompany.structuredContent.error.code).toBe('COMPANY_REQUIRED');
  });

  it('answers 401 with the error envelope and WWW-Authenticate to a call without a valid key', async () => {
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } };
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const missing = await fetch(`${t.baseUrl}/mcp`, { method: 'POST', headers, body: JSON.stringify(init) });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer');
    expect(((await missing.json()) as any).error.code).toBe('MISSING_AUTH');
    const wrong = await fetch(`${t.baseUrl}/mcp`, { method: 'POST', headers: { ...headers, authorization: 'Bearer svc_test_nope' }, body: JSON.stringify(init) });
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as any).error.code).toBe('INVALID_TOKEN');
    await expect(connect('svc_test_nope')).rejects.toThrow();
  });
});

describe('over stdio', () => {
  it('runs the same tools as a process (scripts/mcp-stdio.ts) against the REST API, refusals included', async () => {
    const reader = await api(t.baseUrl, 'POST', '/v1/api-keys', { key: a.apiKey, body: { name: 'stdio reader', scopes: ['documents.read', 'directory'] } });
    const client = new Client({ name: 'stdio-agent', version: '1.0.0' });
    await client.connect(new StdioClientTransport({
      command: process.execPath, args: ['scripts/mcp-stdio.ts'], cwd: process.cwd(), stderr: 'pipe',
      env: { PATH: process.env.PATH ?? '', EINV_API_URL: t.baseUrl, EINV_API_KEY: reader.body.key },
    }));
    clients.push(client);
    const { tools } = await client.listTools();
    expect(tools.map((x) => x.name)).toEqual(MCP_TOOLS.map((x) => x.name));
    expect(ok(await tool(client, 'verify_recipient', { peppolId: b.company.peppolId, documentType: 'invoice' }))).toMatchObject({ registered: true });
    const refused = await tool(client, 'send_document', { type: 'invoice', format: 'json', to: b.company.peppolId, document: invoice() });
    expect(refused.structuredContent.error).toMatchObject({ code: 'INSUFFICIENT_SCOPE', requiredScope: 'send' });
  });
});

describe('/llms.txt', () => {
  it('describes the API for agents from the contracts: every operation with its scope, the agent access flows, the MCP tools', async () => {
    const res = await fetch(`${t.baseUrl}/llms.txt`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/markdown/);
    const text = await res.text();
    expect(text.startsWith('# Electronic Invoicing Exchange API\n')).toBe(true);
    for (const c of HTTP_CONTRACTS) expect(text).toContain(`\`${c.http!.method} ${c.http!.path}\``);
    expect(text).toContain(`\`POST /v1/documents/send\` (scope \`send\`; acts for one company): ${documents.send.http!.summary}`);
    for (const def of MCP_TOOLS) expect(text).toContain(`\`${def.name}\``);
    expect(text).toContain('/mcp');
    expect(text).toContain('code_challenge');
  });
});
