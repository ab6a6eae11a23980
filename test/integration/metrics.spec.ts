/**
 * /metrics on the real app: a send between two sandbox organizations with a webhook receiver, then
 * a scrape of the process's Prometheus endpoint (its own port, bearer token) finds every series the
 * README documents for that path with sane values, route templates (never raw paths) as labels.
 */
import { readFileSync } from 'node:fs';
import { startTestApp, api, bootstrap, type TestApp } from '../support/app.ts';
import { startReceiver, eventually, type Receiver } from '../support/webhook-receiver.ts';
import { freePort } from '../support/servers.ts';
import { parseExposition, select, valueOf, type Sample } from '../support/prometheus.ts';
import { APP_METRICS } from '../../services/shared/metrics.ts';
import { HTTP_CONTRACTS } from '../../services/gateway/routes.ts';

process.env.EINV_BOOTSTRAP_PER_IP_PER_HOUR = '1000';
process.env.EINV_RATE_LIMITS = 'free=100000';
process.env.EINV_METRICS_HOST = '127.0.0.1';
process.env.EINV_METRICS_TOKEN = 'scrape-token-for-the-test';
process.env.EINV_METRICS_POLL_MS = '200';

let t: TestApp;
let metricsUrl: string;
let receiver: Receiver;

beforeAll(async () => {
  const port = await freePort();
  process.env.EINV_METRICS_PORT = String(port);
  metricsUrl = `http://127.0.0.1:${port}/metrics`;
  receiver = await startReceiver();
  t = await startTestApp();
});
afterAll(async () => {
  await t?.stop();
  await receiver?.close();
  delete process.env.EINV_METRICS_PORT;
});

const scrape = (token?: string) => fetch(metricsUrl, token ? { headers: { authorization: `Bearer ${token}` } } : {});

async function samples(): Promise<Sample[]> {
  const res = await scrape(process.env.EINV_METRICS_TOKEN);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseExposition(await res.text());
}

const seller = { name: 'Acme SPRL', address: { street: 'Rue Neuve 1', city: 'Brussels', postalCode: '1000', country: 'BE' } };
const buyer = { name: 'Client SA', vatNumber: 'FR40303265045', address: { street: '1 rue de Paris', city: 'Paris', postalCode: '75001', country: 'FR' } };

it('refuses a scrape without the bearer token', async () => {
  expect((await scrape()).status).toBe(401);
  expect((await scrape('wrong-token')).status).toBe(401);
});

