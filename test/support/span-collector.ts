/**
 * A collector stand-in on 127.0.0.1: a real HTTP server taking Zipkin v2 JSON at `/api/v2/spans`
 * (what Zipkin, Jaeger and the OpenTelemetry Collector's zipkin receiver accept) and OTLP/HTTP
 * JSON at `/v1/traces` (the OpenTelemetry Collector's and Jaeger's OTLP receivers), keeping every
 * span it is sent; plus the checks the tracing tests make on one request's trace.
 *
 * OTLP bodies are read as the OTLP/JSON encoding of ExportTraceServiceRequest
 * (opentelemetry-proto's JSON mapping: hex ids, nanosecond timestamps as strings, typed
 * attribute values), checked field by field; anything else is rejected, as a collector would.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { ulidToUUID } from 'ulid';
import { api, bootstrap } from './app.ts';
import { sandboxSendBody } from './sandbox-send.ts';

export interface ZipkinSpan {
  traceId: string;
  id: string;
  parentId?: string | null;
  name: string;
  kind?: string;
  timestamp: number;
  duration: number;
  localEndpoint?: { serviceName?: string | null };
  tags: Record<string, string>;
}

/** An OTLP attribute value (AnyValue), as OTLP/JSON writes it (int64 may come as a string). */
interface OtlpAnyValue { stringValue?: string; intValue?: number | string; doubleValue?: number; boolValue?: boolean; arrayValue?: unknown; kvlistValue?: unknown; bytesValue?: string }
interface OtlpKeyValue { key: string; value: OtlpAnyValue }
interface OtlpJsonSpan {
  traceId: string; spanId: string; parentSpanId?: string; name: string; kind?: number;
  startTimeUnixNano: string | number; endTimeUnixNano: string | number;
  attributes?: OtlpKeyValue[]; status?: { code?: number; message?: string };
}
/** ExportTraceServiceRequest in OTLP/JSON. */
interface OtlpJsonRequest {
  resourceSpans: Array<{ resource?: { attributes?: OtlpKeyValue[] }; scopeSpans: Array<{ scope?: { name?: string }; spans: OtlpJsonSpan[] }> }>;
}

/**
 * A span received over OTLP, in the shape of a Zipkin one (ids, name, µs times, attributes as
 * string tags) so one trace check serves both, plus what only OTLP has.
 */
export interface OtlpSpan extends ZipkinSpan {
  /** Attributes with their OTLP types (an int stays a number). */
  attributes: Record<string, string | number | boolean>;
  /** The span's resource: service.name, service.instance.id… */
  resource: Record<string, string | number | boolean>;
  /** OTLP Status: code 0 unset, 1 ok, 2 error. */
  status: { code: number; message?: string };
  /** OTLP SpanKind: 1 internal, 2 server… */
  kind: string;
}

export interface SpanCollector {
  url: string;
  spans: ZipkinSpan[];
  /** Spans that came over OTLP/HTTP (`/v1/traces`). */
  otlpSpans: OtlpSpan[];
  /** OTLP requests received (each one batch). */
  otlpRequests: number;
  /** Bodies that were not a JSON array of spans (must stay empty). */
  rejected: string[];
  close(): Promise<void>;
}

function attributeValue(value: OtlpAnyValue): string | number | boolean {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  throw new Error(`unexpected attribute value ${JSON.stringify(value)}`);
}

function attributesOf(list: OtlpKeyValue[] | undefined): Record<string, string | number | boolean> {
  if (list !== undefined && !Array.isArray(list)) throw new Error('attributes is not an array');
  return Object.fromEntries((list ?? []).map((kv) => {
    if (typeof kv.key !== 'string') throw new Error('attribute without a key');
    return [kv.key, attributeValue(kv.value)];
  }));
}

const nanosToMicros = (nanos: string | number): number => Number(BigInt(nanos) / 1000n);

/** An OTLP/JSON ExportTraceServiceRequest, checked and flattened; throws on anything malformed. */
export function decodeOtlpJson(body: unknown): OtlpSpan[] {
  const request = body as OtlpJsonRequest;
  if (!request || !Array.isArray(request.resourceSpans)) throw new Error('no resourceSpans');
  const out: OtlpSpan[] = [];
  for (const rs of request.resourceSpans) {
    const resource = attributesOf(rs.resource?.attributes);
    if (!Array.isArray(rs.scopeSpans)) throw new Error('no scopeSpans');
    for (const ss of rs.scopeSpans) {
      for (const s of ss.spans) {
        if (!/^[0-9a-f]{32}$/.test(s.traceId) || /^0+$/.test(s.traceId)) throw new Error(`bad traceId ${s.traceId}`);
        if (!/^[0-9a-f]{16}$/.test(s.spanId) || /^0+$/.test(s.spanId)) throw new Error(`bad spanId ${s.spanId}`);
        if (s.parentSpanId && !/^[0-9a-f]{16}$/.test(s.parentSpanId)) throw new Error(`bad parentSpanId ${s.parentSpanId}`);
        const attributes = attributesOf(s.attributes);
        const start = nanosToMicros(s.startTimeUnixNano);
        out.push({
          traceId: s.traceId,
          id: s.spanId,
          parentId: s.parentSpanId || null,
          name: s.name,
          kind: String(s.kind ?? 0),
          timestamp: start,
          duration: nanosToMicros(s.endTimeUnixNano) - start,
          localEndpoint: { serviceName: typeof resource['service.name'] === 'string' ? resource['service.name'] : null },
          tags: Object.fromEntries(Object.entries(attributes).map(([k, v]) => [k, String(v)])),
          attributes,
          resource,
          status: { code: s.status?.code ?? 0, ...(s.status?.message ? { message: s.status.message } : {}) },
        });
      }
    }
  }
  return out;
}

