/**
 * The OTLP export's span conversion on a real broker: Moleculer's tracer makes the spans, both
 * exporters (Zipkin and OTLP) send them to one collector stand-in on 127.0.0.1, and the two agree
 * on every trace and span id; OTLP adds typed attributes, an error status and a resource naming
 * the service and node. Then a collector on a closed port: exports fail, logged once, the queue
 * stays within its bound, the broker still answers and stops in bounded time. And the variables
 * that choose the export, with the startup errors a wrong value gets.
 */
import { ServiceBroker, Errors, type BrokerOptions, type Span } from 'moleculer';
import { ulid } from 'ulid';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { OtlpExporter, otlpTraceId, toReadableSpan } from '../../services/shared/tracing-otlp.ts';
import { ZipkinExporter, safeSpanTags, traceIdOfRequest } from '../../services/shared/tracing.ts';
import { startSpanCollector, type SpanCollector } from '../support/span-collector.ts';
import { freePort } from '../support/servers.ts';
import { observabilityConfig } from '../../services/shared/config.ts';
import { StartupError, explainStartupFailure } from '../../services/shared/startup-error.ts';
import { eventually } from '../support/webhook-receiver.ts';

type TracingOptions = Exclude<NonNullable<BrokerOptions['tracing']>, boolean>;

