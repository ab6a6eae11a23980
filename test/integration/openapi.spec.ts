/** The OpenAPI document is generated from the contracts the gateway routes with: in sync by construction. */
import { startTestApp, api, type TestApp } from '../support/app.ts';
import { HTTP_CONTRACTS, CONTRACTS } from '../../services/gateway/routes.ts';

let t: TestApp;
beforeAll(async () => { t = await startTestApp({ services: ['gateway'], databaseUrl: 'postgres://unused' }); });
afterAll(async () => { await t.stop({ keepDatabase: true }); });

it('every HTTP route declares a params schema, an access rule and a response schema', () => {
  expect(HTTP_CONTRACTS.length).toBeGreaterThan(5);
  for (const c of HTTP_CONTRACTS) {
    const http = c.http!;
    expect({ route: `${http.method} ${http.path}`, params: typeof c.params, response: typeof http.response.type, access: typeof http.access })
      .toEqual({ route: `${http.method} ${http.path}`, params: 'object', response: 'string', access: 'string' });
    for (const name of [...http.path.matchAll(/:(\w+)/g)].map((m) => m[1]!)) expect(Object.keys(c.params)).toContain(name);
  }
  // Every contract names a distinct action.
  expect(new Set(CONTRACTS.map((c) => c.action)).size).toBe(CONTRACTS.length);
});

