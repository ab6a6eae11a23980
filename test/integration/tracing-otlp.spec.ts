/**
 * Traces over OTLP on the real app: with EINV_TRACING_EXPORTER=otlp and EINV_TRACING_URL pointing
 * at a collector stand-in on 127.0.0.1 (OTLP/HTTP at /v1/traces), one send becomes one trace whose
 * id is the X-Request-Id's, rooted at the gateway's span (request id, route template, status), with
 * the actions it ran as children as the request log has them; resources name the service and
 * node; no attribute carries the key or the invoice. An error answer has an ERROR span. `node
 * server.ts` flushes its queued spans at SIGTERM, and refuses a wrong EINV_TRACING_EXPORTER with a
 * message, not a stack. Then the collector goes away: requests are answered as fast as before and the exporter's queue stays
 * within EINV_TRACING_MAX_QUEUE.
 */
import { startTestApp, api, bootstrap, type TestApp } from '../support/app.ts';
import { eventually } from '../support/webhook-receiver.ts';
import { startSpanCollector, checkRequestTrace, expectedTraceId, sendOneInvoice, type SpanCollector } from '../support/span-collector.ts';
import { OtlpExporter } from '../../services/shared/tracing-otlp.ts';
import { startServer, stop, waitFor } from '../support/server-process.ts';
import { createTestDatabase } from '../support/database.ts';
import { freePort } from '../support/servers.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
process.env.EINV_RATE_LIMITS = 'free=100000';
process.env.EINV_TRACING_FLUSH_MS = '100';
process.env.EINV_TRACING_MAX_QUEUE = '100';
// The OpenTelemetry SDK's own variable (it reads it): an export to a dead collector gives up after
// 1 s of retries instead of 10, so the app stops without a retry timer left behind.
process.env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT = '1000';

let t: TestApp;
let collector: SpanCollector;

beforeAll(async () => {
  collector = await startSpanCollector();
  process.env.EINV_TRACING_EXPORTER = 'otlp';
  process.env.EINV_TRACING_URL = collector.url;
  t = await startTestApp();
});
afterAll(async () => {
  await t?.stop();
  await collector?.close();
  delete process.env.EINV_TRACING_URL;
  delete process.env.EINV_TRACING_EXPORTER;
});

/** The broker's OTLP exporter (moleculer.config.ts made it from the variables above). */
function otlpExporter(): OtlpExporter {
  const exporters = (t.app.broker.tracer as unknown as { exporter: unknown[] }).exporter;
  const otlp = exporters.find((e): e is OtlpExporter => e instanceof OtlpExporter);
  if (!otlp) throw new Error('no OTLP exporter on the broker');
  return otlp;
}

async function loggedCalls(requestId: string, key: string) {
  const gateway = t.app.broker.getLocalService('gateway') as unknown as { guarantees: { log: { flush(): Promise<void> } } };
  await gateway.guarantees.log.flush();
  const logged = await api(t.baseUrl, 'GET', `/v1/requests/${requestId}`, { key });
  expect(logged.status).toBe(200);
  return { entry: logged.body, calls: logged.body.upstreamCalls as Array<{ action: string; level: number }> };
}


