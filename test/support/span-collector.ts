/**
 * A collector stand-in on 127.0.0.1: a real HTTP server taking Zipkin v2 JSON at `/api/v2/spans`
 * (what Zipkin, Jaeger and the OpenTelemetry Collector's zipkin receiver accept), keeping every
 * span it is sent; plus the checks the tracing tests make on one request's trace.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ulidToUUID } from 'ulid';

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

export interface SpanCollector {
  url: string;
  spans: ZipkinSpan[];
  /** Bodies that were not a JSON array of spans (must stay empty). */
  rejected: string[];
  close(): Promise<void>;
}

export async function startSpanCollector(): Promise<SpanCollector> {
  const collector = { spans: [] as ZipkinSpan[], rejected: [] as string[] } as SpanCollector;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
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
