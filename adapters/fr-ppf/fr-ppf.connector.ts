/**
 * fr-ppf: files French lifecycle statuses (CDAR D22B "cycle de vie", flux 6) with the PPF, the State
 * platform that concentrates the statuses the law reports (200, 210, 212, 213).
 *
 * Transport, as far as the public material describes it: the AIFE APIs sit behind the PISTE gateway,
 * which issues OAuth2 client-credentials tokens (`tokenUrl`, `clientId`, secret `clientSecret`); a
 * status message is deposited as one flow, the XP Z12-013 Flow Service way (`POST <baseUrl>/v1/flows`,
 * multipart `flowInfo` JSON + `file`, answered 202 with the flow id), and the platform's verdict is the
 * flow's acknowledgement (`GET <baseUrl>/v1/flows/{flowId}`: `Ok`, `Error` with reason codes, or
 * `Pending`). The report id travels as the flow's `trackingId`, so a deposit the PPF already has is
 * answered with its first flow: filing twice never files twice, even across restarts of the platform.
 *
 * Outcomes: acknowledgement `Ok` → accepted (`networkReportId` = flow id); `Error` → rejected with the
 * PPF's code (`PPF:00025` invoice number not matching the format, `PPF:00058` executing service
 * missing for a public buyer …); a 4xx answer naming an `errorCode` → rejected the same way; 5xx, 429,
 * timeouts, refused connections, a token the gateway will not give, an acknowledgement still pending
 * → transient (the platform files again later). Written against adapters/sdk only.
 */
import { createHash, randomUUID } from 'node:crypto';
import { CONNECTOR_API_VERSION, ConnectorError, type Connector, type ConnectorHost, type HttpResponse, type ReportMessage, type ReportResult } from '../sdk/index.ts';

/** Largest status message we deposit: a CDAR is a few kilobytes; the Flow Service itself stops at 100 MB. */
const MAX_CDAR_BYTES = 1024 * 1024;
/** Outcomes remembered per host for idempotency (the PPF's trackingId covers what falls out). */
const MAX_REMEMBERED = 10_000;
/** A token is renewed this long before the gateway says it expires. */
const TOKEN_MARGIN_MS = 30_000;

interface Token { value: string; expiresAt: number }
interface HostState { token?: Token; tokenPending?: Promise<Token>; outcomes: Map<string, Promise<ReportResult>> }

/** Per-host state: a connector object serves every host the platform gives it (each mode, each test). */
const states = new WeakMap<ConnectorHost, HostState>();
const stateOf = (host: ConnectorHost): HostState => {
  let s = states.get(host);
  if (!s) { s = { outcomes: new Map() }; states.set(host, s); }
  return s;
};

interface AckDetail { level?: string; item?: string; reasonCode?: string; reasonMessage?: string }
interface FlowAnswer { flowId?: string; acknowledgement?: { status?: string; details?: AckDetail[] } }

const transient = (errorMessage: string, errorCode?: string): ReportResult => ({ outcome: 'transient', errorMessage, ...(errorCode ? { errorCode } : {}) });
const rejected = (errorCode: string, errorMessage: string): ReportResult => ({ outcome: 'rejected', errorCode, errorMessage });

function baseUrl(host: ConnectorHost): string {
  return String(host.config.baseUrl ?? '').replace(/\/+$/, '');
}

function jsonOf<T>(res: HttpResponse): T | undefined {
  try { return JSON.parse(res.text()) as T; } catch { return undefined; }
}

/** The PISTE client-credentials token, cached until shortly before it expires (one request at a time). */
async function tokenFor(host: ConnectorHost, fresh = false): Promise<Token> {
  const state = stateOf(host);
  const now = host.clock.now().getTime();
  if (!fresh && state.token && state.token.expiresAt > now) return state.token;
  state.tokenPending ??= (async () => {
    const res = await host.http.request(String(host.config.tokenUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: String(host.config.clientId ?? ''),
        client_secret: host.secrets.get('clientSecret').reveal(),
        ...(host.config.scope ? { scope: String(host.config.scope) } : {}),
      }).toString(),
      timeoutMs: Number(host.config.timeoutMs ?? 30_000),
    });
    const body = jsonOf<{ access_token?: string; expires_in?: number; error?: string }>(res);
    if (res.status !== 200 || !body?.access_token) {
      throw ConnectorError.transient('PPF_AUTH_FAILED', `the PISTE gateway gave no token (HTTP ${res.status}${body?.error ? `, ${body.error}` : ''})`);
    }
    const lifetimeMs = Math.max(0, Number(body.expires_in ?? 3600) * 1000 - TOKEN_MARGIN_MS);
    return { value: body.access_token, expiresAt: host.clock.now().getTime() + lifetimeMs };
  })();
  try {
    state.token = await state.tokenPending;
    return state.token;
  } finally {
    state.tokenPending = undefined;
  }
}