it('one send, one trace over OTLP: the request id on the root span, the actions below it as the request log has them', async () => {
  expect(otlpExporter()).toBeInstanceOf(OtlpExporter);
  const { sender: a, requestId, number } = await sendOneInvoice(t.baseUrl, 'otlp');
  const { calls } = await loggedCalls(requestId, a.apiKey);
  expect(calls.map((c) => c.action)).toEqual(expect.arrayContaining(['documents.send', 'validation.validate']));

  // The request log names its trace by the request id: the exported trace is that one.
  const traceId = expectedTraceId(requestId);
  await eventually(async () => collector.otlpSpans.some((s) => s.traceId === traceId && !s.parentId), 10_000, 'the root span at the collector');
  await eventually(async () => calls.every((c) => collector.otlpSpans.some((s) => s.traceId === traceId && s.tags['action.name'] === c.action)), 10_000, 'every logged call at the collector');
  const { root, spans, depth } = checkRequestTrace(collector.otlpSpans, requestId, '/v1/documents/send', 201, calls);
  const otlpRoot = collector.otlpSpans.find((s) => s.id === root.id)!;
  expect(otlpRoot.attributes.requestId).toBe(requestId);
  expect(otlpRoot.attributes.organizationId).toBe(a.organizationId);
  expect(otlpRoot.kind).toBe('2'); // SPAN_KIND_SERVER
  expect(otlpRoot.status.code).toBe(0);
  expect(otlpRoot.resource).toMatchObject({ 'service.name': 'gateway', 'service.instance.id': t.app.broker.nodeID });

  const send = collector.otlpSpans.find((s) => s.traceId === traceId && s.attributes['action.name'] === 'documents.send')!;
  expect(send.parentId).toBe(root.id);
  expect(send.resource['service.name']).toBe('documents');
  expect(send.attributes.requestId).toBe(requestId);
  expect(depth(spans.find((s) => s.tags['action.name'] === 'validation.validate')!)).toBeGreaterThanOrEqual(2);
  // Every parent is a span of the same trace, and a child starts within its parent.
  const byId = new Map(spans.map((s) => [s.id, s]));
  for (const s of spans.filter((x) => x.parentId)) {
    const parent = byId.get(s.parentId!)!;
    expect(s.timestamp).toBeGreaterThanOrEqual(parent.timestamp);
    expect(s.timestamp + s.duration).toBeLessThanOrEqual(parent.timestamp + parent.duration + 1_000);
  }
  // No params, meta or responses in attributes: neither the key (nor its Authorization header) nor the invoice.
  const exported = JSON.stringify(collector.otlpSpans);
  expect(exported).not.toContain(a.apiKey);
  expect(exported).not.toContain('Bearer');
  expect(exported.toLowerCase()).not.toContain('authorization');
  expect(exported).not.toContain(number);
  expect(exported).not.toContain('Consulting');
  expect(collector.rejected).toEqual([]);
  expect(collector.spans).toEqual([]); // nothing went the Zipkin way
}, 60_000);

it('an error answer: its trace has ERROR spans with the error\'s name and code, never its data', async () => {
  const a = await bootstrap(t.baseUrl, { label: 'otlp-404' });
  const res = await api(t.baseUrl, 'GET', '/v1/documents/doc_01JNOSUCHDOCUMENT000000000', { key: a.apiKey });
  expect(res.status).toBe(404);
  const requestId = res.headers.get('x-request-id')!;
  expect(res.body.error.requestId).toBe(requestId);
  const { entry, calls } = await loggedCalls(requestId, a.apiKey);
  expect(entry).toMatchObject({ status: 404, errorCode: 'DOCUMENT_NOT_FOUND' });
  const traceId = expectedTraceId(requestId);
  await eventually(async () => calls.every((c) => collector.otlpSpans.some((s) => s.traceId === traceId && s.tags['action.name'] === c.action))
    && collector.otlpSpans.some((s) => s.traceId === traceId && !s.parentId), 10_000, 'the root span and the logged calls');
  checkRequestTrace(collector.otlpSpans, requestId, '/v1/documents/:id', 404, calls);
  const failed = collector.otlpSpans.filter((s) => s.traceId === traceId && s.status.code === 2);
  expect(failed.length).toBeGreaterThanOrEqual(1);
  for (const s of failed) {
    expect(s.status.message).toBeTruthy();
    expect(s.attributes['error.name']).toBeTruthy();
  }
  expect(failed.some((s) => s.attributes['error.type'] === 'DOCUMENT_NOT_FOUND')).toBe(true);
  for (const s of collector.otlpSpans) expect(Object.keys(s.attributes).filter((k) => k.startsWith('error.data') || k.startsWith('error.stack'))).toEqual([]);
  expect(collector.rejected).toEqual([]);
});

