/** gateway: the HTTP edge. Its own actions serve the API description and the error catalogue. */
import { defineAction } from '../shared/contract.ts';

export const openapi = defineAction<Record<string, never>, Record<string, unknown>>('gateway', 'openapi', {
  params: {},
  http: {
    method: 'GET', path: '/v1/openapi.json', access: 'public', tag: 'Meta', summary: 'This OpenAPI 3.1 document',
    response: { type: 'object', required: ['openapi', 'paths'], properties: { openapi: { const: '3.1.0' }, paths: { type: 'object', additionalProperties: true } } },
  },
});

export const errorCatalogue = defineAction<Record<string, never>, Record<string, unknown>>('gateway', 'errorCatalogue', {
  params: {},
  http: {
    method: 'GET', path: '/docs/errors', access: 'public', tag: 'Meta', summary: 'Every error code with its HTTP status, type and meaning (the target of `docUrl`)',
    response: { type: 'object', additionalProperties: { type: 'object', properties: { status: { type: 'integer' }, type: { type: 'string' }, description: { type: 'string' } } } },
  },
});