/** An authorised call; a 401 (token revoked or expired early) gets one fresh token and one more try. */
async function authorised(host: ConnectorHost, url: string, init: { method: string; headers?: Record<string, string>; body?: Buffer }): Promise<HttpResponse> {
  for (let attempt = 0; ; attempt++) {
    const token = await tokenFor(host, attempt > 0);
    const res = await host.http.request(url, {
      method: init.method,
      headers: { ...init.headers, authorization: `Bearer ${token.value}`, accept: 'application/json', 'request-id': randomUUID() },
      ...(init.body ? { body: init.body } : {}),
      timeoutMs: Number(host.config.timeoutMs ?? 30_000),
    });
    if (res.status !== 401 || attempt > 0) return res;
  }
}

/** The Flow Service's multipart body (flowInfo JSON + the file), encoded by the platform's own FormData. */
async function flowRequest(msg: ReportMessage, cdar: Buffer): Promise<{ body: Buffer; contentType: string }> {
  const flowInfo = {
    trackingId: msg.reportId,
    name: msg.payload.filename ?? `${msg.reportId}.xml`,
    flowSyntax: 'CDAR',
    sha256: createHash('sha256').update(cdar).digest('hex'),
  };
  const form = new FormData();
  form.set('flowInfo', new Blob([JSON.stringify(flowInfo)], { type: 'application/json' }));
  form.set('file', new Blob([new Uint8Array(cdar)], { type: 'application/xml' }), flowInfo.name);
  const req = new Request('http://flow.invalid/', { method: 'POST', body: form });
  return { body: Buffer.from(await req.arrayBuffer()), contentType: req.headers.get('content-type')! };
}

/** The PPF's answer to a refused deposit or flow, with its own code. */
function refusal(code: string, message: string | undefined): ReportResult {
  return rejected(`PPF:${code}`, message ?? `the PPF refused the status message (${code})`);
}

/** What an acknowledgement says; undefined while it is pending. */
function verdict(flow: FlowAnswer, flowId: string): ReportResult | undefined {
  const ack = flow.acknowledgement?.status;
  if (ack === 'Ok') return { outcome: 'accepted', reportId: '', networkReportId: flowId };
  if (ack === 'Error') {
    const errors = (flow.acknowledgement?.details ?? []).filter((d) => d.level !== 'Warning');
    const first = errors[0];
    if (!first?.reasonCode) return rejected('PPF:REJECTED', 'the PPF refused the status message without a reason code');
    const more = errors.slice(1).map((d) => d.reasonCode).filter(Boolean);
    return refusal(first.reasonCode, `${first.reasonMessage ?? first.reasonCode}${first.item ? ` (${first.item})` : ''}${more.length ? ` (and ${more.join(', ')})` : ''}`);
  }
  return undefined;
}

