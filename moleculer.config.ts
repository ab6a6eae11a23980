/**
 * Broker configuration: the only place Moleculer is configured. Every knob can be overridden with
 * a `MOL_*` variable; `NATS_URL` switches from one process to the scaled, networked mode.
 */
import type { BrokerOptions } from 'moleculer';
import { isClientFault } from './services/shared/errors.ts';
import { CallTraceMiddleware } from './services/shared/call-trace.ts';

const num = (name: string, fallback: number) => {
  const raw = process.env[name];
  return raw === undefined || raw === '' ? fallback : Number(raw);
};

export function brokerOptions(overrides: Partial<BrokerOptions> = {}): BrokerOptions {
  const natsUrl = process.env.NATS_URL;
  return {
    namespace: process.env.MOL_NAMESPACE ?? 'einv',
    nodeID: process.env.MOL_NODE_ID || undefined,
    // In-process when NATS_URL is unset: every service in one process, nothing to run beside it.
    transporter: natsUrl ? { type: 'NATS', options: { url: natsUrl, maxReconnectAttempts: -1 } } : null,
    // JSON with Date, Buffer, BigInt and Map support, so typed payloads survive the wire.
    serializer: 'JSONExt',
    logger: { type: 'Console', options: { formatter: process.env.MOL_LOG_FORMAT === 'json' ? 'json' : 'short', colors: !process.env.CI } },
    logLevel: (process.env.MOL_LOG_LEVEL as BrokerOptions['logLevel']) ?? 'info',

    requestTimeout: num('MOL_REQUEST_TIMEOUT_MS', 10_000),
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
    middlewares: [CallTraceMiddleware],
    metrics: false,
    tracing: false,
    ...overrides,
  };
}

export default brokerOptions();
