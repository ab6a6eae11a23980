/**
 * Every answer the integration suite receives through `api()` is checked against the OpenAPI
 * document the gateway serves (built here from the same contracts): its status must be one the
 * operation declares and its JSON body must match that response's schema. A contract that drifts
 * from what the service answers fails the test that saw it.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { buildOpenApi } from '../../services/gateway/openapi.ts';
import { HTTP_CONTRACTS } from '../../services/gateway/routes.ts';

interface Operation { pattern: RegExp; path: string; responses: Record<string, { content?: Record<string, { schema?: unknown }> }> }

let operations: Map<string, Operation[]> | undefined;
let ajv: Ajv2020 | undefined;
const compiled = new Map<string, ValidateFunction>();

function load(): Map<string, Operation[]> {
  const doc = buildOpenApi(HTTP_CONTRACTS, 'http://127.0.0.1') as { paths: Record<string, Record<string, { responses: Operation['responses'] }>>; components: { schemas: Record<string, unknown> } };
  ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  // `#/components/schemas/<name>` references resolve against the document itself.
  ajv.addSchema({ $id: 'openapi', components: doc.components }, 'openapi');
  const byMethod = new Map<string, Operation[]>();
  for (const [path, ops] of Object.entries(doc.paths)) {
    const pattern = new RegExp(`^${path.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`);
    for (const [method, op] of Object.entries(ops)) {
      const list = byMethod.get(method.toUpperCase()) ?? [];
      list.push({ pattern, path, responses: op.responses });
      byMethod.set(method.toUpperCase(), list);
    }
  }
  // Literal paths before templated ones (/v1/documents/search before /v1/documents/{id}).
  for (const list of byMethod.values()) list.sort((a, b) => (a.path.includes('{') ? 1 : 0) - (b.path.includes('{') ? 1 : 0));
  return byMethod;
}

/** Rewrites local `#/components/...` references to the registered document. */
function anchored(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema ?? {}).replace(/"#\/components\//g, '"openapi#/components/'));
}

/** Throws when a JSON answer of a documented operation does not match its description. */
export function checkResponse(method: string, url: string, status: number, contentType: string | null, body: unknown): void {
  operations ??= load();
  const path = new URL(url).pathname;
  const op = operations.get(method.toUpperCase())?.find((o) => o.pattern.test(path));
  if (!op) return; // not an API operation (health probes, connector routes, 404s of unknown routes)
  const response = op.responses[String(status)];
  if (!response) throw new Error(`${method} ${op.path} answered ${status}, which its OpenAPI description does not declare (declared: ${Object.keys(op.responses).join(', ')})`);
  if (!contentType?.includes('application/json') || body === undefined) return;
  const schema = response.content?.['application/json']?.schema;
  if (!schema) return;
  const key = `${method} ${op.path} ${status}`;
  let validate = compiled.get(key);
  if (!validate) compiled.set(key, (validate = ajv!.compile(anchored(schema) as object)));
  if (!validate(body)) {
    throw new Error(`${method} ${op.path} ${status}: the body does not match its OpenAPI schema: ${ajv!.errorsText(validate.errors, { separator: '; ' })}\n${JSON.stringify(body).slice(0, 500)}`);
  }
}
