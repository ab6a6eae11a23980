/**
 * KSeF 2.0's REST API as the connector uses it: the base URL and environment from the options,
 * authentication with a KSeF token (challenge → token encrypted for the Ministry → reference → access
 * and refresh tokens) or with a XAdES-signed AuthTokenRequest (xades.ts) — then the same status and
 * redemption. The access token is refreshed before it expires, a 401 answered by one fresh
 * token and one more try; the Ministry's public keys, and KSeF's answers read into one shape.
 * Paths and fields follow CIRFMF/ksef-docs (open-api.json, uwierzytelnianie.md, tokeny-ksef.md).
 */
import { randomUUID, type KeyObject } from 'node:crypto';
import { ConnectorError, type ConnectorHost, type HttpResponse } from '../sdk/index.ts';
import { encryptKsefToken, ministryKeyOf } from './crypto.ts';
import { authTokenRequest, signXades } from './xades.ts';

/** KSeF's environments: test (TE), pre-production (DEMO), production (PRD); only production is live. */
export type KsefEnvironment = 'test' | 'demo' | 'prod';

/** The KOD I link host of each environment (kody-qr.md). */
export const QR_BASE_URLS: Record<KsefEnvironment, string> = {
  test: 'https://qr-test.ksef.mf.gov.pl',
  demo: 'https://qr-demo.ksef.mf.gov.pl',
  prod: 'https://qr.ksef.mf.gov.pl',
};

/** An access token is renewed this long before KSeF says it expires. */
const TOKEN_MARGIN_MS = 60_000;
/** The Ministry's keys are read again after this long (they rotate; the certificates say when). */
const KEYS_TTL_MS = 6 * 3600_000;

interface Token { value: string; expiresAt: number }
interface Keys { token: KeyObject; symmetric: KeyObject; fetchedAt: number }
interface ClientState { access?: Token; refresh?: Token; pending?: Promise<Token>; keys?: Keys; keysPending?: Promise<Keys> }

/** Per-host state: a connector object serves every host the platform gives it. */
const states = new WeakMap<ConnectorHost, ClientState>();
function stateOf(host: ConnectorHost): ClientState {
  let s = states.get(host);
  if (!s) { s = {}; states.set(host, s); }
  return s;
}

export function environmentOf(host: ConnectorHost): KsefEnvironment {
  const e = String(host.config.environment ?? 'test');
  if (e !== 'test' && e !== 'demo' && e !== 'prod') throw ConnectorError.permanent('KSEF_CONFIG', `environment must be test, demo or prod, not ${e}`);
  return e;
}

export function baseUrl(host: ConnectorHost): string {
  return String(host.config.baseUrl ?? '').replace(/\/+$/, '');
}

export function qrBaseUrl(host: ConnectorHost): string {
  return String(host.config.qrBaseUrl || QR_BASE_URLS[environmentOf(host)]);
}

/** The NIP the connector authenticates for (its login context). */
export function contextNip(host: ConnectorHost): string {
  return String(host.config.nip ?? '');
}

export function jsonOf<T>(res: HttpResponse): T | undefined {
  try { return JSON.parse(res.text()) as T; } catch { return undefined; }
}

/** Seconds of a 429's Retry-After (KSeF gives seconds), at least one. */
export function retryAfterMs(res: HttpResponse): number {
  const s = Number(res.headers['retry-after']);
  return Number.isFinite(s) && s > 0 ? Math.ceil(s) * 1000 : 1000;
}

/** KSeF's error answer: `ExceptionResponse` (exception.exceptionDetailList) or Problem Details. */
export function exceptionOf(res: HttpResponse): { code: string; message: string } | undefined {
  const body = jsonOf<{ exception?: { exceptionDetailList?: Array<{ exceptionCode?: number; exceptionDescription?: string; details?: string[] }> }; title?: string; detail?: string; reasonCode?: string; status?: { code?: number; description?: string; details?: string[] } }>(res);
  const first = body?.exception?.exceptionDetailList?.[0];
  if (first?.exceptionCode !== undefined) {
    return { code: String(first.exceptionCode), message: [first.exceptionDescription, ...(first.details ?? [])].filter(Boolean).join(': ') };
  }
  if (body?.status?.code !== undefined) return { code: String(body.status.code), message: [body.status.description, ...(body.status.details ?? [])].filter(Boolean).join(': ') };
  if (body?.reasonCode || body?.detail) return { code: body.reasonCode ?? String(res.status), message: body.detail ?? body.title ?? '' };
  return undefined;
}

/** A KSeF answer that is not the one hoped for, as a connector error: 429 and 5xx transient, a 4xx permanent with KSeF's code. */
export function failure(res: HttpResponse, what: string): ConnectorError {
  if (res.status === 429) return ConnectorError.transient('KSEF_THROTTLED', `KSeF throttled ${what}: retry after ${retryAfterMs(res) / 1000} s`);
  const ex = exceptionOf(res);
  if (res.status >= 500 || res.status === 401 || res.status === 403 || !ex) {
    return ConnectorError.transient(`KSEF_HTTP_${res.status}`, `KSeF answered ${what} with HTTP ${res.status}${ex ? ` (${ex.code} ${ex.message})` : ''}`);
  }
  return ConnectorError.permanent(`KSEF:${ex.code}`, `KSeF refused ${what}: ${ex.message || ex.code}`);
}

