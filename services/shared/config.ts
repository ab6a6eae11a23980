/**
 * Process configuration, read once from the environment. Plain well-known names for shared
 * infrastructure (PORT, DATABASE_URL, REDIS_URL, NATS_URL), `EINV_*` for everything of ours,
 * `MOL_*` only inside moleculer.config.ts. The README's env-var table lists every entry.
 */
import type { XmlLimits } from '../../mappings/xml/limits.ts';
import type { PdfLimits } from '../../mappings/factur-x/limits.ts';
import { availableParallelism } from 'node:os';
import { StartupError } from './startup-error.ts';

function int(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return value;
}

function str(name: string): string | undefined {
  const raw = process.env[name];
  return raw === undefined || raw === '' ? undefined : raw;
}

function ruleEngine(name: string): 'compiled' | 'saxon' {
  const v = str(name) ?? 'compiled';
  if (v !== 'compiled' && v !== 'saxon') throw new Error(`${name} must be compiled or saxon, got "${v}"`);
  return v;
}

type PlanName = 'free' | 'starter' | 'pro' | 'platform' | 'white_label';
const PLAN_NAMES: readonly string[] = ['free', 'starter', 'pro', 'platform', 'white_label'];

/** `EINV_RATE_LIMITS=free=600,pro=1000`: per-minute limits that replace the spec's plan defaults. */
function planOverrides(name: string): Partial<Record<PlanName, number>> {
  const out: Partial<Record<PlanName, number>> = {};
  for (const part of (str(name) ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    const [plan, value] = part.split('=').map((s) => s.trim());
    const n = Number(value);
    if (!plan || !PLAN_NAMES.includes(plan) || !Number.isInteger(n) || n <= 0) {
      throw new Error(`${name}: "${part}" is not <plan>=<requests per minute> (plans: ${PLAN_NAMES.join(', ')})`);
    }
    out[plan as PlanName] = n;
  }
  return out;
}

/** An external identity provider needs both its JWKS URL and its issuer: one without the other is a startup error. */
function requiredTogether(name: string, other: string): string | undefined {
  const value = str(name);
  if ((value === undefined) !== (str(other) === undefined)) throw new Error(`${name} and ${other} go together: set both (an external identity provider) or neither`);
  return value;
}

export interface AppConfig {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  natsUrl: string | undefined;
  /** Where the embedded PostgreSQL keeps its files when DATABASE_URL is unset. */
  dataDir: string;
  embeddedPostgresPort: number;
  /** Comma-separated service names this process runs; all of them when unset. */
  services: string[] | undefined;
  /** How Schematron packs run: their generated JavaScript (saxon-js only for the checks outside it) or saxon-js alone. */
  ruleEngine: 'compiled' | 'saxon';
  /** How long a process keeps a company's business-clock offset, in ms (0: never); a clock change drops it at once. */
  clockCacheTtlMs: number;
  /** The Peppol Directory `GET /v1/directory/search?source=peppol` asks (unset: that source is off). */
  peppolDirectory: { url: string; timeoutMs: number } | undefined;
  /**
   * French portability (services/portability): the approval service mandate signatures are checked
   * with (EINV_APPROVAL_URL; none: opening a signature answers 502), how long it may take, and this
   * platform's matricule as an approved platform (EINV_PA_MATRICULE), which the annuaire answers.
   */
  portability: { approvalUrl: string | undefined; approvalTimeoutMs: number; paMatricule: string };
  /** Outbox dispatcher, scheduler and webhook delivery (services/events, services/webhooks). */
  events: EventsConfig;
  /** Document delivery (services/documents). */
  documents: {
    deliveryRetryMs: number;
    /** A connector that has not answered a send or status call within this many ms has failed the attempt (transient). */
    deliveryTimeoutMs: number;
    /** Deliveries in flight at once per connector in one documents instance (EINV_CONNECTOR_<ID>_CONCURRENCY overrides). */
    deliveryConcurrency: number;
  };
  /** Which connectors run and where their folders and settings are (services/shared/connector-settings.ts). */
  connectors: ConnectorsConfig;
  /** Public base URL used in docUrl links and the OpenAPI `servers` entry. */
  publicUrl: string;
  docsUrl: string;
  /**
   * Where a user consents to an agent's request: a dashboard page with `{id}` for the request id
   * (EINV_AGENT_CONSENT_URL); by default the request's own API resource.
   */
  agentConsentUrl: string;
  /** Largest JSON body accepted, in bytes, after decompression. */
  maxJsonBytes: number;
  /** Largest request body accepted, in bytes, after decompression (file deposits). */
  maxBodyBytes: number;
  /** How long an idle HTTP keep-alive connection stays open, in ms. */
  keepAliveMs: number;
  /** How long the gateway waits for a request's action (a large document's send included) before 504 UPSTREAM_TIMEOUT, in ms. */
  requestTimeoutMs: number;
  /** Sandbox bootstrap calls allowed per client IP per hour. */
  bootstrapPerIpPerHour: number;
  /** Lifetime of a bootstrap sandbox key, in days. */
  sandboxKeyDays: number;
  /** The host a white-label custom domain points its CNAME at (EINV_CUSTOM_DOMAIN_TARGET; default the public URL's host). */
  customDomainTarget: string;
  /** DNS servers the custom-domain TXT challenge is looked up on (EINV_CUSTOM_DOMAIN_DNS_SERVERS, `host:port` list; default the system's). */
  customDomainDnsServers: string[];
  /** Per-minute rate limits replacing the plan defaults (EINV_RATE_LIMITS). */
  rateLimitOverrides: Partial<Record<PlanName, number>>;
  /** The request log also keeps successful reads (EINV_REQUEST_LOG_READS=true). */
  requestLogReads: boolean;
  /** Request-log entries a gateway holds in memory at most; past it new entries are dropped and counted. */
  requestLogBufferSize: number;
  /** Request-log entries per insert. */
  requestLogBatchSize: number;
  /** A partial request-log batch waits at most this long, in ms. */
  requestLogFlushMs: number;
  /** Request-log entries older than this many days are deleted (hourly). */
  requestLogRetentionDays: number;
  /** Years a removed company's documents stay readable where its country sets no period of its own (Italy 10, France 6). */
  documentRetentionYears: number;
  /** This deployment's SMP (services/smp): which registrations it publishes and what it signs with. */
  smp: {
    mode: 'live' | 'test'; keyFile: string | undefined; certificateFile: string | undefined; apCertificateFile: string | undefined;
    /** The SML this SMP registers its participants with (unset: none, registrations stay local). */
    sml: { url: string; smpId: string; caFile: string | undefined; timeoutMs: number } | undefined;
  };
  /** Lease of an Idempotency-Key claim, renewed while its request runs; a crashed holder's claim lapses after it. */
  idempotencyClaimMs: number;
  /** JWT verification: an external identity provider (optional) and our built-in issuer. */
  jwt: JwtConfig;
  /** Throttle of failed authentications and caps on credentials (services/gateway/auth-failures.ts, tenancy, identity). */
  credentials: CredentialsConfig;
  /** The worker processes that parse and validate documents (services/shared/worker-pool.ts). */
  workers: WorkersConfig;
  /** Caps on the shape of every XML and PDF input, checked before any parser sees it. */
  inputLimits: InputLimits;
  /** Peppol Reporting (services/reporting): the monthly TSR and EUSR of this access point. */
  peppolReporting: PeppolReportingConfig;
  /** Metrics and traces (wired into the broker by moleculer.config.ts). */
  observability: ObservabilityConfig;
  /** Outgoing mail (services/mail) and what the portability messages do with it (services/portability-messages). */
  mail: MailConfig;
}

export interface MailConfig {
  /** SMTP server every notification goes through (`smtp://user:pass@host:587`, `smtps://…`); unset: nothing is mailed (callers record why). */
  smtpUrl: string | undefined;
  /** The From address of every mail. */
  from: string;
  /** A connection, greeting or answer slower than this fails the send, in ms. */
  timeoutMs: number;
  /** Portability messages are mailed to other platforms only when this is true (an operator's decision); otherwise logged with reason `dispatch_disabled`. */
  portabilityDispatch: boolean;
  /** A direct relay to the platforms (SMTP URL): portability messages go through it with the CSV attached as a file instead of inline. */
  portabilityRelayUrl: string | undefined;
  /** A registry snapshot of the French approved platforms replacing the shipped one (same JSON shape). */
  portabilityPlatformsFile: string | undefined;
}

function mailConfig(publicUrl: string): MailConfig {
  const dispatch = str('EINV_PORTABILITY_DISPATCH') ?? 'false';
  if (dispatch !== 'true' && dispatch !== 'false') throw new Error(`EINV_PORTABILITY_DISPATCH must be true or false, got "${dispatch}"`);
  return {
    smtpUrl: str('EINV_SMTP_URL'),
    from: str('EINV_MAIL_FROM') ?? `no-reply@${new URL(publicUrl).hostname}`,
    timeoutMs: int('EINV_SMTP_TIMEOUT_MS', 15_000),
    portabilityDispatch: dispatch === 'true',
    portabilityRelayUrl: str('EINV_PORTABILITY_RELAY_URL'),
    portabilityPlatformsFile: str('EINV_PORTABILITY_PLATFORMS_FILE'),
  };
}

export interface ObservabilityConfig {
  /** Prometheus exposition of this process at `GET /metrics` on its own port; unset: metrics are off. */
  metrics: { port: number; host: string; token: string | undefined; pollMs: number } | undefined;
  /** Where finished spans go; unset: tracing is off. */
  tracing: TracingConfig | undefined;
  /** One log line per answered request (method, route template, status, duration, request and organization ids). */
  accessLog: boolean;
}

/**
 * `zipkin`: Zipkin v2 JSON POSTed to `<url>/api/v2/spans` (services/shared/tracing.ts);
 * `otlp`: OTLP/HTTP POSTed to `url`, the collector's traces endpoint (services/shared/tracing-otlp.ts).
 */
export interface TracingConfig {
  exporter: 'zipkin' | 'otlp';
  /** zipkin: the collector's base URL; otlp: the full traces endpoint (`…/v1/traces`). */
  url: string;
  sampleRate: number;
  flushMs: number;
  /** Finished spans waiting for the collector (otlp) or the next flush (zipkin), at most; more are dropped (a dead or slow collector costs no memory beyond this). */
  maxQueue: number;
}

const TRACING_EXPORTERS = ['zipkin', 'otlp'] as const;

/** An http(s) URL without trailing slashes, or a StartupError naming the variable it came from. */
function collectorUrl(name: string, raw: string, what: string, example = 'http://127.0.0.1:4318'): string {
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch { /* reported below */ }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) {
    throw new StartupError(`${name} must be an http(s) URL (${what}), got "${raw}"`, `set ${name} to the collector's URL, e.g. ${example}, or unset it`);
  }
  return raw.replace(/\/+$/, '');
}