export async function startSpanCollector(): Promise<SpanCollector> {
  const collector = { spans: [] as ZipkinSpan[], otlpSpans: [] as OtlpSpan[], otlpRequests: 0, rejected: [] as string[] } as SpanCollector;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      if (req.method === 'POST' && req.url === '/v1/traces') {
        try {
          if (!/^application\/json/.test(req.headers['content-type'] ?? '')) throw new Error(`content type ${req.headers['content-type']}`);
          const text = (req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8');
          collector.otlpSpans.push(...decodeOtlpJson(JSON.parse(text)));
          collector.otlpRequests++;
          // ExportTraceServiceResponse: an empty one is a full success.
          res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
        } catch (err) {
          collector.rejected.push(`OTLP: ${(err as Error).message}`);
          res.writeHead(400).end();
        }
        return;
      }
      const text = raw.toString('utf8');
      if (req.method !== 'POST' || req.url !== '/api/v2/spans' || !/^application\/json/.test(req.headers['content-type'] ?? '')) {
        collector.rejected.push(`${req.method} ${req.url} ${req.headers['content-type']}`);
        res.writeHead(404).end();
        return;
      }
      try {
        const body = JSON.parse(text) as unknown;
        if (!Array.isArray(body)) throw new Error('not an array');
        collector.spans.push(...(body as ZipkinSpan[]));
        res.writeHead(202).end();
      } catch {
        collector.rejected.push(text.slice(0, 200));
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  collector.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  collector.close = () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); });
  return collector;
}

/** The trace id a request id maps to: its ULID as 128 bits, in hex (services/shared/tracing.ts). */
export function expectedTraceId(requestId: string): string {
  return ulidToUUID(requestId.replace(/^req_/, '') as never).replace(/-/g, '').toLowerCase();
}

/** The request a trace test follows: one send between two fresh sandbox organizations; its request id and invoice number. */
export async function sendOneInvoice(baseUrl: string, label: string) {
  const [sender, recipient] = [await bootstrap(baseUrl, { label: `${label}-a` }), await bootstrap(baseUrl, { label: `${label}-b` })];
  const number = `${label.toUpperCase()}-${Date.now()}`;
  const body = sandboxSendBody({ number, sellerVat: sender.company.vatNumber, buyerVat: 'FR40303265045', to: recipient.company.peppolId, lines: 1 });
  const sent = await api(baseUrl, 'POST', '/v1/documents/send', { key: sender.apiKey, body });
  expect(sent.status).toBe(201);
  const requestId = sent.headers.get('x-request-id')!;
  expect(requestId).toMatch(/^req_[0-9A-Z]{26}$/);
  return { sender, requestId, number };
}

export interface RequestLogCall { action: string; level: number }

/**
 * One request's trace, checked: one root (no parent) carrying the request id, route template and
 * status; every other span's parent in the same trace; and each call of the request log's trace
 * (services/requests, `upstreamCalls`) a span of that action at the same depth below the root.
 * Returns the spans by id and each one's depth.
 */
export function checkRequestTrace(spans: ZipkinSpan[], requestId: string, route: string, status: number, logged: RequestLogCall[]) {
  const traceId = expectedTraceId(requestId);
  const mine = spans.filter((s) => s.traceId === traceId);
  const byId = new Map(mine.map((s) => [s.id, s]));
  const roots = mine.filter((s) => !s.parentId);
  expect(roots).toHaveLength(1);
  const root = roots[0]!;
  expect(root.name).toMatch(/^HTTP [A-Z]+$/);
  expect(root.tags).toMatchObject({ requestId, 'http.route': route, 'http.status_code': String(status) });
  for (const s of mine) {
    expect(s.id).toMatch(/^[0-9a-f]{16}$/);
    if (s !== root) expect(byId.has(s.parentId!)).toBe(true);
  }
  const depth = (s: ZipkinSpan): number => (s.parentId ? 1 + depth(byId.get(s.parentId)!) : 0);
  const actionSpans = mine.filter((s) => s.tags['action.name']);
  for (const call of logged) {
    const matching = actionSpans.filter((s) => s.tags['action.name'] === call.action);
    expect({ action: call.action, depths: matching.map(depth) }).toEqual({ action: call.action, depths: expect.arrayContaining([call.level]) });
  }
  return { root, spans: mine, depth };
}
