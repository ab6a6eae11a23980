/**
 * The e-invoicing exchange API from TypeScript: `paths` and `components` are generated from the
 * OpenAPI document (`npm run generate`), calls go through openapi-fetch, so every body, parameter
 * and answer is typed with no casts. Around it: the API key, an Idempotency-Key on every POST that
 * has none (a retried send is never a second invoice), retries of 429 and 503 that wait what
 * `Retry-After` says, and the webhook signature verifier.
 */
import createClient, { type Client } from 'openapi-fetch';
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import type { components, paths, webhooks } from './schema.ts';

export type { components, paths, webhooks };
export type Schemas = components['schemas'];
/** The body of POST /v1/documents/send (and of each batch item). */
export type SendEnvelope = NonNullable<paths['/v1/documents/send']['post']['requestBody']>['content']['application/json'];
/** The structured document of a JSON send. */
export type JsonDocument = NonNullable<SendEnvelope['document']>;

export interface ExchangeClientOptions {
  /** The deployment's base URL, e.g. `https://einvoicing.example.org`. */
  baseUrl: string;
  /** An API key (`svc_…`) or an OAuth access token. */
  apiKey: string;
  /** Platform and white-label keys: the company every call acts for (X-Service-Company). */
  company?: string;
  /** Retries of a 429 or 503 answer, each after its Retry-After (default 3). */
  maxRetries?: number;
  /** Longest wait before a retry, in seconds (default 60): a longer Retry-After is returned to the caller. */
  maxWaitSeconds?: number;
  fetch?: typeof fetch;
}

const RETRIED = new Set([429, 503]);

/** Seconds a Retry-After header asks for (delta-seconds or an HTTP date), or undefined. */
function retryAfterSeconds(value: string | null): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

/** A fetch that adds the credential and the Idempotency-Key, and retries 429/503 as the server asks. */
function exchangeFetch(options: ExchangeClientOptions): typeof fetch {
  const base = options.fetch ?? fetch;
  const maxRetries = options.maxRetries ?? 3;
  const maxWait = options.maxWaitSeconds ?? 60;
  return async (input, init) => {
    const request = new Request(input, init);
    request.headers.set('authorization', `Bearer ${options.apiKey}`);
    if (options.company && !request.headers.has('x-service-company')) request.headers.set('x-service-company', options.company);
    // One key for every attempt of this call: the server answers a retry with the first answer.
    if (request.method === 'POST' && !request.headers.has('idempotency-key')) request.headers.set('idempotency-key', randomUUID());
    for (let attempt = 0; ; attempt++) {
      const response = await base(request.clone());
      const wait = retryAfterSeconds(response.headers.get('retry-after'));
      if (!RETRIED.has(response.status) || attempt >= maxRetries || wait === undefined || wait > maxWait) return response;
      await response.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, wait * 1000));
    }
  };
}

export type ExchangeClient = Client<paths>;

export function createExchangeClient(options: ExchangeClientOptions): ExchangeClient {
  return createClient<paths>({ baseUrl: options.baseUrl.replace(/\/$/, ''), fetch: exchangeFetch(options) });
}

export interface VerifiedWebhook<T = unknown> {
  event: T;
  /** Unix seconds the delivery was signed at. */
  signedAt: number;
}

/**
 * Verifies a webhook delivery the documented way: `X-Service-Signature: t=<unix>,v1=<hex>[,v1=…]`,
 * each v1 the HMAC-SHA256 of `<t>.<raw body>` under a webhook secret (two during a rotation).
 * Pass the raw body bytes exactly as received, before any JSON parsing. Throws when no signature
 * matches or the timestamp is further than `toleranceSeconds` from now.
 */
export function verifyWebhook<T = unknown>(rawBody: string | Uint8Array, signatureHeader: string, secrets: string | readonly string[], toleranceSeconds = 300): VerifiedWebhook<T> {
  const parts = signatureHeader.split(',').map((p) => p.trim().split('=') as [string, string]);
  const t = Number(parts.find(([k]) => k === 't')?.[1]);
  const candidates = parts.filter(([k]) => k === 'v1').map(([, v]) => v);
  if (!Number.isInteger(t) || !candidates.length) throw new Error('webhook: the signature header is not t=<unix>,v1=<hex>');
  if (Math.abs(Date.now() / 1000 - t) > toleranceSeconds) throw new Error('webhook: the signature is too old or from the future');
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : Buffer.from(rawBody);
  const signed = Buffer.concat([Buffer.from(`${t}.`, 'utf8'), body]);
  const matches = (typeof secrets === 'string' ? [secrets] : secrets).some((secret) => {
    const expected = createHmac('sha256', secret).update(signed).digest();
    return candidates.some((hex) => {
      const given = Buffer.from(hex, 'hex');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
  });
  if (!matches) throw new Error('webhook: no signature matches the secret(s)');
  return { event: JSON.parse(body.toString('utf8')) as T, signedAt: t };
}
