/**
 * Traces: Moleculer's tracer, one trace per HTTP request across every service and process it
 * reaches (span ids travel with the call over NATS), exported either as Zipkin v2 JSON (Zipkin,
 * Jaeger, Grafana Tempo and the OpenTelemetry Collector's zipkin receiver all read it) to
 * `<EINV_TRACING_URL>/api/v2/spans` (here), or as OTLP/HTTP to `<EINV_TRACING_URL>/v1/traces`
 * (services/shared/tracing-otlp.ts). Both take their ids, service names and tags from this module,
 * so one request is the same trace, with the same span ids, whichever way it is exported.
 *
 * The trace id is the request id: the ULID of `X-Request-Id: req_<ULID>` written as a UUID without
 * dashes (32 hex digits), so a request log entry (services/requests) names its trace and an
 * operator can go from one to the other. The root span (the gateway's `HTTP <method>`) also carries
 * the request id itself, the route template and the status.
 *
 * Spans carry no params, meta or responses (document contents, keys and secrets travel there):
 * only action names, the request and organization ids, and error names and codes.
 */
import { createHash } from 'node:crypto';
import type { Context, Logger, Span } from 'moleculer';
import { TracerExporters } from 'moleculer';
import { ulidToUUID } from 'ulid';

/** `req_01JA…` → 32 lowercase hex digits; undefined for anything that is not one of our request ids. */
export function traceIdOfRequest(requestId: string): string | undefined {
  const match = /^req_([0-9A-HJKMNP-TV-Z]{26})$/.exec(requestId);
  return match ? ulidToUUID(match[1]! as never).replace(/-/g, '').toLowerCase() : undefined;
}

type TracedMeta = { requestId?: string; auth?: { organizationId?: string } };

/** Tags of every action and event span: ids only (never params or meta, which carry documents and secrets). */
export function safeSpanTags(ctx: Context): Record<string, string> {
  const meta = ctx.meta as TracedMeta;
  return {
    ...(meta.requestId ? { requestId: meta.requestId } : {}),
    ...(meta.auth?.organizationId ? { organizationId: meta.auth.organizationId } : {}),
  };
}

/**
 * The exported trace id: all 32 hex digits of ours (the request's, see traceIdOfRequest); for a
 * trace that did not start at an HTTP request (a job, an event), the first 16 hex digits of
 * Moleculer's UUID, as Moleculer's Zipkin exporter has always sent them. OTLP, which takes only
 * 128 bits, left-pads those with zeros (tracing-otlp.ts), as Jaeger and the OpenTelemetry
 * Collector do with a 64-bit Zipkin id, so both exports still name the same trace.
 */
export function exportedTraceId(traceID: string): string {
  return /^[0-9a-f]{32}$/.test(traceID) ? traceID : exportedSpanId(traceID);
}

/**
 * A span id as both exports send it: the first 16 hex digits of Moleculer's id (a UUID). An id
 * that is not hex (a custom uid generator) is hashed, so it is still 16 valid, stable hex digits.
 */
export function exportedSpanId(id: string): string {
  const hex = id.replace(/-/g, '').toLowerCase();
  return /^[0-9a-f]{16,}$/.test(hex) ? hex.slice(0, 16) : createHash('sha256').update(id).digest('hex').slice(0, 16);
}

/** The service a span is shown under: the Moleculer service that ran it (Zipkin's localEndpoint, OTLP's service.name). */
export function spanServiceName(span: Pick<Span, 'service'>): string | undefined {
  return span.service?.fullName ?? span.service?.name ?? undefined;
}

/**
 * The fields of an error a span carries: its name, message, code and type; never `data` (it may
 * quote a document) nor the stack. Applied by both exporters (errorToObject) rather than left to
 * the tracer's `errorFields` option, which Moleculer deep-merges index by index with its defaults
 * (`[..., 'data']`): a list of four gets `data` back as its fifth.
 */