function timeoutMs(host: ConnectorHost): number {
  return Number(host.config.timeoutMs ?? 30_000);
}

async function request(host: ConnectorHost, method: string, path: string, options: { bearer?: string; json?: unknown; xml?: string; accept?: string } = {}): Promise<HttpResponse> {
  return host.http.request(`${baseUrl(host)}${path}`, {
    method,
    headers: {
      accept: options.accept ?? 'application/json',
      'x-request-id': randomUUID(),
      ...(options.bearer ? { authorization: `Bearer ${options.bearer}` } : {}),
      ...(options.json !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(options.xml !== undefined ? { 'content-type': 'application/xml' } : {}),
    },
    ...(options.json !== undefined ? { body: JSON.stringify(options.json) } : {}),
    ...(options.xml !== undefined ? { body: options.xml } : {}),
    timeoutMs: timeoutMs(host),
  });
}

/** How the connector authenticates: a KSeF token (default) or an `AuthTokenRequest` signed XAdES with the taxpayer's certificate. */
export function authMethodOf(host: ConnectorHost): 'token' | 'xades' {
  const m = String(host.config.authMethod ?? 'token');
  if (m !== 'token' && m !== 'xades') throw ConnectorError.permanent('KSEF_CONFIG', `authMethod must be token or xades, not ${m}`);
  return m;
}

/**
 * The Ministry's two public keys (token encryption, symmetric key encryption): the configured one
 * for both when `publicKey` is set, else read from `GET /security/public-key-certificates`.
 */
export async function ministryKeys(host: ConnectorHost): Promise<Keys> {
  const state = stateOf(host);
  const now = host.clock.now().getTime();
  if (state.keys && now - state.keys.fetchedAt < KEYS_TTL_MS) return state.keys;
  state.keysPending ??= (async () => {
    const configured = host.config.publicKey ? String(host.config.publicKey) : undefined;
    if (configured) {
      const key = ministryKeyOf(configured.replace(/\\n/g, '\n'));
      return { token: key, symmetric: key, fetchedAt: now };
    }
    const res = await request(host, 'GET', '/security/public-key-certificates');
    if (res.status !== 200) throw failure(res, 'the request for its public keys');
    const certs = jsonOf<Array<{ certificate?: string; usage?: string[]; validFrom?: string; validTo?: string }>>(res) ?? [];
    const valid = certs.filter((c) => c.certificate && (!c.validTo || Date.parse(c.validTo) > now) && (!c.validFrom || Date.parse(c.validFrom) <= now));
    const pick = (usage: string) => valid.find((c) => c.usage?.includes(usage))?.certificate;
    const token = pick('KsefTokenEncryption');
    const symmetric = pick('SymmetricKeyEncryption');
    if (!token || !symmetric) throw ConnectorError.transient('KSEF_NO_PUBLIC_KEY', 'KSeF listed no valid certificate for token or symmetric key encryption');
    return { token: ministryKeyOf(token), symmetric: ministryKeyOf(symmetric), fetchedAt: now };
  })();
  try {
    state.keys = await state.keysPending;
    return state.keys;
  } finally {
    state.keysPending = undefined;
  }
}

function tokenOf(info: { token?: string; validUntil?: string } | undefined, now: number): Token | undefined {
  if (!info?.token) return undefined;
  const until = info.validUntil ? Date.parse(info.validUntil) : now + 15 * 60_000;
  return { value: info.token, expiresAt: Math.max(now, until - TOKEN_MARGIN_MS) };
}

/**
 * Authentication (uwierzytelnianie.md): challenge; then the encrypted `token|timestampMs` (§2.2) or
 * the signed AuthTokenRequest (§2.1); the operation's status until it succeeds (a bounded number of
 * reads), then the tokens redeemed. Failures are transient: a refused token or certificate is the
 * configuration's fault, never the invoice's.
 */
async function authenticate(host: ConnectorHost): Promise<{ access: Token; refresh?: Token }> {
  const challengeRes = await request(host, 'POST', '/auth/challenge', { json: {} });
  if (challengeRes.status !== 200) throw failure(challengeRes, 'the authentication challenge');
  const challenge = jsonOf<{ challenge?: string; timestampMs?: number; timestamp?: string }>(challengeRes);
  const stamp = challenge?.timestampMs ?? (challenge?.timestamp ? Date.parse(challenge.timestamp) : NaN);
  if (!challenge?.challenge || !Number.isFinite(stamp)) throw ConnectorError.transient('KSEF_AUTH_FAILED', 'KSeF answered the challenge without a challenge or timestamp');

  const init = authMethodOf(host) === 'xades'
    // §2.1: the AuthTokenRequest signed with the taxpayer's certificate (the Ministry's key is not used).
    ? await request(host, 'POST', '/auth/xades-signature', {
      xml: signXades(authTokenRequest(challenge.challenge, contextNip(host)), host.secrets.get('signingKey').reveal(), String(host.config.certificate ?? '').replace(/\\n/g, '\n'), host.clock.now()),
    })
    : await request(host, 'POST', '/auth/ksef-token', {
      json: { challenge: challenge.challenge, contextIdentifier: { type: 'Nip', value: contextNip(host) }, encryptedToken: encryptKsefToken((await ministryKeys(host)).token, host.secrets.get('ksefToken').reveal(), stamp) },
    });
  if (init.status !== 202 && init.status !== 200) {
    const ex = exceptionOf(init);
    throw ConnectorError.transient('KSEF_AUTH_FAILED', `KSeF refused the token authentication (HTTP ${init.status}${ex ? `, ${ex.code} ${ex.message}` : ''})`);
  }
  const op = jsonOf<{ referenceNumber?: string; authenticationToken?: { token?: string } }>(init);
  const authToken = op?.authenticationToken?.token;
  if (!op?.referenceNumber || !authToken) throw ConnectorError.transient('KSEF_AUTH_FAILED', 'KSeF answered the token authentication without a reference or operation token');

  const attempts = Math.max(1, Number(host.config.authPollAttempts ?? 10));
  const pause = Math.max(0, Number(host.config.authPollMs ?? 500));
  for (let i = 0; ; i++) {
    const res = await request(host, 'GET', `/auth/${encodeURIComponent(op.referenceNumber)}`, { bearer: authToken });
    if (res.status !== 200) throw ConnectorError.transient('KSEF_AUTH_FAILED', `KSeF answered the authentication status with HTTP ${res.status}`);
    const status = jsonOf<{ status?: { code?: number; description?: string; details?: string[] } }>(res)?.status;
    if (status?.code === 200) break;
    if (status?.code !== undefined && status.code >= 400) {
      throw ConnectorError.transient('KSEF_AUTH_FAILED', `KSeF refused the authentication: ${status.code} ${[status.description, ...(status.details ?? [])].filter(Boolean).join(': ')}`);
    }
    if (i + 1 >= attempts) throw ConnectorError.transient('KSEF_AUTH_FAILED', `KSeF had not finished the authentication after ${attempts} reads`);
    await new Promise((r) => setTimeout(r, pause));
  }
  const redeem = await request(host, 'POST', '/auth/token/redeem', { bearer: authToken });
  const tokens = jsonOf<{ accessToken?: { token?: string; validUntil?: string }; refreshToken?: { token?: string; validUntil?: string } }>(redeem);
  const now = host.clock.now().getTime();
  const access = tokenOf(tokens?.accessToken, now);
  if (redeem.status !== 200 || !access) throw ConnectorError.transient('KSEF_AUTH_FAILED', `KSeF did not redeem the authentication (HTTP ${redeem.status})`);
  const refresh = tokenOf(tokens?.refreshToken, now);
  return { access, ...(refresh ? { refresh } : {}) };
}

/** A new access token from the refresh token; undefined when KSeF will not refresh it (authenticate again). */
async function refreshed(host: ConnectorHost, refresh: Token): Promise<Token | undefined> {
  const res = await request(host, 'POST', '/auth/token/refresh', { bearer: refresh.value });
  if (res.status !== 200) return undefined;
  return tokenOf(jsonOf<{ accessToken?: { token?: string; validUntil?: string } }>(res)?.accessToken, host.clock.now().getTime());
}

/** The access token: cached, refreshed when it nears expiry, a full authentication when that fails. One at a time per host. */
export async function accessToken(host: ConnectorHost, fresh = false): Promise<string> {
  const state = stateOf(host);
  const now = host.clock.now().getTime();
  if (!fresh && state.access && state.access.expiresAt > now) return state.access.value;
  state.pending ??= (async () => {
    if (state.refresh && state.refresh.expiresAt > now) {
      const t = await refreshed(host, state.refresh);
      if (t) return t;
    }
    const tokens = await authenticate(host);
    if (tokens.refresh) state.refresh = tokens.refresh;
    return tokens.access;
  })();
  try {
    state.access = await state.pending;
    return state.access.value;
  } finally {
    state.pending = undefined;
  }
}

/** Forgets the tokens (the connector stops). */
export function forgetTokens(host: ConnectorHost): void {
  const state = stateOf(host);
  delete state.access;
  delete state.refresh;
}

/** An authorised call; a 401 (token revoked or expired early) gets one fresh token and one more try. */
export async function authorised(host: ConnectorHost, method: string, path: string, options: { json?: unknown; accept?: string } = {}): Promise<HttpResponse> {
  for (let attempt = 0; ; attempt++) {
    const bearer = await accessToken(host, attempt > 0);
    const res = await request(host, method, path, { ...options, bearer });
    if (res.status !== 401 || attempt > 0) return res;
  }
}
