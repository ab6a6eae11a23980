/** The deprecation mechanism on a contract built here: response headers and the OpenAPI flag. */
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { defineAction } from '../../../../services/shared/contract.ts';
import { applyDeprecationHeaders, deprecationHeaders } from '../../../../services/gateway/deprecation.ts';
import { buildOpenApi } from '../../../../services/gateway/openapi.ts';

const deprecated = { sunset: '2027-06-30', link: 'https://docs.example.test/changelog#legacy-ping' };
const legacy = defineAction<Record<string, never>, { pong: true }>('legacy', 'ping', {
  params: {},
  http: { method: 'GET', path: '/v1/legacy/ping', access: 'authenticated', tag: 'Legacy', summary: 'Old ping', deprecated, response: { type: 'object' } },
});
const current = defineAction<Record<string, never>, { pong: true }>('legacy', 'pingV2', {
  params: {},
  http: { method: 'GET', path: '/v1/ping', access: 'authenticated', tag: 'Legacy', summary: 'Ping', response: { type: 'object' } },
});

it('a deprecated binding yields Deprecation, Sunset (HTTP date) and Link rel=deprecation; a current one none', () => {
  expect(deprecationHeaders(legacy.http!.deprecated)).toEqual({
    Deprecation: 'true',
    Sunset: 'Wed, 30 Jun 2027 00:00:00 GMT',
    Link: '<https://docs.example.test/changelog#legacy-ping>; rel="deprecation"',
  });
  expect(deprecationHeaders(current.http!.deprecated)).toEqual({});
  expect(() => deprecationHeaders({ sunset: 'next summer', link: 'x' })).toThrow(/not an ISO 8601 date/);
});

it('sets the headers on a response, keeping a Link already there', () => {
  const res = new ServerResponse(new IncomingMessage(new Socket()));
  res.setHeader('Link', '</v1/openapi.json>; rel="service-desc"');
  applyDeprecationHeaders(res, legacy.http);
  expect(res.getHeader('deprecation')).toBe('true');
  expect(res.getHeader('sunset')).toBe('Wed, 30 Jun 2027 00:00:00 GMT');
  expect(res.getHeader('link')).toEqual(['</v1/openapi.json>; rel="service-desc"', '<https://docs.example.test/changelog#legacy-ping>; rel="deprecation"']);
  const plain = new ServerResponse(new IncomingMessage(new Socket()));
  applyDeprecationHeaders(plain, current.http);
  expect(plain.getHeaderNames()).toEqual([]);
});

it('flags the operation deprecated: true in the OpenAPI document, and only that one', () => {
  const doc = buildOpenApi([legacy, current], 'http://localhost') as { paths: Record<string, Record<string, Record<string, unknown>>> };
  expect(doc.paths['/v1/legacy/ping']!.get).toMatchObject({ deprecated: true, 'x-sunset': '2027-06-30', externalDocs: { url: deprecated.link } });
  expect(doc.paths['/v1/ping']!.get!.deprecated).toBeUndefined();
});

it('flags a request field deprecated: true when its rule says so', () => {
  const withField = defineAction<{ label?: string; name?: string }, { pong: true }>('legacy', 'rename', {
    params: { label: { type: 'string', optional: true, deprecated: true }, name: { type: 'string', optional: true } },
    http: { method: 'POST', path: '/v1/legacy/rename', access: 'authenticated', tag: 'Legacy', summary: 'Rename', response: { type: 'object' } },
  });
  const doc = buildOpenApi([withField], 'http://localhost') as { paths: Record<string, Record<string, { requestBody: { content: Record<string, { schema: { properties: Record<string, unknown> } }> } }>> };
  const props = doc.paths['/v1/legacy/rename']!.post!.requestBody.content['application/json']!.schema.properties;
  expect(props.label).toEqual({ type: 'string', deprecated: true });
  expect(props.name).toEqual({ type: 'string' });
});
