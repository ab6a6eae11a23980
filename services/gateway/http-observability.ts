/**
 * The gateway's side of metrics and traces: per-route request counts, errors and latency (route
 * templates only, so a series count never grows with traffic) and the root span's tags.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context, ServiceBroker } from 'moleculer';
import { countMetric, observeSeconds } from '../shared/metrics.ts';

interface TaggableSpan { addTags(tags: Record<string, unknown>): unknown }

interface RoutedRequest extends IncomingMessage {
  $requestId?: string;
  $ctx?: { span?: TaggableSpan | null; meta?: { auth?: { organizationId?: string } } };
  /** The root span, kept for an error answer (written after the span has ended). */
  $rootSpan?: TaggableSpan;
  /** moleculer-web's matched alias: ours carry the contract's binding; connector routes their full path. */
  $alias?: { binding?: { path: string }; fullPath?: string; path?: string };
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The route template a request matched (`/v1/documents/:id`), `unmatched` when none did: never the raw path. */
export function routeTemplateOf(req: IncomingMessage): string {
  const alias = (req as RoutedRequest).$alias;
  return alias?.binding?.path ?? alias?.fullPath ?? 'unmatched';
}

function methodOf(req: IncomingMessage): string {
  const method = req.method ?? 'GET';
  return METHODS.has(method) ? method : 'OTHER';
}

type AccessLogger = { info(...args: unknown[]): void };

/**
 * Once the response has gone: counts and times it by route (metrics on), and writes one access-log
 * line (EINV_ACCESS_LOG=true): method, route template, status, duration, request and organization
 * ids; never the URL's query, a header or a body.
 */
export function observeHttpRequest(broker: ServiceBroker, req: IncomingMessage, res: ServerResponse, startedAt: number, accessLog: AccessLogger | undefined): void {
  if (!broker.isMetricsEnabled() && !accessLog) return;
  res.once('finish', () => {
    const labels = { method: methodOf(req), route: routeTemplateOf(req) };
    const ms = performance.now() - startedAt;
    countMetric(broker, 'httpRequests', { ...labels, status: String(res.statusCode) });
    observeSeconds(broker, 'httpDuration', ms, labels);
    if (accessLog) {
      const r = req as RoutedRequest;
      const organizationId = r.$ctx?.meta?.auth?.organizationId;
      accessLog.info({ requestId: r.$requestId, ...(organizationId ? { organizationId } : {}), ...labels, status: res.statusCode, durationMs: +ms.toFixed(3) }, 'request');
    }
  });
}

/** An error answer's code (the envelope's, or an OAuth error's), counted by route. */
export function countHttpError(broker: ServiceBroker, req: IncomingMessage, code: string): void {
  countMetric(broker, 'httpErrors', { method: methodOf(req), route: routeTemplateOf(req), code });
}

/** Called from a route middleware, while the root span is the request context's current one. */
export function rememberRootSpan(req: IncomingMessage): void {
  const r = req as RoutedRequest;
  if (r.$ctx?.span) r.$rootSpan = r.$ctx.span;
}

/**
 * An error answer ends the root span before the status is known (the action rejects, then the
 * error handler answers): its route and status are added here, in the same tick, before an
 * exporter reads the span (Zipkin's at its next flush, OTLP's on the next turn of the event loop).
 */
export function tagRootSpan(req: IncomingMessage, status: number): void {
  (req as RoutedRequest).$rootSpan?.addTags({ http: { method: methodOf(req), route: routeTemplateOf(req), status_code: status } });
}

/**
 * Tags of the root span (moleculer-web's `rest` action): called when it starts and when it ends
 * (with the response gone, so the route and status are known). No URL: a query can carry what a
 * client searched for.
 */
export function rootSpanTags(ctx: Context, response?: unknown): Record<string, unknown> {
  const { req, res } = ctx.params as { req: RoutedRequest; res: ServerResponse };
  const tags: Record<string, unknown> = { requestId: req.$requestId, http: { method: methodOf(req) } };
  if (response !== undefined) {
    const auth = (ctx.meta as { auth?: { organizationId?: string } }).auth;
    Object.assign(tags, { http: { method: methodOf(req), route: routeTemplateOf(req), status_code: res.statusCode }, ...(auth?.organizationId ? { organizationId: auth.organizationId } : {}) });
  }
  return tags;
}