export const SPAN_ERROR_FIELDS: readonly string[] = ['name', 'message', 'code', 'type'];

/** An error's safe fields (SPAN_ERROR_FIELDS), or null for a span without an error object. */
export function safeErrorFields(err: unknown): Record<string, unknown> | null {
  if (!err || typeof err !== 'object') return null;
  const fields: Record<string, unknown> = {};
  for (const name of SPAN_ERROR_FIELDS) {
    const value = (err as Record<string, unknown>)[name];
    if (value !== undefined) fields[name] = value;
  }
  return fields;
}

interface ZipkinPayload { traceId: string | null; id: string | null; parentId: string | null; [key: string]: unknown }

/**
 * The cap both exporters put on finished spans waiting to leave: over it a span is dropped and
 * counted, and the log says so once when a burst of drops starts and once when it ends, never per
 * span (a dead collector under load would otherwise write a line per span).
 */
export class SpanQueueBound {
  /** Spans dropped because the queue was full, since start. */
  dropped = 0;
  private droppedInBurst = 0;

  private readonly format: string;
  private readonly max: number;
  private readonly logger: () => Logger;

  /** `logger` is read when needed: an exporter has its logger only once the tracer has initialised it. */
  constructor(format: string, max: number, logger: () => Logger) {
    this.format = format;
    this.max = max;
    this.logger = logger;
  }

  /** True when one more span may join the `waiting` ones (`waitingFor`: where they are bound, for the log); false when it is dropped. */
  admit(waiting: number, waitingFor: string): boolean {
    if (waiting >= this.max) {
      this.dropped++;
      if (this.droppedInBurst++ === 0) this.logger().warn(`${this.format} traces: ${waiting} spans are waiting for ${waitingFor}; further spans are dropped until it takes them (EINV_TRACING_MAX_QUEUE)`);
      return false;
    }
    if (this.droppedInBurst > 0) {
      this.logger().warn(`${this.format} traces: ${this.droppedInBurst} spans were dropped while the queue was full`);
      this.droppedInBurst = 0;
    }
    return true;
  }
}

/**
 * Moleculer's Zipkin exporter keeps 64 bits of a trace id; ours keeps all 128 (Zipkin v2 takes
 * 32 hex digits), so the exported trace id is the request's. Ids come from exportedTraceId and
 * exportedSpanId, as the OTLP export's do.
 */
export class ZipkinExporter extends TracerExporters.Zipkin {
  private readonly bound: SpanQueueBound;

  constructor(options: { url: string; flushMs: number; maxQueue: number; logger?: Logger }) {
    super({ baseURL: options.url, interval: options.flushMs / 1000, ...(options.logger ? { logger: options.logger } : {}) });
    this.bound = new SpanQueueBound('Zipkin', options.maxQueue, () => this.logger);
  }

  /** Spans dropped because the queue was full, since start. */
  get dropped(): number {
    return this.bound.dropped;
  }

  /**
   * Moleculer empties its queue on every flush, sent or not; between two flushes a burst could
   * still hold any number of spans: at most `maxQueue` wait.
   */
  override spanFinished(span: Span): void {
    const queue = (this as unknown as { queue: Span[] }).queue;
    if (this.bound.admit(queue.length, 'the next flush')) super.spanFinished(span);
  }

  override makePayload(span: Span): ZipkinPayload {
    const payload = super.makePayload(span) as ZipkinPayload;
    payload.traceId = exportedTraceId(span.traceID);
    payload.id = exportedSpanId(span.id);
    payload.parentId = span.parentID ? exportedSpanId(span.parentID) : null;
    return payload;
  }

  override errorToObject(err: Error | boolean): Record<string, unknown> {
    return safeErrorFields(err) as Record<string, unknown>;
  }

  /** Spans still queued go out on a graceful stop, not only on the next interval. */
  override stop(): Promise<void> {
    this.flush();
    return Promise.resolve(super.stop());
  }
}
