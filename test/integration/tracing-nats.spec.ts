/**
 * Traces across processes: the gateway on one broker, the domain services on another, joined by
 * a real nats-server; both export to one collector stand-in on 127.0.0.1. A send is still one
 * trace (its id the X-Request-Id's): the gateway's root span on the edge node, the actions on the
 * core node as its children, linked by parent ids that crossed NATS, agreeing with the request log.
 */
import { randomBytes } from 'node:crypto';
import { startTestApp, api, bootstrap, type TestApp } from '../support/app.ts';
import { eventually } from '../support/webhook-receiver.ts';
import { startSpanCollector, checkRequestTrace, expectedTraceId, type SpanCollector } from '../support/span-collector.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
process.env.EINV_RATE_LIMITS = 'free=100000';
process.env.EINV_TRACING_FLUSH_MS = '100';

let edge: TestApp;
let core: TestApp;
let collector: SpanCollector;

beforeAll(async () => {
  collector = await startSpanCollector();
  process.env.EINV_TRACING_URL = collector.url;
  const { SERVICE_CATALOGUE } = await import('../../services/index.ts');
  const namespace = `t${randomBytes(4).toString('hex')}`;
  const transporter = { type: 'NATS' as const, options: { url: process.env.EINV_TEST_NATS_URL! } };
  core = await startTestApp({ services: Object.keys(SERVICE_CATALOGUE).filter((s) => s !== 'gateway'), broker: { namespace, nodeID: 'core-trace', transporter } });
  edge = await startTestApp({ services: ['gateway'], databaseUrl: core.databaseUrl, broker: { namespace, nodeID: 'edge-trace', transporter } });
  await edge.app.broker.waitForServices(['tenancy', 'sandbox', 'documents', 'validation', 'requests', 'adapter.sandbox-network'], 10_000);
});
afterAll(async () => {
  await edge?.stop({ keepDatabase: true });
  await core?.stop();
  await collector?.close();
  delete process.env.EINV_TRACING_URL;
});

it('a send across NATS is one trace: root on the edge, actions on the core as its children', async () => {
  const [a, b] = [await bootstrap(edge.baseUrl, { label: 'nats-trace-a' }), await bootstrap(edge.baseUrl, { label: 'nats-trace-b' })];
  const number = `NTRACE-${Date.now()}`;
  const sent = await api(edge.baseUrl, 'POST', '/v1/documents/send', {
    key: a.apiKey,
    body: { type: 'invoice', format: 'json', from: a.company.id, to: b.company.peppolId, document: {
      number, issueDate: '2026-03-01', dueDate: '2026-04-01', buyerReference: 'PO-9',
      seller: { name: 'Acme SPRL', vatNumber: a.company.vatNumber, address: { street: 'Rue Neuve 1', city: 'Brussels', postalCode: '1000', country: 'BE' } },
      buyer: { name: 'Client SA', vatNumber: 'FR40303265045', address: { street: '1 rue de Paris', city: 'Paris', postalCode: '75001', country: 'FR' } },
      lines: [{ description: 'Consulting', quantity: 2, unit: 'HUR', unitPrice: 100, vatRate: 21 }],
    } },
  });
  expect(sent.status).toBe(201);
  const requestId = sent.headers.get('x-request-id')!;
  const gateway = edge.app.broker.getLocalService('gateway') as unknown as { guarantees: { log: { flush(): Promise<void> } } };
  await gateway.guarantees.log.flush();
  const logged = await eventually(async () => {
    const res = await api(edge.baseUrl, 'GET', `/v1/requests/${requestId}`, { key: a.apiKey });
    return res.status === 200 ? res.body : undefined;
  }, 10_000, 'the request log entry');
  const calls = logged.upstreamCalls as Array<{ action: string; level: number }>;
  expect(calls.map((c) => c.action)).toEqual(expect.arrayContaining(['documents.send']));

  const traceId = expectedTraceId(requestId);
  await eventually(async () => collector.spans.some((s) => s.traceId === traceId && !s.parentId)
    && calls.every((c) => collector.spans.some((s) => s.traceId === traceId && s.tags['action.name'] === c.action)), 10_000, 'the trace at the collector');
  const { root, spans } = checkRequestTrace(collector.spans, requestId, '/v1/documents/send', 201, calls);
  expect(root.tags.nodeID).toBe('edge-trace');
  const send = spans.find((s) => s.tags['action.name'] === 'documents.send')!;
  // Parent and child in different processes: the link crossed NATS.
  expect(send.tags.nodeID).toBe('core-trace');
  expect(send.tags.remoteCall).toBe('true');
  expect(send.parentId).toBe(root.id);
  expect(new Set(spans.map((s) => s.tags.nodeID))).toEqual(new Set(['edge-trace', 'core-trace']));
  expect(JSON.stringify(collector.spans)).not.toContain(number);
  expect(JSON.stringify(collector.spans)).not.toContain(a.apiKey);
}, 60_000);
