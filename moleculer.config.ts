/**
 * Broker configuration: the only place Moleculer is configured. Every knob can be overridden with
 * a `MOL_*` variable; `NATS_URL` switches from one process to the scaled, networked mode.
 * Observability is off unless configured: EINV_METRICS_PORT (Prometheus, services/shared/metrics.ts),
 * EINV_TRACING_URL (Zipkin v2 spans, services/shared/tracing.ts, or with EINV_TRACING_EXPORTER=otlp
 * OpenTelemetry OTLP/HTTP, services/shared/tracing-otlp.ts), MOL_LOG_FORMAT=json (Pino lines
 * with request and organization ids, services/shared/log-context.ts).
 */
import type { BrokerOptions, LoggerConfig, Middleware, ServiceBroker } from 'moleculer';
import { isClientFault } from './services/shared/errors.ts';
import { CallTraceMiddleware } from './services/shared/call-trace.ts';
import { observabilityConfig } from './services/shared/config.ts';
import { MetricsEndpoint, registerAppMetrics } from './services/shared/metrics.ts';
import { SPAN_ERROR_FIELDS, ZipkinExporter, safeSpanTags } from './services/shared/tracing.ts';
import { OtlpExporter } from './services/shared/tracing-otlp.ts';
import { LogContextMiddleware, createPinoLogger } from './services/shared/log-context.ts';

const num = (name: string, fallback: number) => {
  const raw = process.env[name];
  return raw === undefined || raw === '' ? fallback : Number(raw);
};

/** The application's metrics are registered before any service starts, on every broker that has metrics on. */
const AppMetricsMiddleware: Middleware = {
  name: 'AppMetrics',
  created(broker: ServiceBroker) {
    registerAppMetrics(broker);
  },
};

type MetricsOptions = Exclude<NonNullable<BrokerOptions['metrics']>, boolean>;
type TracingOptions = Exclude<NonNullable<BrokerOptions['tracing']>, boolean>;

function loggerOptions(json: boolean): LoggerConfig {
  if (json) return { type: 'Pino', options: { createLogger: createPinoLogger } };
  return { type: 'Console', options: { formatter: 'short', colors: !process.env.CI } };
}

export function brokerOptions(overrides: Partial<BrokerOptions> = {}): BrokerOptions {
  const natsUrl = process.env.NATS_URL;
  const { metrics, tracing } = observabilityConfig();
  const jsonLogs = process.env.MOL_LOG_FORMAT === 'json';
  return {
    namespace: process.env.MOL_NAMESPACE ?? 'einv',
    nodeID: process.env.MOL_NODE_ID || undefined,
    // In-process when NATS_URL is unset: every service in one process, nothing to run beside it.
    transporter: natsUrl ? { type: 'NATS', options: { url: natsUrl, maxReconnectAttempts: -1 } } : null,
    // JSON with Date, Buffer, BigInt and Map support, so typed payloads survive the wire.
    serializer: 'JSONExt',
    logger: loggerOptions(jsonLogs),
    logLevel: (process.env.MOL_LOG_LEVEL as BrokerOptions['logLevel']) ?? 'info',

    requestTimeout: num('MOL_REQUEST_TIMEOUT_MS', 10_000),
    // A replica killed with SIGKILL says no goodbye: callers keep sending it requests until its
    // heartbeats are missed. Moleculer's 10 s / 30 s left a dead documents replica in the balancer
    // for half a minute (test/chaos); 2 s / 8 s takes it out within seconds at a few bytes a second per node.
    heartbeatInterval: num('MOL_HEARTBEAT_INTERVAL_S', 2),
    heartbeatTimeout: num('MOL_HEARTBEAT_TIMEOUT_S', 8),
    retryPolicy: {
      enabled: true,
      retries: num('MOL_RETRIES', 3),
      delay: 100,
      maxDelay: 2_000,
      factor: 2,
      // Only what Moleculer marks retryable (lost node, transport timeout); never a client error.
      check: (err) => !isClientFault(err) && Boolean((err as { retryable?: boolean }).retryable),
    },
    circuitBreaker: {
      enabled: true,
      threshold: num('MOL_CB_THRESHOLD', 0.5),
      minRequestCount: num('MOL_CB_MIN_REQUESTS', 20),
      windowTime: num('MOL_CB_WINDOW_S', 60),
      halfOpenTime: num('MOL_CB_HALF_OPEN_MS', 10_000),
      check: (err) => !isClientFault(err),
    },
    bulkhead: {
      enabled: true,
      concurrency: num('MOL_BULKHEAD_CONCURRENCY', 50),
      maxQueueSize: num('MOL_BULKHEAD_QUEUE', 500),
    },
    // Graceful shutdown: on stop, wait for in-flight requests before leaving.
    tracking: { enabled: true, shutdownTimeout: num('MOL_SHUTDOWN_TIMEOUT_MS', 10_000) },
    registry: { strategy: 'RoundRobin', preferLocal: true },
    // Replicas of one role must all be up before a caller gives up waiting for them at start.
    dependencyTimeout: 30_000,
    // The request log's trace: actions run on behalf of an HTTP request (services/shared/call-trace.ts).
    middlewares: [CallTraceMiddleware, AppMetricsMiddleware, ...(jsonLogs ? [LogContextMiddleware] : [])],
    metrics: metrics
      // Moleculer takes reporter and exporter instances (its typings list only their names and options).
      ? { enabled: true, reporter: [new MetricsEndpoint(metrics)] as unknown as MetricsOptions['reporter'] }
      : false,
    tracing: tracing
      ? {
        enabled: true,
        exporter: [tracing.exporter === 'otlp' ? new OtlpExporter(tracing) : new ZipkinExporter(tracing)] as unknown as TracingOptions['exporter'],
        sampling: { rate: tracing.sampleRate },
        events: true,
        // Error names, messages and codes only: `data` may quote a document. Moleculer merges this
        // list into its default one (which has `data`), so the exporters also keep to it themselves.
        errorFields: [...SPAN_ERROR_FIELDS],
        tags: { action: safeSpanTags, event: safeSpanTags },
      }
      : false,
    ...overrides,
  };
}

/**
 * For moleculer-runner, which calls a function it is given: options are read when a broker is
 * made, not when this module is imported, so a configuration error reaches server.ts's startup
 * report instead of failing the import with a stack trace.
 */
export default brokerOptions;