it('serves an OpenAPI 3.1 document with exactly the gateway routes', async () => {
  const res = await api(t.baseUrl, 'GET', '/v1/openapi.json');
  expect(res.status).toBe(200);
  const doc = res.body;
  expect(doc.openapi).toBe('3.1.0');
  const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
    .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`)).sort();
  const routed = HTTP_CONTRACTS.map((c) => `${c.http!.method} ${c.http!.path.replace(/:(\w+)/g, '{$1}')}`).sort();
  expect(documented).toEqual(routed);

  // What moleculer-web actually routes (restricted mapping: its alias table is the whole surface).
  const aliases = (t.app.broker.getLocalService('gateway') as unknown as { aliases: Array<{ method: string; fullPath: string }> }).aliases
    .map((a) => `${a.method} ${a.fullPath.replace(/:(\w+)/g, '{$1}')}`).sort();
  // Plus the mount point of connectors' network endpoints (adapters/sdk routes): not part of the API, so not in its document.
  const connectorMounts = ['GET', 'POST', 'PUT'].map((m) => `${m} /connectors/{connectorId}/{route}`);
  // And the MCP server's endpoint (JSON-RPC over streamable HTTP; its tools are the operations above, described in /llms.txt).
  const mcpMount = ['DELETE', 'GET', 'POST'].map((m) => `${m} /mcp`);
  // And the web dashboard's static files (a client of this API, not part of it).
  const dashboardMount = ['GET', 'HEAD'].flatMap((m) => [`${m} /app`, `${m} /app/{file}`]);
  expect(aliases).toEqual([...routed, ...connectorMounts, ...mcpMount, ...dashboardMount].sort());

  const createKey = doc.paths['/v1/api-keys'].post;
  expect(createKey['x-required-scope']).toBe('platform');
  expect(createKey.requestBody.content['application/json'].schema).toMatchObject({
    type: 'object', required: ['name'], properties: { name: { type: 'string', maxLength: 100 }, keyType: { enum: ['personal', 'platform', 'white_label'] } },
  });
  expect(createKey.responses['201'].content['application/json'].schema.properties.keyPrefix).toBeDefined();
  expect(doc.paths['/v1/api-keys'].get.parameters).toEqual(expect.arrayContaining([
    expect.objectContaining({ name: 'limit', in: 'query', schema: expect.objectContaining({ type: 'integer', maximum: 100 }) }),
  ]));
  expect(doc.paths['/v1/sandbox/bootstrap'].post.security).toEqual([]);
  expect(doc.components.schemas.Error.properties.error.required).toEqual(['type', 'code', 'message', 'details', 'requestId', 'docUrl']);
});

it('serves the error catalogue that docUrl points to: a page with one anchor per code, and the same as JSON', async () => {
  const res = await api(t.baseUrl, 'GET', '/docs/errors.json');
  expect(res.status).toBe(200);
  expect(res.body.COMPANY_REQUIRED).toEqual({ status: 403, type: 'permission_error', description: expect.any(String) });

  const page = await api(t.baseUrl, 'GET', '/docs/errors');
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  // Every code a docUrl can name has its anchor, and so have the delivery codes of failed documents.
  for (const code of Object.keys(res.body)) expect(page.text).toContain(`<tr id="${code}">`);
  for (const code of ['AP_REJECTED', 'TRANSPORT_FAILURE']) expect(page.text).toContain(`<tr id="${code}">`);
  const unknown = await api(t.baseUrl, 'GET', '/v1/no-such-route');
  expect(unknown.body.error.docUrl).toMatch(/\/docs\/errors#ROUTE_NOT_FOUND$/);
});

it('serves the API reference from this deployment, with no third-party script', async () => {
  const page = await api(t.baseUrl, 'GET', '/docs');
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  const scripts = [...page.text.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]);
  expect(scripts).toEqual(['/docs/redoc.standalone.js']);
  expect(page.text).toContain('spec-url="/v1/openapi.json"');
  const script = await fetch(`${t.baseUrl}/docs/redoc.standalone.js`);
  expect(script.status).toBe(200);
  expect(script.headers.get('content-type')).toMatch(/javascript/);
  expect((await script.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
});

describe('every body is typed, so a generated client needs no casts', () => {
  /** Object schemas that say nothing of their shape: a generator makes them `Record<string, never>`. */
  function shapeless(schema: unknown, path: string, out: string[]): string[] {
    if (!schema || typeof schema !== 'object') return out;
    if (Array.isArray(schema)) { schema.forEach((s, i) => shapeless(s, `${path}[${i}]`, out)); return out; }
    const s = schema as Record<string, unknown>;
    const isObject = s.type === 'object' || (Array.isArray(s.type) && s.type.includes('object'));
    if (isObject && !['properties', 'additionalProperties', 'oneOf', 'anyOf', 'allOf', '$ref', 'patternProperties'].some((k) => k in s)) out.push(path);
    for (const [k, v] of Object.entries(s)) shapeless(v, `${path}/${k}`, out);
    return out;
  }

  it('has no object schema without a shape, in any request, response or component', async () => {
    const doc = (await api(t.baseUrl, 'GET', '/v1/openapi.json')).body;
    expect(shapeless(doc.paths, '#/paths', [])).toEqual([]);
    expect(shapeless(doc.components, '#/components', [])).toEqual([]);
    expect(shapeless(doc.webhooks, '#/webhooks', [])).toEqual([]);
  });

  it('lists each operation\'s errors, with findings in the error schema, and every webhook event with its data', async () => {
    const doc = (await api(t.baseUrl, 'GET', '/v1/openapi.json')).body;
    const send = doc.paths['/v1/documents/send'].post.responses;
    for (const code of ['UBL_VALIDATION_FAILED', 'RECIPIENT_NOT_FOUND', 'RECIPIENT_CANNOT_RECEIVE', 'ISSUER_MISMATCH']) expect(send['422'].description).toContain(code);
    expect(send['409'].description).toContain('DUPLICATE_DOCUMENT');
    expect(doc.paths['/v1/documents/{id}'].get.responses['404'].description).toContain('DOCUMENT_NOT_FOUND');
    expect(doc.components.schemas.Error.properties.error.properties.findings.items.required).toEqual(['rule', 'severity', 'location', 'message']);
    expect(Object.keys(doc.webhooks).sort()).toEqual(['company.smp_registered', 'compliance.reported', 'document.delivered', 'document.duplicate_received', 'document.failed', 'document.received', 'document.sent', 'document.updated', 'lifecycle.updated']);
    const received = doc.webhooks['document.received'].post.requestBody.content['application/json'].schema;
    expect(received.properties.data.required).toEqual(['documentId', 'type', 'number', 'direction', 'sender', 'receiver']);
    expect(doc.webhooks['document.sent'].post.parameters.map((h: { name: string }) => h.name)).toContain('X-Service-Signature');
  });

  it('describes the JSON document of a send field by field, the batch as sends, and search filters as a recursive tree', async () => {
    const doc = (await api(t.baseUrl, 'GET', '/v1/openapi.json')).body;
    const send = doc.paths['/v1/documents/send'].post.requestBody.content['application/json'].schema;
    const body = send.properties.document;
    expect(body.required).toEqual(['number']);
    expect(Object.keys(body.properties)).toEqual(expect.arrayContaining(['number', 'issueDate', 'seller', 'buyer', 'lines', 'totals', 'payment', 'delivery', 'customFields']));
    expect(body.properties.seller.properties.vatNumber.description).toContain('BT-31');
    expect(Object.keys(body.properties.lines.items.properties)).toEqual(expect.arrayContaining(['description', 'quantity', 'unit', 'unitPrice', 'vatRate', 'vatCategory']));
    expect(Object.keys(body.properties.totals.properties)).toEqual(['net', 'vat', 'gross', 'prepaid', 'payable']);
    expect(send.properties.metadata.properties.recipientRouting.properties).toHaveProperty('addressingIdentifier');
    // The validate call takes the same document.
    expect(doc.paths['/v1/documents/validate'].post.requestBody.content['application/json'].schema.properties.document).toEqual(body);

    const batchItem = doc.paths['/v1/documents/send/batch'].post.requestBody.content['application/json'].schema.properties.documents.items;
    expect(batchItem.properties.document).toEqual(body);
    expect(batchItem.required).toEqual(expect.arrayContaining(['type']));
    // format may be left out when the organization's platform settings prefer one (defaults.preferredFormat).
    expect(batchItem.properties.format.enum).toEqual(['json', 'ubl-xml', 'cii-xml', 'auto', 'raw']);

    const filters = doc.paths['/v1/documents/search'].post.requestBody.content['application/json'].schema.properties.filters;
    expect(filters).toEqual({ $ref: '#/components/schemas/SearchFilter' });
    expect(doc.components.schemas.SearchFilter.properties.$or.items).toEqual({ $ref: '#/components/schemas/SearchFilter' });

    const view = doc.paths['/v1/documents/{id}'].get.responses['200'].content['application/json'].schema;
    expect(Object.keys(view.properties.to.properties)).toEqual(expect.arrayContaining(['peppolId', 'companyId', 'name']));
    const history = doc.paths['/v1/documents/{id}/lifecycle'].get.responses['200'].content['application/json'].schema.properties.history;
    expect(history.items.required).toEqual(['code', 'label', 'status', 'emittedBy', 'at']);
  });
});

it('carries what a reference page and the linters need: contact, licence, described tags and operations', async () => {
  const doc = (await api(t.baseUrl, 'GET', '/v1/openapi.json')).body;
  expect(doc.info.license).toEqual({ name: 'Apache-2.0', identifier: 'Apache-2.0' });
  expect(doc.info.contact.url).toMatch(/^https:/);
  const tags = new Set(doc.tags.map((tag: { name: string; description: string }) => { expect(tag.description.length).toBeGreaterThan(10); return tag.name; }));
  for (const ops of Object.values(doc.paths as Record<string, Record<string, { tags: string[]; description: string }>>)) {
    for (const op of Object.values(ops)) {
      expect(tags.has(op.tags[0]!)).toBe(true);
      expect(op.description.length).toBeGreaterThan(10);
    }
  }
});
