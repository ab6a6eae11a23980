/**
 * ANAF's e-Factura REST API as the connector calls it (paths under the environment's base URL,
 * `https://api.anaf.ro/{test,prod}/FCTEL/rest`): `upload`, `stareMesaj`, `descarcare`,
 * `listaMesajePaginatieFactura`, each with the OAuth2 access token of the taxpayer's authorisation.
 *
 * Tokens: ANAF's OAuth2 server (`logincert.anaf.ro/anaf-oauth2/v1`) issues them by the
 * authorization-code flow, which needs the taxpayer's qualified certificate in a browser: that happens
 * once, outside the platform, and the connector is configured with the resulting refresh token (a
 * secret), the application's client id and client secret (a secret). It refreshes the access token
 * itself (`grant_type=refresh_token`, client authenticated with HTTP Basic), caches it until shortly
 * before `expires_in`, and keeps a refresh token ANAF rotates for as long as the process runs. A 401
 * gets one fresh token and one more try. Tokens never reach the log.
 *
 * Answers: ANAF speaks XML for upload and stareMesaj (attributes on a `header` element), JSON for the
 * message list and for errors of `descarcare`, and zip for a download. 429 (ANAF's per-day and
 * per-minute limits) and 5xx are transient: the caller is told how long to wait (Retry-After).
 */
import { ConnectorError, type ConnectorHost, type HttpResponse } from '../sdk/index.ts';
import { readTree, attr, kids, type XEl } from '../../mappings/xml/tree.ts';

/** A token is renewed this long before ANAF says it expires. */
const TOKEN_MARGIN_MS = 60_000;
/** Largest answer we read as XML or JSON (ANAF's status and list answers are a few kilobytes a page). */
const MAX_ANSWER_BYTES = 2 * 1024 * 1024;

interface Token { value: string; expiresAt: number }
interface TokenState { token?: Token; pending?: Promise<Token>; rotatedRefreshToken?: string }

const tokens = new WeakMap<ConnectorHost, TokenState>();
const tokenState = (host: ConnectorHost): TokenState => {
  let s = tokens.get(host);
  if (!s) { s = {}; tokens.set(host, s); }
  return s;
};

const timeoutOf = (host: ConnectorHost) => Number(host.config.timeoutMs ?? 30_000);

/** The environment's base URL: ANAF's test system for test keys, production for live keys. */
export function apiBase(host: ConnectorHost, livemode: boolean): string {
  const url = livemode ? host.config.baseUrl : (host.config.testBaseUrl ?? host.config.baseUrl);
  return String(url ?? '').replace(/\/+$/, '');
}

/** Seconds of a Retry-After header as milliseconds (a date or nothing: a minute). */
export function retryAfterMs(res: HttpResponse): number {
  const v = res.headers['retry-after'];
  const s = v !== undefined ? Number(v) : NaN;
  return Number.isFinite(s) && s >= 0 ? Math.min(s * 1000, 3_600_000) : 60_000;
}

/** An HTTP answer that means "not now": throttled, or ANAF's side failing. */
export function isTransientStatus(status: number): boolean {
  return status === 429 || status === 408 || status >= 500;
}

async function refreshedToken(host: ConnectorHost): Promise<Token> {
  const state = tokenState(host);
  const refreshToken = state.rotatedRefreshToken ?? host.secrets.get('refreshToken').reveal();
  const basic = Buffer.from(`${String(host.config.clientId ?? '')}:${host.secrets.get('clientSecret').reveal()}`).toString('base64');
  const res = await host.http.request(String(host.config.tokenUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', authorization: `Basic ${basic}` },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }).toString(),
    timeoutMs: timeoutOf(host),
  });
  let body: { access_token?: string; refresh_token?: string; expires_in?: number; error?: string } | undefined;
  try { body = JSON.parse(res.text()); } catch { body = undefined; }
  if (res.status !== 200 || !body?.access_token) {
    // A refused refresh token (invalid_grant) needs a new authorisation by the taxpayer: no retry fixes it soon.
    const why = `ANAF's OAuth2 server gave no access token (HTTP ${res.status}${body?.error ? `, ${body.error}` : ''})`;
    throw ConnectorError.transient('ANAF_AUTH_FAILED', body?.error === 'invalid_grant' ? `${why}: the refresh token is no longer valid, authorise the application again and configure the new one` : why);
  }
  if (body.refresh_token && body.refresh_token !== refreshToken) {
    state.rotatedRefreshToken = body.refresh_token;
    host.log.info('ro-anaf: ANAF rotated the refresh token; the new one is kept in memory until restart');
  }
  const lifetimeMs = Math.max(0, Number(body.expires_in ?? 3600) * 1000 - TOKEN_MARGIN_MS);
  return { value: body.access_token, expiresAt: host.clock.now().getTime() + lifetimeMs };
}

/** The access token, refreshed when it is about to expire (one refresh at a time). */
async function accessToken(host: ConnectorHost, fresh: boolean): Promise<string> {
  const state = tokenState(host);
  if (!fresh && state.token && state.token.expiresAt > host.clock.now().getTime()) return state.token.value;
  state.pending ??= refreshedToken(host);
  try {
    state.token = await state.pending;
    return state.token.value;
  } finally {
    state.pending = undefined;
  }
}

/** An authorised call; a 401 (token revoked or expired early) gets one fresh token and one more try. */
export async function anafCall(host: ConnectorHost, url: string, init: { method: 'GET' | 'POST'; headers?: Record<string, string>; body?: Buffer | string }): Promise<HttpResponse> {
  for (let attempt = 0; ; attempt++) {
    const token = await accessToken(host, attempt > 0);
    const res = await host.http.request(url, {
      method: init.method,
      headers: { ...init.headers, authorization: `Bearer ${token}` },
      ...(init.body !== undefined ? { body: init.body } : {}),
      timeoutMs: timeoutOf(host),
    });
    if (res.status !== 401 || attempt > 0) return res;
  }
}

/** ANAF's XML answer (`header` with attributes), bounded and hardened; undefined when it is not XML. */
export function xmlAnswer(res: HttpResponse): XEl | undefined {
  if (res.body.length === 0 || res.body.length > MAX_ANSWER_BYTES) return undefined;
  try { return readTree(res.body, 'ANAF answer'); } catch { return undefined; }
}

export function jsonAnswer<T>(res: HttpResponse): T | undefined {
  if (res.body.length === 0 || res.body.length > MAX_ANSWER_BYTES) return undefined;
  try { return JSON.parse(res.text()) as T; } catch { return undefined; }
}

/** The `errorMessage` of each `Errors` / `Error` child of an ANAF XML answer. */
export function errorMessages(header: XEl | undefined): string[] {
  return [...kids(header, 'Errors'), ...kids(header, 'Error')].map((e) => attr(e, 'errorMessage')).filter((m): m is string => !!m);
}

export { attr };

/** The first rule id an ANAF error message names (`[BR-RO-010]`, `[BR-CO-15]`), for the error code. */
export function ruleIdIn(messages: readonly string[]): string | undefined {
  for (const m of messages) {
    const r = /\[((?:BR|PEPPOL|UBL|CII)-[A-Z0-9-]+)\]/.exec(m);
    if (r?.[1]) return r[1];
  }
  return undefined;
}
