/**
 * The application's own metrics, beside Moleculer's (`moleculer_request_*`, circuit breakers,
 * process): one catalogue, registered on every broker whose metrics are on (moleculer.config.ts,
 * EINV_METRICS_PORT), so every process exposes the same names and the README table lists them.
 *
 * Every label takes values from a small closed set (route templates, connector ids, job kinds,
 * pack ids, outcomes): never a raw path, an id or anything a client chooses, so a series count
 * stays bounded however much traffic there is. When metrics are off the helpers cost one check.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ServiceBroker } from 'moleculer';
import { METRIC, MetricReporters } from 'moleculer';

type MetricType = 'counter' | 'gauge' | 'histogram';

export interface AppMetric {
  /** Moleculer's name; Prometheus shows it with `_` for `.` (einv.http.requests.total → einv_http_requests_total). */
  name: string;
  type: MetricType;
  labelNames: readonly string[];
  description: string;
  /** Histogram bucket bounds, in seconds. */
  buckets?: readonly number[];
}

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30] as const;

export const APP_METRICS = {
  httpRequests: { name: 'einv.http.requests.total', type: 'counter', labelNames: ['method', 'route', 'status'], description: 'HTTP requests answered, by route template and status code' },
  httpErrors: { name: 'einv.http.errors.total', type: 'counter', labelNames: ['method', 'route', 'code'], description: 'HTTP error answers, by route template and the envelope\'s error code' },
  httpDuration: { name: 'einv.http.request.duration.seconds', type: 'histogram', labelNames: ['method', 'route'], description: 'Time from request arrival to the last response byte, by route template', buckets: SECONDS },
  outboxPending: { name: 'einv.outbox.pending', type: 'gauge', labelNames: [], description: 'Events written to the outbox and not yet dispatched' },
  outboxLag: { name: 'einv.outbox.lag.seconds', type: 'gauge', labelNames: [], description: 'Age of the oldest undispatched outbox event (0 when none)' },
  schedulerDue: { name: 'einv.scheduler.due.jobs', type: 'gauge', labelNames: ['kind'], description: 'Scheduled jobs due now and not leased, by job kind' },
  webhookDeliveries: { name: 'einv.webhook.deliveries.total', type: 'counter', labelNames: ['outcome'], description: 'Webhook delivery attempts: success, http_error (non-2xx answer) or no_answer (refused, timeout, network)' },
  webhookDuration: { name: 'einv.webhook.delivery.duration.seconds', type: 'histogram', labelNames: ['outcome'], description: 'Duration of a webhook delivery attempt', buckets: SECONDS },
  validationPackDuration: { name: 'einv.validation.pack.duration.seconds', type: 'histogram', labelNames: ['pack'], description: 'Time one validation step took: `xsd` or a Schematron pack id', buckets: SECONDS },
  connectorCalls: { name: 'einv.connector.calls.total', type: 'counter', labelNames: ['connector', 'verb', 'outcome'], description: 'Delivery calls to a connector (send, status) by outcome: delivered, accepted, pending, rejected, transient (a failed, timed-out or circuit-broken call included)' },
  connectorDuration: { name: 'einv.connector.call.duration.seconds', type: 'histogram', labelNames: ['connector', 'verb'], description: 'Duration of a delivery call to a connector', buckets: SECONDS },
  artefactsSwept: { name: 'einv.artefacts.swept.total', type: 'counter', labelNames: ['outcome'], description: 'Artefacts handled by the retention sweep: expired (bytes deleted at the end of retention), unnamed (bytes no artefact named, past the grace period), lengthened (kept: the retention configured now is longer), failed (bytes could not be deleted; retried)' },
  circuitState: { name: 'einv.circuit.breaker.state', type: 'gauge', labelNames: ['service'], description: 'Worst circuit-breaker state of an adapter service: 0 closed, 1 half-open, 2 open' },
} as const satisfies Record<string, AppMetric>;

export type AppMetricKey = keyof typeof APP_METRICS;
type Labels = Record<string, string | number>;

/** Registers the catalogue (a broker middleware's `created`: before any service starts). */
export function registerAppMetrics(broker: ServiceBroker): void {
  if (!broker.isMetricsEnabled()) return;
  for (const m of Object.values(APP_METRICS) as AppMetric[]) {
    if (broker.metrics.getMetric(m.name)) continue;
    broker.metrics.register({
      name: m.name, type: m.type, labelNames: [...m.labelNames], description: m.description,
      ...(m.buckets ? { buckets: [...m.buckets] } : {}),
    } as Parameters<ServiceBroker['metrics']['register']>[0]);
  }
}

