/**
 * Traces as OpenTelemetry OTLP/HTTP: Moleculer's tracer stays the one that makes spans (the same
 * spans, names, tags and ids as the Zipkin export of services/shared/tracing.ts); this exporter
 * turns each finished one into an OpenTelemetry ReadableSpan and leaves the rest to the
 * OpenTelemetry SDK: its BatchSpanProcessor batches (every EINV_TRACING_FLUSH_MS, at most 512
 * spans an export) and its OTLPTraceExporter encodes and POSTs them to the collector's
 * `/v1/traces` (OTLP/JSON, what @opentelemetry/exporter-trace-otlp-http sends; every OTLP/HTTP
 * receiver takes it: the OpenTelemetry Collector, Jaeger on :4318, Grafana Tempo).
 *
 * A collector that is down or slow costs the request path nothing: spans wait in a queue of at
 * most EINV_TRACING_MAX_QUEUE (counting the batch on its way), further ones are dropped and
 * counted, and failures are logged once when they start and once when they end, not per span.
 */
import { SpanKind, SpanStatusCode, TraceFlags, type Attributes, type AttributeValue, type SpanContext } from '@opentelemetry/api';
import { ExportResultCode, millisToHrTime, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace';
import { TracerExporters, ServiceBroker, type Span, type Tracer } from 'moleculer';
import { SpanQueueBound, exportedSpanId, exportedTraceId, safeErrorFields, spanServiceName } from './tracing.ts';

/** What a span with no Moleculer service (none of ours today) is shown under. */
const FALLBACK_SERVICE_NAME = 'einvoicing-exchange';
/** Spans per OTLP request, at most (the OpenTelemetry SDK's default). */
const MAX_BATCH = 512;
/** A stopping broker waits this long, at most, for its last spans to reach the collector. */
const STOP_WAIT_MS = 3_000;

export interface OtlpExporterOptions {
  /** The collector's traces endpoint, `…/v1/traces`. */
  url: string;
  flushMs: number;
  maxQueue: number;
  /** One export's time budget, retries included; unset: OTEL_EXPORTER_OTLP_TRACES_TIMEOUT or the SDK's 10 s. */
  timeoutMs?: number;
  /** Tests give a logger to see what an operator would; otherwise the tracer's. */
  logger?: TracerExporters.Base['logger'];
}

/** What the exporter has done so far: enough to see that a dead collector costs bounded memory. */
export interface OtlpExportStats {
  /** Spans handed to the SDK and not yet settled (queued or on their way); never above maxQueue. */
  pending: number;
  /** Spans dropped because the queue was full. */
  dropped: number;
  /** Exports the collector did not take (after the SDK's own retries). */
  failedExports: number;
  /** Spans the collector took. */
  exportedSpans: number;
}

/** 32 hex digits, as OTLP takes only 128-bit trace ids; a 64-bit one is left-padded (see exportedTraceId). */
export function otlpTraceId(traceID: string): string {
  return exportedTraceId(traceID).padStart(32, '0');
}

/** A tag value as an OpenTelemetry attribute: strings, numbers and booleans as they are, anything else as text. */
function attributeValue(value: unknown): AttributeValue | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return String(value);
}

/**
 * One finished Moleculer span as the OpenTelemetry SDK's ReadableSpan. `tags` are the span's tags
 * already flattened (`action.name`, `requestId`, `error.code`…: what tracing.ts lets into a span,
 * nothing else); `resource` names the service and node. A span with an error has status ERROR,
 * its message the error's. The root of a request (no parent) and a call that came over the
 * transporter are SERVER spans, the rest INTERNAL.
 */