it('after a send: per-route requests, errors and latency, action latencies, circuits, outbox, scheduler, webhooks, validation by pack, connector outcomes', async () => {
  const [a, b] = [await bootstrap(t.baseUrl, { label: 'metrics-a' }), await bootstrap(t.baseUrl, { label: 'metrics-b' })];
  const hook = await api(t.baseUrl, 'POST', '/v1/webhooks', { key: a.apiKey, body: { url: receiver.url, events: ['*'] } });
  expect(hook.status).toBe(201);
  const sent = await api(t.baseUrl, 'POST', '/v1/documents/send', {
    key: a.apiKey,
    body: { type: 'invoice', format: 'json', from: a.company.id, to: b.company.peppolId, document: {
      number: `MET-${Date.now()}`, issueDate: '2026-03-01', dueDate: '2026-04-01', buyerReference: 'PO-9', seller: { ...seller, vatNumber: a.company.vatNumber }, buyer,
      lines: [{ description: 'Consulting', quantity: 2, unit: 'HUR', unitPrice: 100, vatRate: 21 }],
    } },
  });
  expect(sent.status).toBe(201);
  await eventually(async () => (await api(t.baseUrl, 'GET', `/v1/documents/${sent.body.id}`, { key: a.apiKey })).body.deliveryStatus === 'delivered', 20_000, 'delivered');
  await receiver.waitFor(1, 20_000);
  // Errors by route: a 404 on a templated route, and a path no route has.
  expect((await api(t.baseUrl, 'GET', '/v1/documents/doc_01JNOSUCHDOCUMENT000000000', { key: a.apiKey })).status).toBe(404);
  expect((await fetch(`${t.baseUrl}/no/such/path/${Date.now()}`)).status).toBe(404);

  // Gauges are sampled every 200 ms: the scrape that follows the delivery sees them settled.
  const s = await eventually(async () => {
    const got = await samples();
    return (valueOf(got, 'einv_webhook_deliveries_total', { outcome: 'success' }) ?? 0) >= 1 && valueOf(got, 'einv_outbox_pending') === 0 ? got : undefined;
  }, 10_000, 'webhook delivery and an empty outbox in the metrics');

  // HTTP per route template: the send, the 404 on /v1/documents/:id, the unmatched path.
  expect(valueOf(s, 'einv_http_requests_total', { method: 'POST', route: '/v1/documents/send', status: '201' })).toBe(1);
  expect(valueOf(s, 'einv_http_requests_total', { method: 'GET', route: '/v1/documents/:id', status: '404' })).toBeGreaterThanOrEqual(1);
  expect(valueOf(s, 'einv_http_requests_total', { route: 'unmatched', status: '404' })).toBeGreaterThanOrEqual(1);
  expect(valueOf(s, 'einv_http_errors_total', { method: 'GET', route: '/v1/documents/:id', code: 'DOCUMENT_NOT_FOUND' })).toBeGreaterThanOrEqual(1);
  for (const e of select(s, 'einv_http_errors_total')) expect(e.labels.code).toMatch(/^[A-Za-z_]+$/);
  // Bounded labels: every route is a contract's template (or `unmatched`), never a raw path with ids.
  const templates = new Set([...HTTP_CONTRACTS.map((c) => c.http!.path), 'unmatched', '/connectors/:connectorId/:route']);
  const routes = new Set(select(s, 'einv_http_requests_total').map((x) => x.labels.route!));
  for (const route of routes) expect(templates.has(route)).toBe(true);
  const sendCount = valueOf(s, 'einv_http_request_duration_seconds_count', { method: 'POST', route: '/v1/documents/send' });
  const sendSum = valueOf(s, 'einv_http_request_duration_seconds_sum', { method: 'POST', route: '/v1/documents/send' })!;
  expect(sendCount).toBe(1);
  expect(sendSum).toBeGreaterThan(0);
  expect(sendSum).toBeLessThan(20);
  expect(valueOf(s, 'einv_http_request_duration_seconds_bucket', { method: 'POST', route: '/v1/documents/send', le: '+Inf' })).toBe(1);

  // Broker action latencies (Moleculer's own histogram, in ms).
  expect(valueOf(s, 'moleculer_request_time_count', { action: 'documents.send' })).toBeGreaterThanOrEqual(1);
  expect(valueOf(s, 'moleculer_request_total', { action: 'validation.validate' })).toBeGreaterThanOrEqual(1);

  // Circuit breakers: the sandbox adapter's, closed.
  expect(valueOf(s, 'einv_circuit_breaker_state', { service: 'adapter.sandbox-network' })).toBe(0);

  // Outbox lag: drained.
  expect(valueOf(s, 'einv_outbox_pending')).toBe(0);
  expect(valueOf(s, 'einv_outbox_lag_seconds')).toBe(0);

  // Scheduler backlog per kind: every kind the services schedule, none negative.
  const due = select(s, 'einv_scheduler_due_jobs');
  expect(due.length).toBeGreaterThanOrEqual(2);
  for (const d of due) expect(d.value).toBeGreaterThanOrEqual(0);

  // Webhook deliveries: one success at least, its latency observed.
  expect(valueOf(s, 'einv_webhook_delivery_duration_seconds_count', { outcome: 'success' })).toBeGreaterThanOrEqual(1);

  // Validation time by pack: the XSD step and EN 16931's rules at least.
  expect(valueOf(s, 'einv_validation_pack_duration_seconds_count', { pack: 'xsd' })).toBeGreaterThanOrEqual(1);
  const packs = new Set(select(s, 'einv_validation_pack_duration_seconds_count').map((x) => x.labels.pack!));
  expect([...packs].some((p) => /en16931/i.test(p))).toBe(true);
  for (const p of packs) expect(p).not.toMatch(/@/);

  // Connector send outcomes.
  expect(valueOf(s, 'einv_connector_calls_total', { connector: 'sandbox-network', verb: 'send', outcome: 'delivered' })).toBe(1);
  expect(valueOf(s, 'einv_connector_call_duration_seconds_count', { connector: 'sandbox-network', verb: 'send' })).toBe(1);
}, 60_000);

it('README documents every application metric', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  for (const m of Object.values(APP_METRICS)) expect(readme).toContain(`\`${m.name.replace(/\./g, '_')}\``);
});
