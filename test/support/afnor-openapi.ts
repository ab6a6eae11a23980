/**
 * The AFNOR XP Z12-013 OpenAPI annexes (Flow Service 1.3.0, Directory Service 1.3.0), read in place
 * from the corpus, and a check that an answer of ours is one they declare: its status is a
 * response of the operation (or its `default`), its media type one of that response's, its JSON
 * body valid against the response schema and its declared headers valid (openapi-backend, with
 * ajv-formats so `uuid`, `date-time`, `byte`, `uri-reference` are checked too).
 */
import { readFileSync } from 'node:fs';
import { OpenAPIBackend, type Document } from 'openapi-backend';
import addFormats from 'ajv-formats';
import { corpusPath } from './corpus.ts';

const ANNEX_DIR = ['France_RFE', 'FNFE_RFE_INVOICE', 'Z.notes_&_docs', 'XP_Z12_013_Annex'];
export const FLOW_SPEC_FILE = corpusPath(...ANNEX_DIR, 'ANNEXE A -XP Z12-013 - Flow_Service-1.3.0-swagger.json');
export const DIRECTORY_SPEC_FILE = corpusPath(...ANNEX_DIR, 'ANNEXE B -XP Z12-013 -  AFNOR-Directory_Service-1.3.0-swagger..json');

export interface AfnorSpec {
  backend: OpenAPIBackend;
  document: Document;
  /** `METHOD /path` of each operation id. */
  operations: Map<string, { method: string; path: string; responses: Record<string, { content?: Record<string, unknown>; headers?: Record<string, unknown> }> }>;
}

export async function loadAfnorSpec(file: string): Promise<AfnorSpec> {
  const document = JSON.parse(readFileSync(file, 'utf8')) as Document;
  const backend = new OpenAPIBackend({
    definition: document,
    quick: false,
    validate: true,
    customizeAjv: (ajv) => {
      (addFormats as unknown as (a: typeof ajv) => void)(ajv);
      return ajv;
    },
  });
  await backend.init();
  const operations: AfnorSpec['operations'] = new Map();
  for (const op of backend.getOperations()) {
    const responses = Object.fromEntries(Object.entries(op.responses ?? {}).map(([status, r]) => [status, resolve(document, r) as { content?: Record<string, unknown>; headers?: Record<string, unknown> }]));
    operations.set(op.operationId!, { method: op.method.toUpperCase(), path: op.path, responses });
  }
  return { backend, document, operations };
}

function resolve(document: Document, node: unknown): unknown {
  const ref = (node as { $ref?: string })?.$ref;
  if (!ref) return node;
  return ref.replace(/^#\//, '').split('/').reduce<unknown>((at, key) => (at as Record<string, unknown>)[key], document);
}

export interface Answer { status: number; headers: Headers; text: string; bytes: Buffer; json: unknown }

/** The problems of an answer against the operation's declared responses; empty when it conforms. */
export function conformanceProblems(spec: AfnorSpec, operationId: string, answer: Answer): string[] {
  const op = spec.operations.get(operationId);
  if (!op) return [`unknown operation ${operationId}`];
  const declared = op.responses[String(answer.status)] ?? op.responses.default;
  if (!declared) return [`${operationId} answered ${answer.status}, not declared (${Object.keys(op.responses).join(', ')})`];
  const problems: string[] = [];
  const mediaType = (answer.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  const content = declared.content ?? {};
  if (Object.keys(content).length === 0) {
    if (answer.bytes.length !== 0) problems.push(`${operationId} ${answer.status} declares no content but answered ${answer.bytes.length} bytes (${mediaType})`);
  } else if (!Object.keys(content).includes(mediaType)) {
    problems.push(`${operationId} ${answer.status} answered ${mediaType || 'no content type'}, declared ${Object.keys(content).join(', ')}`);
  } else if (mediaType.endsWith('json')) {
    const status = op.responses[String(answer.status)] ? answer.status : undefined;
    const schema = (content[mediaType] as { schema?: unknown }).schema;
    if (status !== undefined) {
      const result = spec.backend.validateResponse(answer.json, operationId, status);
      if (!result.valid) problems.push(`${operationId} ${answer.status} body: ${JSON.stringify(result.errors)}`);
    } else if (schema && (typeof answer.json !== 'object' || answer.json === null || typeof (answer.json as { errorCode?: unknown }).errorCode !== 'string')) {
      problems.push(`${operationId} default answer is not an Error`);
    }
  }
  if (declared.headers) {
    const headers: Record<string, string> = {};
    answer.headers.forEach((value, key) => { headers[key] = value; });
    for (const name of Object.keys(declared.headers)) {
      if (headers[name.toLowerCase()] !== undefined) headers[name] = headers[name.toLowerCase()]!;
    }
    const result = spec.backend.validateResponseHeaders(headers, operationId, { statusCode: answer.status, setMatchType: 'superset' as never });
    if (!result.valid) problems.push(`${operationId} ${answer.status} headers: ${JSON.stringify(result.errors)}`);
  }
  return problems;
}