async function file(msg: ReportMessage, host: ConnectorHost): Promise<ReportResult> {
  if (msg.kind !== 'lifecycle' || msg.country !== 'FR') {
    return rejected('PPF_UNSUPPORTED_REPORT', `the PPF connector files French lifecycle statuses (kind lifecycle, country FR), not ${msg.kind} reports for ${msg.country}`);
  }
  const cdar = Buffer.from(msg.payload.content ?? '', 'base64');
  if (cdar.length === 0 || cdar.length > MAX_CDAR_BYTES) {
    return rejected('PPF_INVALID_CDAR', `the status message is ${cdar.length === 0 ? 'empty' : `${cdar.length} bytes, over ${MAX_CDAR_BYTES}`}`);
  }
  try {
    host.translators.readCdar(cdar);
  } catch (err) {
    return rejected('PPF_INVALID_CDAR', `the payload is not a CDAR lifecycle message: ${(err as Error).message}`);
  }

  const { body, contentType } = await flowRequest(msg, cdar);
  const deposit = await authorised(host, `${baseUrl(host)}/v1/flows`, { method: 'POST', headers: { 'content-type': contentType }, body });
  if (deposit.status >= 500 || deposit.status === 429 || deposit.status === 401 || deposit.status === 403) {
    return transient(`the PPF answered the deposit with HTTP ${deposit.status}`, `PPF_HTTP_${deposit.status}`);
  }
  const answer = jsonOf<FlowAnswer & { errorCode?: string; errorMessage?: string }>(deposit);
  if (deposit.status >= 400) {
    if (answer?.errorCode) return refusal(answer.errorCode, answer.errorMessage);
    return transient(`the PPF answered the deposit with HTTP ${deposit.status} and no error code`, `PPF_HTTP_${deposit.status}`);
  }
  const flowId = answer?.flowId;
  if (!flowId) return transient(`the PPF answered the deposit with HTTP ${deposit.status} but no flow id`, 'PPF_BAD_ANSWER');
  host.log.info('fr-ppf: status message deposited', { reportId: msg.reportId, flowId });

  // The acknowledgement: in the deposit's answer when the PPF gives it, else read from the flow.
  const attempts = Math.max(1, Number(host.config.ackPollAttempts ?? 5));
  const pause = Math.max(0, Number(host.config.ackPollMs ?? 1000));
  let found = answer ? verdict(answer, flowId) : undefined;
  for (let i = 0; !found && i < attempts; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, pause));
    const res = await authorised(host, `${baseUrl(host)}/v1/flows/${encodeURIComponent(flowId)}?docType=Metadata`, { method: 'GET' });
    if (res.status !== 200) return transient(`the PPF answered HTTP ${res.status} for flow ${flowId}`, `PPF_HTTP_${res.status}`);
    const flow = jsonOf<FlowAnswer>(res);
    if (!flow) return transient(`the PPF answered flow ${flowId} with a body that is not JSON`, 'PPF_BAD_ANSWER');
    found = verdict(flow, flowId);
  }
  if (!found) return transient(`the PPF has not acknowledged flow ${flowId} yet`, 'PPF_ACK_PENDING');
  return found.outcome === 'accepted' ? { ...found, reportId: msg.reportId } : found;
}

const frPpf = {
  manifest: {
    id: 'fr-ppf',
    version: '1.0.0',
    apiVersion: CONNECTOR_API_VERSION,
    name: 'France PPF (lifecycle statuses)',
    description: 'Files the French lifecycle statuses the law reports (CDAR D22B, statuses 200, 210, 212, 213) with the PPF through the PISTE gateway',
    modes: ['live', 'test'],
    countries: ['FR'],
    documentTypes: ['invoice', 'credit-note'],
    capabilities: { send: false, pushReceive: false, pollReceive: false, status: false, report: true, discover: false },
    options: {
      baseUrl: { type: 'string', description: 'Base URL of the PPF flow API (flows are deposited at <baseUrl>/v1/flows)', required: true },
      tokenUrl: { type: 'string', description: 'PISTE OAuth2 token endpoint (client-credentials grant)', required: true },
      clientId: { type: 'string', description: 'PISTE application client id', required: true },
      clientSecret: { type: 'string', description: 'PISTE application client secret', required: true, secret: true },
      scope: { type: 'string', description: 'OAuth2 scope asked with the token', default: 'openid' },
      timeoutMs: { type: 'number', description: 'Time allowed for one PPF or gateway answer', default: 30000 },
      ackPollAttempts: { type: 'number', description: 'Reads of a deposited flow while its acknowledgement is pending', default: 5 },
      ackPollMs: { type: 'number', description: 'Pause between two reads of a pending acknowledgement', default: 1000 },
    },
  },

  /**
   * Files one status message. The same report id again answers the first filing's outcome; a filing
   * under way is joined, not repeated. Transient outcomes are not remembered: they are filed again.
   */
  async report(msg: ReportMessage, host: ConnectorHost): Promise<ReportResult> {
    const { outcomes } = stateOf(host);
    const known = outcomes.get(msg.reportId);
    if (known) return known;
    const filing = file(msg, host).catch((err: unknown) => {
      if (err instanceof ConnectorError && err.kind === 'permanent') return rejected(err.code, err.message);
      return transient((err as Error).message, err instanceof ConnectorError ? err.code : 'PPF_UNREACHABLE');
    });
    outcomes.set(msg.reportId, filing);
    const result = await filing;
    if (result.outcome === 'transient') outcomes.delete(msg.reportId);
    else if (outcomes.size > MAX_REMEMBERED) outcomes.delete(outcomes.keys().next().value!);
    return result;
  },
} satisfies Connector;

export default frPpf;