export function countMetric(broker: ServiceBroker, key: AppMetricKey, labels: Labels = {}, value = 1): void {
  if (broker.isMetricsEnabled()) broker.metrics.increment(APP_METRICS[key].name, labels, value);
}

export function setMetric(broker: ServiceBroker, key: AppMetricKey, value: number, labels: Labels = {}): void {
  if (broker.isMetricsEnabled()) broker.metrics.set(APP_METRICS[key].name, value, labels);
}

export function observeSeconds(broker: ServiceBroker, key: AppMetricKey, ms: number, labels: Labels = {}): void {
  if (broker.isMetricsEnabled()) broker.metrics.observe(APP_METRICS[key].name, ms / 1000, labels);
}

/**
 * Runs `sample` every EINV_METRICS_POLL_MS while metrics are on (gauges read from a database:
 * outbox lag, due jobs); returns the stop function. A failed sample is logged at debug and retried
 * on the next tick: a gauge that cannot be read keeps its last value.
 */
export function sampleWhileMetricsOn(broker: ServiceBroker, everyMs: number | undefined, sample: () => Promise<void>): () => void {
  if (!broker.isMetricsEnabled() || !everyMs) return () => {};
  let running = false;
  const tick = () => {
    if (running) return;
    running = true;
    sample().catch((err: unknown) => broker.logger.debug('metrics: a sample failed', err)).finally(() => { running = false; });
  };
  const timer = setInterval(tick, everyMs);
  timer.unref();
  setImmediate(tick);
  return () => clearInterval(timer);
}

const sha256 = (s: string) => createHash('sha256').update(s).digest();

export interface MetricsEndpointOptions {
  port: number;
  host: string;
  /** When set, a scrape must send `Authorization: Bearer <token>`. */
  token: string | undefined;
}

/**
 * Moleculer's Prometheus reporter (its own HTTP listener, `GET /metrics`) with two changes: an
 * optional bearer token, and every histogram written with `_sum` and `_count` (Moleculer writes
 * them only beside quantiles, which we do not compute: buckets are enough for Prometheus).
 */
export class MetricsEndpoint extends MetricReporters.Prometheus {
  private readonly tokenDigest: Buffer | undefined;

  constructor(options: MetricsEndpointOptions) {
    super({ port: options.port, host: options.host, path: '/metrics' });
    this.tokenDigest = options.token ? sha256(options.token) : undefined;
  }

  /** Where it listens (its port when configured as 0). */
  get address(): { host: string; port: number } | undefined {
    const a = this.server?.address();
    return a && typeof a === 'object' ? { host: a.address, port: a.port } : undefined;
  }

  override handler(req: IncomingMessage, res: ServerResponse): void {
    if (this.tokenDigest) {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
      if (!match || !timingSafeEqual(sha256(match[1]!), this.tokenDigest)) {
        res.writeHead(401, { 'Content-Type': 'text/plain; charset=utf-8', 'WWW-Authenticate': 'Bearer realm="metrics"' });
        res.end('metrics need Authorization: Bearer <EINV_METRICS_TOKEN>\n');
        return;
      }
    }
    super.handler(req, res);
  }

  override generatePrometheusResponse(): string {
    const text: string = super.generatePrometheusResponse();
    const totals = new Map<string, string[]>();
    const registry = (this as unknown as { registry: { store: Map<string, { name: string; type: string; quantiles?: unknown; snapshot(): Array<{ labels: Labels; sum: number; count: number }> }> } }).registry;
    registry.store.forEach((metric) => {
      if (metric.type !== METRIC.TYPE_HISTOGRAM || metric.quantiles) return;
      const name = (this.formatMetricName(metric.name) as string).replace(/[.-]/g, '_');
      totals.set(name, metric.snapshot().flatMap((item) => {
        const labels = this.labelsToStr(item.labels) as string;
        return [`${name}_sum${labels} ${item.sum}`, `${name}_count${labels} ${item.count}`];
      }));
    });
    if (!totals.size) return text;
    return text.split('\n\n').map((block) => {
      const type = /^# TYPE (\S+) histogram$/m.exec(block);
      const lines = type ? totals.get(type[1]!) : undefined;
      return lines?.length ? `${block}\n${lines.join('\n')}` : block;
    }).join('\n\n');
  }
}
