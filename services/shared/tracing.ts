/**
 * Traces: Moleculer's tracer, one trace per HTTP request across every service and process it
 * reaches (span ids travel with the call over NATS), exported as Zipkin v2 JSON (Zipkin, Jaeger,
 * Grafana Tempo and the OpenTelemetry Collector's zipkin receiver all read it) to
 * `<EINV_TRACING_URL>/api/v2/spans`.
 *
 * The trace id is the request id: the ULID of `X-Request-Id: req_<ULID>` written as a UUID without
 * dashes (32 hex digits), so a request log entry (services/requests) names its trace and an
 * operator can go from one to the other. The root span (the gateway's `HTTP <method>`) also carries
 * the request id itself, the route template and the status.
 *
 * Spans carry no params, meta or responses (document contents, keys and secrets travel there):
 * only action names, the request and organization ids, and error names and codes.
 */
import type { Context } from 'moleculer';
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

interface ZipkinPayload { traceId: string | null; [key: string]: unknown }

/**
 * Moleculer's Zipkin exporter keeps 64 bits of a trace id; ours keeps all 128 (Zipkin v2 takes
 * 32 hex digits), so the exported trace id is the request's.
 */
export class ZipkinExporter extends TracerExporters.Zipkin {
  constructor(options: { url: string; flushMs: number }) {
    super({ baseURL: options.url, interval: options.flushMs / 1000 });
  }

  override makePayload(span: { traceID: string }): ZipkinPayload {
    const payload = super.makePayload(span as never) as ZipkinPayload;
    if (/^[0-9a-f]{32}$/.test(span.traceID)) payload.traceId = span.traceID;
    return payload;
  }

  /** Spans still queued go out on a graceful stop, not only on the next interval. */
  override stop(): Promise<void> {
    this.flush();
    return Promise.resolve(super.stop());
  }
}
