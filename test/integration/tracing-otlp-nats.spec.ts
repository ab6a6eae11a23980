/**
 * One trace, two exports, two processes: the gateway's broker exports OTLP, the domain services'
 * broker (joined by a real nats-server) exports Zipkin, both to one collector stand-in on
 * 127.0.0.1. A send is still one trace: the root span arrives over OTLP, the actions it called on
 * the core over Zipkin, and their trace id and parent links agree, because both exports derive
 * their ids the same way (services/shared/tracing.ts). A deployment moving from Zipkin to OTLP one
 * role at a time keeps whole traces.
 */
import { randomBytes } from 'node:crypto';
import { startTestApp, api, bootstrap, type TestApp } from '../support/app.ts';
import { eventually } from '../support/webhook-receiver.ts';
import { startSpanCollector, expectedTraceId, type SpanCollector } from '../support/span-collector.ts';

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
  // Each broker reads the variables when it is made: the core exports Zipkin, the edge OTLP.
  process.env.EINV_TRACING_EXPORTER = 'zipkin';
  core = await startTestApp({ services: Object.keys(SERVICE_CATALOGUE).filter((s) => s !== 'gateway'), broker: { namespace, nodeID: 'core-mixed', transporter } });
  process.env.EINV_TRACING_EXPORTER = 'otlp';
  edge = await startTestApp({ services: ['gateway'], databaseUrl: core.databaseUrl, broker: { namespace, nodeID: 'edge-mixed', transporter } });
  await edge.app.broker.waitForServices(['tenancy', 'sandbox', 'documents', 'validation', 'requests', 'adapter.sandbox-network'], 10_000);
});
afterAll(async () => {
  await edge?.stop({ keepDatabase: true });
  await core?.stop();
  await collector?.close();
  delete process.env.EINV_TRACING_URL;
  delete process.env.EINV_TRACING_EXPORTER;
});

it('the root over OTLP from the edge, its children over Zipkin from the core: one trace, consistent parents', async () => {
  const [a, b] = [await bootstrap(edge.baseUrl, { label: 'mixed-a' }), await bootstrap(edge.baseUrl, { label: 'mixed-b' })];
  const sent = await api(edge.baseUrl, 'POST', '/v1/documents/send', {
    key: a.apiKey,
    body: { type: 'invoice', format: 'json', from: a.company.id, to: b.company.peppolId, document: {
      number: `MIXED-${Date.now()}`, issueDate: '2026-03-01', dueDate: '2026-04-01', buyerReference: 'PO-9',
      seller: { name: 'Acme SPRL', vatNumber: a.company.vatNumber, address: { street: 'Rue Neuve 1', city: 'Brussels', postalCode: '1000', country: 'BE' } },
      buyer: { name: 'Client SA', vatNumber: 'FR40303265045', address: { street: '1 rue de Paris', city: 'Paris', postalCode: '75001', country: 'FR' } },
      lines: [{ description: 'Consulting', quantity: 2, unit: 'HUR', unitPrice: 100, vatRate: 21 }],
    } },
  });
  expect(sent.status).toBe(201);
  const requestId = sent.headers.get('x-request-id')!;
  const traceId = expectedTraceId(requestId);

  const root = await eventually(async () => collector.otlpSpans.find((s) => s.traceId === traceId && !s.parentId), 10_000, 'the root over OTLP');
  const send = await eventually(async () => collector.spans.find((s) => s.traceId === traceId && s.tags['action.name'] === 'documents.send'), 10_000, 'documents.send over Zipkin');
  expect(root.attributes.requestId).toBe(requestId);
  expect(root.resource['service.instance.id']).toBe('edge-mixed');
  expect(send.tags.nodeID).toBe('core-mixed');
  // The link crossed NATS and the two wire formats.
  expect(send.parentId).toBe(root.id);
  // Nothing of this trace went the other way: each process used its own exporter.
  expect(collector.spans.filter((s) => s.traceId === traceId).every((s) => s.tags.nodeID === 'core-mixed')).toBe(true);
  expect(collector.otlpSpans.filter((s) => s.traceId === traceId).every((s) => s.attributes.nodeID === 'edge-mixed')).toBe(true);
  // Every Zipkin span's parent is a span of this trace, from either export.
  await eventually(async () => collector.spans.filter((s) => s.traceId === traceId).length >= 2, 10_000, 'the core spans');
  const ids = new Set([...collector.spans, ...collector.otlpSpans].filter((s) => s.traceId === traceId).map((s) => s.id));
  for (const s of collector.spans.filter((x) => x.traceId === traceId)) expect(ids.has(s.parentId!)).toBe(true);
  expect(collector.rejected).toEqual([]);
}, 60_000);