/** A logger that keeps what it is told (what an operator would read). */
function recordingLogger() {
  const lines: Array<[string, string]> = [];
  const at = (level: string) => (...args: unknown[]) => { lines.push([level, args.map(String).join(' ')]); };
  return { lines, fatal: at('fatal'), error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug'), trace: at('trace') };
}

/** A broker traced as moleculer.config.ts traces the app (same tags and error fields), two services calling each other. */
async function tracedBroker(nodeID: string, exporters: unknown[]): Promise<ServiceBroker> {
  const broker = new ServiceBroker({
    nodeID, namespace: 'unit', logger: false, transporter: null,
    tracing: {
      enabled: true, events: true, errorFields: ['name', 'message', 'code', 'type'],
      exporter: exporters as TracingOptions['exporter'], tags: { action: safeSpanTags, event: safeSpanTags },
    },
  });
  broker.createService({
    name: 'ledger',
    actions: {
      post: { async handler(ctx) { return ctx.call('audit.note', { amount: (ctx.params as { amount: number }).amount }); } },
      refuse: { handler() { throw new Errors.MoleculerClientError('no such ledger', 404, 'LEDGER_NOT_FOUND', { secret: 'data-never-exported' }); } },
    },
  });
  broker.createService({ name: 'audit', actions: { note: { handler: () => 'noted' } } });
  await broker.start();
  return broker;
}

describe('spans exported over OTLP and Zipkin', () => {
  let collector: SpanCollector;
  let broker: ServiceBroker;
  let otlp: OtlpExporter;

  beforeAll(async () => {
    collector = await startSpanCollector();
    otlp = new OtlpExporter({ url: `${collector.url}/v1/traces`, flushMs: 50, maxQueue: 100 });
    broker = await tracedBroker('node-unit-1', [otlp, new ZipkinExporter({ url: collector.url, flushMs: 50, maxQueue: 100 })]);
  });
  afterAll(async () => {
    await broker?.stop();
    await collector?.close();
  });

  it('one request: same trace and span ids both ways, the request id as trace id, the safe tags as typed attributes', async () => {
    const requestId = `req_${ulid()}`;
    const traceId = traceIdOfRequest(requestId)!;
    const meta = { requestId, auth: { organizationId: 'org_1', apiKey: 'sk_live_never_exported' }, authorization: 'Bearer never-exported' };
    await broker.call('ledger.post', { amount: 42, memo: 'memo-never-exported', iban: 'BE71096123456769' }, { requestID: traceId, meta });

    await eventually(async () => collector.otlpSpans.filter((s) => s.traceId === traceId).length >= 2
      && collector.spans.filter((s) => s.traceId === traceId).length >= 2, 5_000, 'both spans, both ways');
    const viaOtlp = collector.otlpSpans.filter((s) => s.traceId === traceId);
    const viaZipkin = collector.spans.filter((s) => s.traceId === traceId);
    expect(viaOtlp.map((s) => [s.id, s.parentId ?? null, s.name]).sort()).toEqual(viaZipkin.map((s) => [s.id, s.parentId ?? null, s.name]).sort());

    const post = viaOtlp.find((s) => s.name === "action 'ledger.post'")!;
    const note = viaOtlp.find((s) => s.name === "action 'audit.note'")!;
    expect(post.parentId).toBeNull();
    expect(note.parentId).toBe(post.id);
    expect(post.kind).toBe(String(SpanKind.SERVER + 1)); // OTLP numbers kinds from 1 (internal)
    expect(note.kind).toBe(String(SpanKind.INTERNAL + 1));
    expect(post.attributes).toMatchObject({ 'action.name': 'ledger.post', requestId, organizationId: 'org_1', callingLevel: 1, remoteCall: false, nodeID: 'node-unit-1', 'span.type': 'action' });
    expect(note.attributes.callingLevel).toBe(2);
    expect(post.resource).toMatchObject({ 'service.name': 'ledger', 'service.instance.id': 'node-unit-1', 'service.namespace': 'unit' });
    expect(note.resource['service.name']).toBe('audit');
    expect(post.status.code).toBe(SpanStatusCode.UNSET);
    // Times agree with Zipkin's (µs) and nest.
    const zipkinPost = viaZipkin.find((s) => s.id === post.id)!;
    expect(Math.abs(post.timestamp - zipkinPost.timestamp)).toBeLessThanOrEqual(1);
    expect(Math.abs(post.duration - zipkinPost.duration)).toBeLessThanOrEqual(2); // Zipkin rounds, OTLP truncates each end
    expect(note.timestamp).toBeGreaterThanOrEqual(post.timestamp);
    expect(note.timestamp + note.duration).toBeLessThanOrEqual(post.timestamp + post.duration + 2);
    // Params and meta never reach a span.
    const exported = JSON.stringify(collector.otlpSpans);
    for (const secret of ['sk_live_never_exported', 'Bearer never-exported', 'memo-never-exported', 'BE71096123456769', 'amount', 'iban']) expect(exported).not.toContain(secret);
    expect(collector.rejected).toEqual([]);
  });

  it('a failed action: status ERROR with its message, its name and code as attributes, never its data', async () => {
    const requestId = `req_${ulid()}`;
    const traceId = traceIdOfRequest(requestId)!;
    await expect(broker.call('ledger.refuse', {}, { requestID: traceId, meta: { requestId } })).rejects.toThrow('no such ledger');
    const failed = await eventually(async () => collector.otlpSpans.find((s) => s.traceId === traceId), 5_000, 'the failed span');
    expect(failed.status).toEqual({ code: SpanStatusCode.ERROR, message: 'no such ledger' });
    expect(failed.attributes).toMatchObject({ 'error.name': 'MoleculerClientError', 'error.code': 404, 'error.type': 'LEDGER_NOT_FOUND' });
    expect(Object.keys(failed.attributes).filter((k) => k.startsWith('error.data'))).toEqual([]);
    expect(JSON.stringify(failed)).not.toContain('data-never-exported');
    // Zipkin keeps to the same fields (the tracer's errorFields alone would let `data` through).
    const zipkin = await eventually(async () => collector.spans.find((s) => s.id === failed.id), 5_000, 'the failed span via Zipkin');
    expect(zipkin.tags).toMatchObject({ 'error.name': 'MoleculerClientError', 'error.type': 'LEDGER_NOT_FOUND' });
    expect(JSON.stringify(zipkin)).not.toContain('data-never-exported');
  });

  it('a trace that is not a request (a job): Zipkin\'s 64-bit id, left-padded to OTLP\'s 128 bits', async () => {
    await broker.call('audit.note', {});
    const zipkin = await eventually(async () => collector.spans.find((s) => s.name === "action 'audit.note'" && !s.parentId), 5_000, 'the job span via Zipkin');
    expect(zipkin.traceId).toMatch(/^[0-9a-f]{16}$/);
    const viaOtlp = await eventually(async () => collector.otlpSpans.find((s) => s.id === zipkin.id), 5_000, 'the job span via OTLP');
    expect(viaOtlp.traceId).toBe(`${'0'.repeat(16)}${zipkin.traceId}`);
  });
});

describe('toReadableSpan', () => {
  const resource = resourceFromAttributes({ 'service.name': 'ledger' });
  const scope = { name: 'moleculer', version: 'test' };
  const span = (fields: Partial<Span>): Span => ({
    name: 'x', type: 'action', id: '6f1c2a4e-8b3d-4c5e-9f7a-1b2c3d4e5f60', traceID: '0192f3a4b5c6d7e8f90a1b2c3d4e5f60',
    parentID: null, startTime: 1_767_225_600_123.456, finishTime: 1_767_225_600_130.956, duration: 7.5, error: null, tags: {}, ...fields,
  }) as unknown as Span;

  it('keeps sub-millisecond times as HrTime and the ids OTel needs', () => {
    const r = toReadableSpan(span({}), {}, resource, scope);
    expect(r.spanContext()).toMatchObject({ traceId: '0192f3a4b5c6d7e8f90a1b2c3d4e5f60', spanId: '6f1c2a4e8b3d4c5e', traceFlags: 1 });
    expect(r.startTime[0]).toBe(1_767_225_600);
    expect(Math.abs(r.startTime[1] - 123_456_000)).toBeLessThan(1_000);
    expect(r.duration).toEqual([0, 7_500_000]);
    expect(r.parentSpanContext).toBeUndefined();
    expect(r.ended).toBe(true);
    expect(r.resource).toBe(resource);
  });

  it('links a parent, marks an error, and turns an id that is not hex into 16 stable hex digits', () => {
    const r = toReadableSpan(span({ id: 'node-1-17', parentID: 'node-1-16', traceID: 'node-1-16', error: true }), { remoteCall: true }, resource, scope);
    expect(r.spanContext().spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(r.parentSpanContext!.spanId).toBe(toReadableSpan(span({ id: 'node-1-16' }), {}, resource, scope).spanContext().spanId);
    expect(r.parentSpanContext!.isRemote).toBe(true);
    expect(r.spanContext().traceId).toBe(otlpTraceId('node-1-16'));
    expect(r.spanContext().traceId).toMatch(/^0{16}[0-9a-f]{16}$/);
    expect(r.status.code).toBe(SpanStatusCode.ERROR);
    expect(r.kind).toBe(SpanKind.SERVER);
  });
});

describe('a collector that is down', () => {
  it('costs the caller nothing: failures logged once, the queue within its bound, a bounded stop', async () => {
    const logger = recordingLogger();
    const deadPort = await freePort();
    const otlp = new OtlpExporter({ url: `http://127.0.0.1:${deadPort}/v1/traces`, flushMs: 50, maxQueue: 20, timeoutMs: 300, logger });
    const broker = await tracedBroker('node-unit-dead', [otlp]);
    try {
      for (let round = 0; round < 6; round++) {
        // 50 calls at once: 100 spans finish in a few turns, five times what the queue may hold.
        await Promise.all(Array.from({ length: 50 }, (_, i) => broker.call('ledger.post', { amount: i })));
        await new Promise((r) => setTimeout(r, 120));
      }
      // 600 spans against a dead collector, each call answered (what that costs is the benches' to measure).
      await eventually(async () => otlp.stats().failedExports >= 2, 10_000, 'two failed exports');
      const stats = otlp.stats();
      expect(stats.pending).toBeLessThanOrEqual(20);
      expect(stats.dropped).toBeGreaterThan(0);
      expect(stats.exportedSpans).toBe(0);
      const failures = logger.lines.filter(([level, line]) => level === 'warn' && line.includes('did not take'));
      expect(failures).toHaveLength(1);
      expect(failures[0]![1]).toContain(`127.0.0.1:${deadPort}`);
      expect(logger.lines.filter(([, line]) => line.includes('further spans are dropped')).length).toBeLessThanOrEqual(stats.failedExports + 1);
    } finally {
      const stopping = performance.now();
      await broker.stop();
      // Bounded by the exporter's 3 s flush limit, not by the SDK's retries (generous for a loaded machine).
      expect(performance.now() - stopping).toBeLessThan(10_000);
    }
  }, 30_000);
});

describe('a Zipkin collector slower than the spans', () => {
  it('keeps at most maxQueue spans until the next flush, counts the rest and says so once', async () => {
    const logger = recordingLogger();
    const deadPort = await freePort();
    // No flush within the test: every span waits in the queue.
    const zipkin = new ZipkinExporter({ url: `http://127.0.0.1:${deadPort}`, flushMs: 600_000, maxQueue: 20, logger });
    const broker = await tracedBroker('node-unit-zipkin', [zipkin]);
    try {
      for (let round = 0; round < 3; round++) await Promise.all(Array.from({ length: 50 }, (_, i) => broker.call('ledger.post', { amount: i })));
      expect((zipkin as unknown as { queue: unknown[] }).queue).toHaveLength(20);
      expect(zipkin.dropped).toBe(300 - 20);
      expect(logger.lines.filter(([level, line]) => level === 'warn' && line.includes('further spans are dropped'))).toHaveLength(1);
    } finally {
      (zipkin as unknown as { queue: unknown[] }).queue.length = 0; // nothing to send to the closed port on stop
      await broker.stop();
    }
  });
});

describe('EINV_TRACING_EXPORTER and where the spans go', () => {
  const names = ['EINV_TRACING_EXPORTER', 'EINV_TRACING_URL', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_EXPORTER_OTLP_ENDPOINT'];
  const saved = Object.fromEntries(names.map((n) => [n, process.env[n]]));
  afterEach(() => {
    for (const n of names) if (saved[n] === undefined) delete process.env[n]; else process.env[n] = saved[n];
  });
  const tracingWith = (env: Record<string, string>) => {
    for (const n of names) delete process.env[n];
    Object.assign(process.env, env);
    return observabilityConfig().tracing;
  };

  it('keeps EINV_TRACING_URL alone meaning Zipkin; otlp posts to the base\'s /v1/traces, else to the standard OTEL_ endpoints', () => {
    expect(tracingWith({})).toBeUndefined();
    // The OTEL_ variables alone do not turn tracing on (a cluster may set them for other programs).
    expect(tracingWith({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBeUndefined();
    expect(tracingWith({ EINV_TRACING_URL: 'http://jaeger:9411/' })).toMatchObject({ exporter: 'zipkin', url: 'http://jaeger:9411' });
    expect(tracingWith({ EINV_TRACING_EXPORTER: 'otlp', EINV_TRACING_URL: 'http://jaeger:4318/' })).toMatchObject({ exporter: 'otlp', url: 'http://jaeger:4318/v1/traces' });
    expect(tracingWith({ EINV_TRACING_EXPORTER: 'otlp', EINV_TRACING_URL: 'http://jaeger:4318/v1/traces', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://other:4318' })).toMatchObject({ url: 'http://jaeger:4318/v1/traces' });
    expect(tracingWith({ EINV_TRACING_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://otel.example/custom/traces', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://other:4318' })).toMatchObject({ url: 'https://otel.example/custom/traces' });
    expect(tracingWith({ EINV_TRACING_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toMatchObject({ url: 'http://collector:4318/v1/traces' });
  });

  it('a wrong value is a StartupError saying what to set, not a crash', () => {
    const failure = (env: Record<string, string>) => {
      try {
        tracingWith(env);
      } catch (err) {
        expect(err).toBeInstanceOf(StartupError);
        return explainStartupFailure(err);
      }
      throw new Error(`no error for ${JSON.stringify(env)}`);
    };
    expect(failure({ EINV_TRACING_EXPORTER: 'jaeger', EINV_TRACING_URL: 'http://jaeger:9411' })).toMatch(/EINV_TRACING_EXPORTER must be zipkin or otlp, got "jaeger"\n {2}fix: /);
    expect(failure({ EINV_TRACING_EXPORTER: 'otlp' })).toMatch(/names no collector\n {2}fix: set EINV_TRACING_URL/);
    expect(failure({ EINV_TRACING_EXPORTER: 'zipkin' })).toMatch(/names no collector/);
    expect(failure({ EINV_TRACING_EXPORTER: 'otlp', EINV_TRACING_URL: 'collector:4318' })).toMatch(/EINV_TRACING_URL must be an http\(s\) URL/);
    expect(failure({ EINV_TRACING_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'grpc://collector:4317' })).toMatch(/OTEL_EXPORTER_OTLP_TRACES_ENDPOINT must be an http\(s\) URL/);
    expect(failure({ EINV_TRACING_URL: 'nope' })).toMatch(/EINV_TRACING_URL must be an http\(s\) URL \(a Zipkin-compatible collector\)/);
  });
});