it('node server.ts as ops run it: the spans still queued at SIGTERM reach the collector; a wrong EINV_TRACING_EXPORTER stops the start with its fix', async () => {
  const db = await createTestDatabase();
  const port = String(await freePort());
  // Spans are sent every minute: only the flush at stop can bring them this soon.
  const server = startServer({
    PORT: port, DATABASE_URL: db.url, EINV_MIGRATE_ON_START: 'true', NATS_URL: '', SERVICES: '', REDIS_URL: '', EINV_WORKERS: '1',
    MOL_NODE_ID: 'otlp-process', EINV_TRACING_EXPORTER: 'otlp', EINV_TRACING_URL: collector.url, EINV_TRACING_FLUSH_MS: '60000',
  });
  let requestId = '';
  try {
    await waitFor(`http://127.0.0.1:${port}/health/liveness`, server);
    const res = await api(`http://127.0.0.1:${port}`, 'GET', '/v1/documents/doc_01JNOSUCHDOCUMENT000000000', { key: 'sk_test_not_a_key' });
    expect(res.status).toBe(401);
    requestId = res.headers.get('x-request-id')!;
  } finally {
    expect(await stop(server)).toBe(0);
    await db.drop();
  }
  const root = collector.otlpSpans.find((s) => s.traceId === expectedTraceId(requestId) && !s.parentId);
  expect(root?.attributes).toMatchObject({ requestId, 'http.status_code': 401 });
  expect(root?.resource).toMatchObject({ 'service.name': 'gateway', 'service.instance.id': 'otlp-process' });
  expect(JSON.stringify(collector.otlpSpans)).not.toContain('sk_test_not_a_key');

  const wrong = startServer({ PORT: port, DATABASE_URL: db.url, EINV_TRACING_EXPORTER: 'jaeger', EINV_TRACING_URL: collector.url });
  expect(await wrong.exited).toBe(1);
  expect(wrong.output()).toContain('startup failed: EINV_TRACING_EXPORTER must be zipkin or otlp, got "jaeger"\n  fix: ');
  expect(wrong.output()).not.toMatch(/^\s+at /m); // no stack trace
}, 120_000);

it('a dead collector: requests still answered, the queue bounded, failures counted', async () => {
  const a = await bootstrap(t.baseUrl, { label: 'otlp-dead' });
  const missing = '/v1/documents/doc_01JNOSUCHDOCUMENT000000000';
  /** `count` requests, five at a time, each answered. */
  const sendRequests = async (count: number) => {
    for (let i = 0; i < count; i += 5) {
      const answers = await Promise.all(Array.from({ length: 5 }, () => api(t.baseUrl, 'GET', missing, { key: a.apiKey })));
      for (const r of answers) expect(r.status).toBe(404);
    }
  };
  await sendRequests(40);
  await eventually(async () => otlpExporter().stats().pending === 0, 5_000, 'the queue drained while the collector is up');
  const before = otlpExporter().stats();
  expect(before.failedExports).toBe(0);
  expect(before.exportedSpans).toBeGreaterThan(0);

  await collector.close(); // the port is closed: every export is refused
  // Every request is still answered (what tracing costs is bench/metrics-overhead.bench.ts's to measure, not a timed test's).
  // The queue never holds more than EINV_TRACING_MAX_QUEUE, sampled while the requests run. Whether
  // spans get dropped depends on how fast this machine makes them; the unit test forces that case.
  let most = 0;
  const sampler = setInterval(() => { most = Math.max(most, otlpExporter().stats().pending); }, 5);
  try {
    await sendRequests(80);
  } finally {
    clearInterval(sampler);
  }
  const stats = await eventually(async () => { const s = otlpExporter().stats(); return s.failedExports > before.failedExports ? s : undefined; }, 20_000, 'a failed export');
  expect(most).toBeLessThanOrEqual(100);
  expect(stats.pending).toBeLessThanOrEqual(100);
  expect(stats.exportedSpans).toBe(before.exportedSpans);
}, 90_000);