export function toReadableSpan(span: Span, tags: Record<string, unknown>, resource: Resource, scope: { name: string; version: string }): ReadableSpan {
  const traceId = otlpTraceId(span.traceID);
  const context: SpanContext = { traceId, spanId: exportedSpanId(span.id), traceFlags: TraceFlags.SAMPLED };
  const parentSpanContext: SpanContext | undefined = span.parentID
    ? { traceId, spanId: exportedSpanId(span.parentID), traceFlags: TraceFlags.SAMPLED, isRemote: tags.remoteCall === true }
    : undefined;
  const attributes: Attributes = { 'span.type': span.type };
  for (const [key, value] of Object.entries(tags)) {
    const attribute = attributeValue(value);
    if (attribute !== undefined) attributes[key] = attribute;
  }
  const startMs = span.startTime ?? Date.now();
  const durationMs = Math.max(0, span.duration ?? 0);
  const error = span.error;
  return {
    name: span.name,
    kind: !span.parentID || tags.remoteCall === true ? SpanKind.SERVER : SpanKind.INTERNAL,
    spanContext: () => context,
    ...(parentSpanContext ? { parentSpanContext } : {}),
    startTime: millisToHrTime(startMs),
    endTime: millisToHrTime(startMs + durationMs),
    duration: millisToHrTime(durationMs),
    status: error
      ? { code: SpanStatusCode.ERROR, ...(typeof error === 'object' && error.message ? { message: error.message } : {}) }
      : { code: SpanStatusCode.UNSET },
    attributes,
    links: [],
    events: [],
    ended: true,
    resource,
    instrumentationScope: scope,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

/**
 * Moleculer tracing exporter sending OTLP/HTTP. Construct it with the collector's traces endpoint;
 * the broker calls spanFinished for every sampled span and stop() when it stops (the queue is
 * flushed then, for at most STOP_WAIT_MS).
 */
export class OtlpExporter extends TracerExporters.Base {
  private readonly options: OtlpExporterOptions;
  private processor: BatchSpanProcessor | undefined;
  private readonly resources = new Map<string, Resource>();
  /** Who made the spans: Moleculer's tracer (OTLP's InstrumentationScope). */
  private readonly scope = { name: 'moleculer', version: ServiceBroker.MOLECULER_VERSION };
  private readonly counts: Omit<OtlpExportStats, 'dropped'> = { pending: 0, failedExports: 0, exportedSpans: 0 };
  private readonly bound: SpanQueueBound;
  /** Set while exports fail: the next failure is not logged again, the next success says it is over. */
  private failingSince: { at: Date; spans: number } | undefined;
  /** Spans finished in this turn of the event loop, converted on the next (see spanFinished). */
  private staged: Span[] = [];

  constructor(options: OtlpExporterOptions) {
    super(options.logger ? { logger: options.logger } : {});
    this.options = options;
    this.bound = new SpanQueueBound('OTLP', options.maxQueue, () => this.logger);
  }

  override init(tracer: Tracer): void {
    super.init(tracer);
    this.processor = new BatchSpanProcessor({
      exporter: this.settling(new OTLPTraceExporter({ url: this.options.url, ...(this.options.timeoutMs ? { timeoutMillis: this.options.timeoutMs } : {}) })),
      scheduledDelayMillis: this.options.flushMs,
      // Our own bound (spanFinished) counts the batch on its way too, so the SDK's queue never drops by itself.
      maxQueueSize: this.options.maxQueue,
      maxExportBatchSize: Math.min(MAX_BATCH, this.options.maxQueue),
    });
  }

  stats(): OtlpExportStats {
    return { ...this.counts, dropped: this.bound.dropped };
  }

  /** The span as OTLP sends it: the tags Zipkin gets (flattened the same way), this node's resource. */
  readableSpan(span: Span): ReadableSpan {
    const tags = {
      ...this.flattenTags(span.tags, false),
      ...(this.flattenTags(safeErrorFields(span.error) ?? {}, false, 'error') ?? {}),
    };
    return toReadableSpan(span, tags, this.resourceOf(spanServiceName(span) ?? FALLBACK_SERVICE_NAME), this.scope);
  }

  /**
   * Never throws into the caller's path (Moleculer calls it when the action's span ends). The span
   * is converted on the next turn of the event loop, not now: the gateway tags its root span just
   * after it ends (an error answer's route and status, services/gateway/http-observability.ts).
   */
  override spanFinished(span: Span): void {
    if (!this.processor || !this.bound.admit(this.counts.pending, this.options.url)) return;
    this.counts.pending++;
    if (this.staged.push(span) === 1) setImmediate(() => this.handOver());
  }

  /** The staged spans to the SDK's batch processor, as ReadableSpans. */
  private handOver(): void {
    const spans = this.staged;
    this.staged = [];
    for (const span of spans) {
      try {
        if (!this.processor) throw new Error('the exporter has stopped');
        this.processor.onEnd(this.readableSpan(span));
      } catch (err) {
        this.counts.pending--;
        this.logger.warn(`OTLP traces: span "${span.name}" could not be exported: ${(err as Error).message}`);
      }
    }
  }

  /** Flushes what is queued, waiting at most STOP_WAIT_MS for a collector that does not answer. */
  override stop(): Promise<void> {
    const processor = this.processor;
    if (!processor) return Promise.resolve();
    this.handOver();
    this.processor = undefined;
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        this.logger.warn(`OTLP traces: ${this.counts.pending} spans not delivered to ${this.options.url} at stop`);
        resolve();
      }, STOP_WAIT_MS);
    });
    const flushed = processor.shutdown().catch((err: unknown) => {
      this.logger.warn(`OTLP traces: the last spans could not be delivered at stop: ${(err as Error).message}`);
    });
    return Promise.race([flushed, gaveUp]).finally(() => clearTimeout(timer));
  }

  /** One resource per service name (the SDK groups an export's spans by resource object). */
  private resourceOf(serviceName: string): Resource {
    let resource = this.resources.get(serviceName);
    if (!resource) {
      resource = resourceFromAttributes({
        'service.name': serviceName,
        'service.instance.id': this.broker.nodeID,
        ...(this.broker.namespace ? { 'service.namespace': this.broker.namespace } : {}),
      });
      this.resources.set(serviceName, resource);
    }
    return resource;
  }

  /** The OTLP exporter, counting what each export settles and logging a failing collector once per burst. */
  private settling(exporter: SpanExporter): SpanExporter {
    return {
      export: (spans: ReadableSpan[], done: (result: ExportResult) => void) => {
        let settled = false;
        exporter.export(spans, (result) => {
          if (settled) return;
          settled = true;
          this.counts.pending = Math.max(0, this.counts.pending - spans.length);
          if (result.code === ExportResultCode.SUCCESS) {
            this.counts.exportedSpans += spans.length;
            if (this.failingSince) {
              this.logger.info(`OTLP traces: ${this.options.url} takes spans again; ${this.failingSince.spans} spans were lost since ${this.failingSince.at.toISOString()}`);
              this.failingSince = undefined;
            }
          } else {
            this.counts.failedExports++;
            if (this.failingSince) this.failingSince.spans += spans.length;
            else {
              this.failingSince = { at: new Date(), spans: spans.length };
              this.logger.warn(`OTLP traces: ${this.options.url} did not take ${spans.length} spans (${result.error?.message ?? 'unknown error'}); further failures are not logged until it recovers`);
            }
          }
          done(result);
        });
      },
      shutdown: () => exporter.shutdown(),
      forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
    };
  }
}