/**
 * EINV_TRACING_EXPORTER picks the wire format (zipkin unless said otherwise: EINV_TRACING_URL alone
 * keeps its Zipkin meaning). For otlp the collector is EINV_TRACING_URL (its base: spans go to
 * `/v1/traces`), else the standard OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (used as it is) or
 * OTEL_EXPORTER_OTLP_ENDPOINT (plus `/v1/traces`), as every OpenTelemetry SDK reads them. The OTEL_
 * variables never turn tracing on by themselves: a cluster may set them for other programs.
 */
function tracingConfig(): TracingConfig | undefined {
  const exporter = str('EINV_TRACING_EXPORTER');
  if (exporter !== undefined && !(TRACING_EXPORTERS as readonly string[]).includes(exporter)) {
    throw new StartupError(`EINV_TRACING_EXPORTER must be zipkin or otlp, got "${exporter}"`, 'set it to zipkin (Zipkin v2 JSON) or otlp (OpenTelemetry OTLP/HTTP), or unset it (zipkin)');
  }
  const tracingUrl = str('EINV_TRACING_URL');
  let url: string | undefined;
  if (exporter === 'otlp') {
    const tracesEndpoint = str('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
    const endpoint = str('OTEL_EXPORTER_OTLP_ENDPOINT');
    if (tracingUrl !== undefined) {
      const base = collectorUrl('EINV_TRACING_URL', tracingUrl, 'an OTLP/HTTP collector');
      url = base.endsWith('/v1/traces') ? base : `${base}/v1/traces`;
    } else if (tracesEndpoint !== undefined) url = collectorUrl('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', tracesEndpoint, 'an OTLP/HTTP traces endpoint');
    else if (endpoint !== undefined) url = `${collectorUrl('OTEL_EXPORTER_OTLP_ENDPOINT', endpoint, 'an OTLP/HTTP collector')}/v1/traces`;
    else throw new StartupError('EINV_TRACING_EXPORTER=otlp names no collector', 'set EINV_TRACING_URL to the collector\'s OTLP/HTTP base (e.g. http://127.0.0.1:4318), or OTEL_EXPORTER_OTLP_ENDPOINT');
  } else if (tracingUrl !== undefined) {
    url = collectorUrl('EINV_TRACING_URL', tracingUrl, 'a Zipkin-compatible collector', 'http://127.0.0.1:9411');
  } else if (exporter === 'zipkin') {
    throw new StartupError('EINV_TRACING_EXPORTER=zipkin names no collector', 'set EINV_TRACING_URL to the Zipkin collector\'s base (e.g. http://127.0.0.1:9411), or unset EINV_TRACING_EXPORTER');
  }
  if (url === undefined) return undefined;
  return {
    exporter: exporter === 'otlp' ? 'otlp' : 'zipkin',
    url,
    sampleRate: fraction('EINV_TRACING_SAMPLE_RATE', 1),
    flushMs: Math.max(50, int('EINV_TRACING_FLUSH_MS', 5_000)),
    maxQueue: Math.max(1, int('EINV_TRACING_MAX_QUEUE', 2_048)),
  };
}

function fraction(name: string, fallback: number): number {
  const raw = str(name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || value > 1) throw new Error(`${name} must be a number from 0 to 1, got "${raw}"`);
  return value;
}

/** Read when the broker is configured, so a test can set the variables before it starts an app. */
export function observabilityConfig(): ObservabilityConfig {
  const metricsPort = str('EINV_METRICS_PORT');
  return {
    metrics: metricsPort === undefined ? undefined : {
      port: int('EINV_METRICS_PORT', 9464),
      host: str('EINV_METRICS_HOST') ?? str('HOST') ?? '0.0.0.0',
      token: str('EINV_METRICS_TOKEN'),
      pollMs: Math.max(100, int('EINV_METRICS_POLL_MS', 5_000)),
    },
    tracing: tracingConfig(),
    accessLog: str('EINV_ACCESS_LOG') === 'true',
  };
}

export interface PeppolReportingConfig {
  /** Our access point's seat id (the CN of its Peppol certificate, e.g. POP000123); unset: no report can be built. */
  seatId: string | undefined;
  /** Where the scheduler POSTs the previous month's reports; unset: the job only logs that reporting is not configured. */
  url: string | undefined;
  /** When the submission job runs (node-cron, UTC). */
  cron: string;
  /** Which mode's exchanges are submitted (a production access point: live). */
  mode: 'live' | 'test';
  /** A submission POST that has not answered within this many ms has failed (retried on the next tick). */
  timeoutMs: number;
  /** Organizations whose platform-scope credentials may read the deployment's reports (the operator's). */
  operatorOrganizations: string[];
}

const SEAT_ID = /^P[A-Z]{2}[0-9]{6}$/;

/**
 * Read when asked, not once per process: the operator organization is often created after the
 * deployment starts, and the reports are rare.
 */
export function peppolReportingConfig(): PeppolReportingConfig {
  const seatId = str('EINV_PEPPOL_SEAT_ID');
  if (seatId !== undefined && !SEAT_ID.test(seatId)) throw new Error(`EINV_PEPPOL_SEAT_ID must be a Peppol seat id (P, two letters, six digits, e.g. POP000123), got "${seatId}"`);
  const mode = str('EINV_PEPPOL_REPORTING_MODE') ?? 'live';
  if (mode !== 'live' && mode !== 'test') throw new Error(`EINV_PEPPOL_REPORTING_MODE must be live or test, got "${mode}"`);
  return {
    seatId,
    url: str('EINV_PEPPOL_REPORTING_URL'),
    // Daily at 06:00 UTC from the 2nd to the 15th (OpenPeppol's window): the first tick submits, the
    // next ones retry what failed and otherwise find the month already submitted.
    cron: str('EINV_PEPPOL_REPORTING_CRON') ?? '0 6 2-15 * *',
    mode,
    timeoutMs: int('EINV_PEPPOL_REPORTING_TIMEOUT_MS', 30_000),
    operatorOrganizations: (str('EINV_OPERATOR_ORGANIZATIONS') ?? '').split(',').map((s) => s.trim()).filter(Boolean),
  };
}

export interface CredentialsConfig {
  /** Failed authentications (bad keys or tokens, wrong client secrets) allowed per client IP and per client id in the window; then 429. */
  authFailureLimit: number;
  /** The failure window, in seconds. */
  authFailureWindowSeconds: number;
  /** Live (unrevoked) API keys an organization may hold. */
  maxApiKeysPerOrganization: number;
  /** Live (unrevoked) integrations an organization may hold. */
  maxIntegrationsPerOrganization: number;
  /** How long a gateway keeps an API key's resolved principal, in ms (0: never); revocations drop it at once. */
  principalCacheTtlMs: number;
}

export interface WorkersConfig {
  /** Worker processes (default: the cores available). */
  size: number;
  /** A task using more CPU time than this on its worker (or twice this in wall time) fails with DOCUMENT_TOO_COMPLEX and the worker is replaced, in ms. */
  taskBudgetMs: number;
  /** Tasks waiting for a worker at most; beyond, UPSTREAM_UNAVAILABLE with Retry-After. */
  maxQueue: number;
  /** V8 heap of one worker (--max-old-space-size), in MB. */
  memoryMb: number;
  /** The send path maps inputs smaller than this many bytes to the canonical model inline (cheaper than a round trip to a worker); validation always runs on a worker. */
  inlineMaxBytes: number;
}

export interface InputLimits {
  xml: XmlLimits;
  pdf: PdfLimits;
}

export interface JwtConfig {
  /** JWKS of an external identity provider; unset: only the built-in issuer's tokens are accepted. */
  jwksUrl: string | undefined;
  /** `iss` of the external identity provider (required with jwksUrl). */
  issuer: string | undefined;
  /** `aud` every token must carry, external or built-in: the fixed value given to integrators. */
  audience: string;
  /** Leeway on `exp` / `nbf`, in seconds. */
  clockToleranceSeconds: number;
  /** How long fetched public keys are reused before they are fetched again, in seconds. */
  jwksCacheSeconds: number;
  /** `iss` of the built-in issuer (POST /oauth/token). */
  builtInIssuer: string;
  /** The built-in issuer signs with a new key once the active one is this old (old keys stay published until their tokens expire). */
  signingKeyMaxAgeDays: number;
  /**
   * Encrypts the built-in issuer's private keys at rest (JWE). Unset: a secret is generated once
   * into the data directory (`<dataDir>/oauth-key-secret`, mode 0600), with a warning in production.
   */
  signingKeySecret: string | undefined;
}

export interface ConnectorsConfig {
  /** Enabled connector ids (EINV_CONNECTORS); unset: the connectors file's, else `sandbox-network`. */
  enabled: string[] | undefined;
  /** JSON file of per-connector settings: `{"<id>": {"enabled", "options", "concurrency", "secretsFile", "module"}}`. */
  file: string | undefined;
  /** Folders searched for `<id>/` after `adapters/` (colon-separated), e.g. partner connectors installed elsewhere. */
  path: string[];
}

export interface EventsConfig {
  /** node-cron expression of the scheduler tick (due-time rows: webhook retries, deadlines). */
  schedulerCron: string;
  /** How long a claimed job stays leased before another replica may take it over. */
  schedulerLeaseMs: number;
  /** node-cron expression of the outbox dispatcher's poll (it is also woken on every write). */
  dispatcherCron: string;
  /** Outbox rows claimed per dispatcher transaction. */
  dispatcherBatch: number;
  /** A receiver that has not answered within this many ms has failed the attempt (spec: 20 s). */
  webhookTimeoutMs: number;
  /** Deliveries claimed and attempted at once per webhooks service instance. */
  webhookBatch: number;
}

export function loadConfig(): AppConfig {
  const port = int('PORT', 3000);
  const publicUrl = str('EINV_PUBLIC_URL') ?? `http://localhost:${port}`;
  return {
    port,
    host: str('HOST') ?? '0.0.0.0',
    databaseUrl: str('DATABASE_URL'),
    redisUrl: str('REDIS_URL'),
    natsUrl: str('NATS_URL'),
    dataDir: str('EINV_DATA_DIR') ?? '.data',
    embeddedPostgresPort: int('EINV_EMBEDDED_PG_PORT', 54329),
    ruleEngine: ruleEngine('EINV_RULE_ENGINE'),
    clockCacheTtlMs: Math.max(0, int('EINV_CLOCK_CACHE_TTL_MS', 1_000)),
    portability: { approvalUrl: str('EINV_APPROVAL_URL'), approvalTimeoutMs: int('EINV_APPROVAL_TIMEOUT_MS', 5_000), paMatricule: str('EINV_PA_MATRICULE') ?? '0001' },
    peppolDirectory: str('EINV_PEPPOL_DIRECTORY_URL') ? { url: str('EINV_PEPPOL_DIRECTORY_URL')!, timeoutMs: int('EINV_PEPPOL_DIRECTORY_TIMEOUT_MS', 10_000) } : undefined,
    services: str('SERVICES')?.split(',').map((s) => s.trim()).filter(Boolean),
    events: {
      schedulerCron: str('EINV_SCHEDULER_CRON') ?? '* * * * * *',
      schedulerLeaseMs: int('EINV_SCHEDULER_LEASE_MS', 60_000),
      dispatcherCron: str('EINV_DISPATCHER_CRON') ?? '* * * * * *',
      dispatcherBatch: int('EINV_DISPATCHER_BATCH', 200),
      webhookTimeoutMs: int('EINV_WEBHOOK_TIMEOUT_MS', 20_000),
      webhookBatch: int('EINV_WEBHOOK_BATCH', 100),
    },
    documents: {
      // First re-send after a transport failure; each next one waits twice as long (5 re-sends).
      deliveryRetryMs: int('EINV_DELIVERY_RETRY_MS', 30_000),
      deliveryTimeoutMs: int('EINV_DELIVERY_TIMEOUT_MS', 30_000),
      deliveryConcurrency: int('EINV_DELIVERY_CONCURRENCY', 16),
    },
    connectors: {
      enabled: str('EINV_CONNECTORS')?.split(',').map((s) => s.trim()).filter(Boolean),
      file: str('EINV_CONNECTORS_FILE'),
      path: (str('EINV_CONNECTORS_PATH') ?? '').split(':').map((s) => s.trim()).filter(Boolean),
    },
    publicUrl,
    docsUrl: str('EINV_DOCS_URL') ?? `${publicUrl}/docs/errors`,
    agentConsentUrl: str('EINV_AGENT_CONSENT_URL') ?? `${publicUrl}/v1/oauth/authorizations/{id}`,
    maxJsonBytes: int('EINV_MAX_JSON_BYTES', 1024 * 1024),
    maxBodyBytes: int('EINV_MAX_BODY_BYTES', 25 * 1024 * 1024),
    keepAliveMs: int('EINV_HTTP_KEEP_ALIVE_MS', 65_000),
    requestTimeoutMs: Math.max(100, int('EINV_REQUEST_TIMEOUT_MS', 60_000)),
    bootstrapPerIpPerHour: int('EINV_BOOTSTRAP_PER_IP_PER_HOUR', 10),
    sandboxKeyDays: int('EINV_SANDBOX_KEY_DAYS', 30),
    customDomainTarget: str('EINV_CUSTOM_DOMAIN_TARGET') ?? new URL(publicUrl).hostname,
    customDomainDnsServers: (str('EINV_CUSTOM_DOMAIN_DNS_SERVERS') ?? '').split(',').map((s) => s.trim()).filter(Boolean),
    rateLimitOverrides: planOverrides('EINV_RATE_LIMITS'),
    requestLogReads: str('EINV_REQUEST_LOG_READS') === 'true',
    requestLogBufferSize: int('EINV_REQUEST_LOG_BUFFER', 20_000),
    requestLogBatchSize: int('EINV_REQUEST_LOG_BATCH', 500),
    requestLogFlushMs: int('EINV_REQUEST_LOG_FLUSH_MS', 200),
    requestLogRetentionDays: int('EINV_REQUEST_LOG_RETENTION_DAYS', 90),
    documentRetentionYears: Math.max(1, int('EINV_RETENTION_YEARS', 10)),
    smp: {
      mode: str('EINV_SMP_MODE') === 'test' ? 'test' : 'live',
      keyFile: str('EINV_SMP_KEY_FILE'),
      certificateFile: str('EINV_SMP_CERTIFICATE_FILE'),
      apCertificateFile: str('EINV_AP_CERTIFICATE_FILE'),
      sml: str('EINV_SML_URL') ? {
        url: str('EINV_SML_URL')!,
        smpId: str('EINV_SML_SMP_ID') ?? (() => { throw new Error('EINV_SML_URL needs EINV_SML_SMP_ID: the ServiceMetadataPublisherID this SMP has at the SML'); })(),
        caFile: str('EINV_SML_CA_FILE'),
        timeoutMs: int('EINV_SML_TIMEOUT_MS', 30_000),
      } : undefined,
    },
    idempotencyClaimMs: int('EINV_IDEMPOTENCY_CLAIM_MS', 15_000),
    jwt: {
      jwksUrl: requiredTogether('EINV_JWT_JWKS_URL', 'EINV_JWT_ISSUER'),
      issuer: str('EINV_JWT_ISSUER'),
      audience: str('EINV_JWT_AUDIENCE') ?? 'einvoicing-exchange-api',
      clockToleranceSeconds: int('EINV_JWT_CLOCK_TOLERANCE_SECONDS', 30),
      jwksCacheSeconds: int('EINV_JWT_JWKS_CACHE_SECONDS', 600),
      builtInIssuer: str('EINV_OAUTH_ISSUER') ?? publicUrl,
      signingKeyMaxAgeDays: int('EINV_OAUTH_SIGNING_KEY_MAX_AGE_DAYS', 90),
      signingKeySecret: str('EINV_OAUTH_KEY_SECRET'),
    },
    credentials: {
      authFailureLimit: Math.max(1, int('EINV_AUTH_FAILURE_LIMIT', 30)),
      authFailureWindowSeconds: Math.max(1, int('EINV_AUTH_FAILURE_WINDOW_SECONDS', 60)),
      maxApiKeysPerOrganization: int('EINV_MAX_API_KEYS_PER_ORGANIZATION', 100),
      maxIntegrationsPerOrganization: int('EINV_MAX_INTEGRATIONS_PER_ORGANIZATION', 100),
      principalCacheTtlMs: Math.max(0, int('EINV_PRINCIPAL_CACHE_TTL_MS', 1_000)),
    },
    workers: {
      size: Math.max(1, int('EINV_WORKERS', availableParallelism())),
      // Below the broker's request timeout (MOL_REQUEST_TIMEOUT_MS, 10 s), so an over-budget document gets
      // its own clear error rather than a timeout the broker would retry.
      taskBudgetMs: int('EINV_WORKER_TASK_BUDGET_MS', 8_000),
      maxQueue: int('EINV_WORKER_MAX_QUEUE', 200),
      memoryMb: int('EINV_WORKER_MEMORY_MB', 512),
      inlineMaxBytes: int('EINV_WORKER_INLINE_MAX_BYTES', 64 * 1024),
    },
    inputLimits: {
      xml: {
        maxElements: int('EINV_XML_MAX_ELEMENTS', 1_000_000),
        maxAttributesPerElement: int('EINV_XML_MAX_ATTRIBUTES', 256),
        maxDepth: int('EINV_XML_MAX_DEPTH', 128),
        maxTextLength: int('EINV_XML_MAX_TEXT_BYTES', 8 * 1024 * 1024),
      },
      pdf: {
        maxInflatedBytes: int('EINV_PDF_MAX_INFLATED_BYTES', 32 * 1024 * 1024),
        maxEmbeddedFiles: int('EINV_PDF_MAX_EMBEDDED_FILES', 64),
        maxObjects: int('EINV_PDF_MAX_OBJECTS', 100_000),
      },
    },
    peppolReporting: peppolReportingConfig(),
    observability: observabilityConfig(),
    mail: mailConfig(publicUrl),
  };
}
