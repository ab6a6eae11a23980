/**
 * Traces on the real app: with EINV_TRACING_URL pointing at a collector stand-in on 127.0.0.1, one
 * send becomes one trace whose id is the X-Request-Id's, rooted at the gateway's span (request id,
 * route template, status), with the actions it ran as children, agreeing with the request log's
 * trace of the same request; no span carries the key or the invoice.
 */
import { startTestApp, api, bootstrap, type TestApp } from '../support/app.ts';
import { eventually } from '../support/webhook-receiver.ts';
import { startSpanCollector, checkRequestTrace, expectedTraceId, sendOneInvoice, type SpanCollector } from '../support/span-collector.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
process.env.EINV_RATE_LIMITS = 'free=100000';
process.env.EINV_TRACING_FLUSH_MS = '100';

let t: TestApp;
let collector: SpanCollector;

beforeAll(async () => {
  collector = await startSpanCollector();
  process.env.EINV_TRACING_URL = collector.url;
  t = await startTestApp();
});
afterAll(async () => {
  await t?.stop();
  await collector?.close();
  delete process.env.EINV_TRACING_URL;
});


it('one send, one trace: the request id on the root span, the actions below it as the request log has them', async () => {
  const { sender: a, requestId, number } = await sendOneInvoice(t.baseUrl, 'trace');

  const gateway = t.app.broker.getLocalService('gateway') as unknown as { guarantees: { log: { flush(): Promise<void> } } };
  await gateway.guarantees.log.flush();
  const logged = await api(t.baseUrl, 'GET', `/v1/requests/${requestId}`, { key: a.apiKey });
  expect(logged.status).toBe(200);
  const calls = logged.body.upstreamCalls as Array<{ action: string; level: number }>;
  expect(calls.map((c) => c.action)).toEqual(expect.arrayContaining(['documents.send', 'validation.validate']));

  const traceId = expectedTraceId(requestId);
  // Spans are sent every 100 ms; the send's last span ends with its response.
  await eventually(async () => collector.spans.some((s) => s.traceId === traceId && !s.parentId), 10_000, 'the root span at the collector');
  await eventually(async () => calls.every((c) => collector.spans.some((s) => s.traceId === traceId && s.tags['action.name'] === c.action)), 10_000, 'every logged call at the collector');
  const { root, spans, depth } = checkRequestTrace(collector.spans, requestId, '/v1/documents/send', 201, calls);
  expect(root.tags.organizationId).toBe(a.organizationId);
  const send = spans.find((s) => s.tags['action.name'] === 'documents.send')!;
  expect(send.parentId).toBe(root.id);
  expect(depth(spans.find((s) => s.tags['action.name'] === 'validation.validate')!)).toBeGreaterThanOrEqual(2);
  expect(send.tags.requestId).toBe(requestId);
  // Timing nests: a child starts within its parent.
  expect(send.timestamp).toBeGreaterThanOrEqual(root.timestamp);
  expect(send.timestamp + send.duration).toBeLessThanOrEqual(root.timestamp + root.duration + 1_000);
  // No params, meta or responses in spans: neither the key nor the invoice travels to the collector.
  const exported = JSON.stringify(collector.spans);
  expect(exported).not.toContain(a.apiKey);
  expect(exported).not.toContain(number);
  expect(exported).not.toContain('Consulting');
  expect(collector.rejected).toEqual([]);
}, 60_000);

it('an error answer is traced too, its root tagged with the route template and the status', async () => {
  const a = await bootstrap(t.baseUrl, { label: 'trace-404' });
  const res = await api(t.baseUrl, 'GET', '/v1/documents/doc_01JNOSUCHDOCUMENT000000000', { key: a.apiKey });
  expect(res.status).toBe(404);
  const requestId = res.headers.get('x-request-id')!;
  expect(res.body.error.requestId).toBe(requestId);
  const gateway = t.app.broker.getLocalService('gateway') as unknown as { guarantees: { log: { flush(): Promise<void> } } };
  await gateway.guarantees.log.flush();
  const logged = await api(t.baseUrl, 'GET', `/v1/requests/${requestId}`, { key: a.apiKey });
  expect(logged.body).toMatchObject({ status: 404, errorCode: 'DOCUMENT_NOT_FOUND' });
  const calls = logged.body.upstreamCalls as Array<{ action: string; level: number }>;
  expect(calls.length).toBeGreaterThanOrEqual(1);
  const traceId = expectedTraceId(requestId);
  await eventually(async () => calls.every((c) => collector.spans.some((s) => s.traceId === traceId && s.tags['action.name'] === c.action))
    && collector.spans.some((s) => s.traceId === traceId && !s.parentId), 10_000, 'the root span and the logged calls');
  const { spans } = checkRequestTrace(collector.spans, requestId, '/v1/documents/:id', 404, calls);
  // The failed action's span carries the error's name and message, never its data.
  const failed = spans.filter((s) => s.tags['error.name']);
  expect(failed.length).toBeGreaterThanOrEqual(1);
  for (const s of spans) expect(Object.keys(s.tags).filter((k) => k.startsWith('error.data'))).toEqual([]);
});
