/**
 * Webhook signatures, as the spec defines them: header `X-Service-Signature: t=<unix>,v1=<hex>`
 * where v1 = hex HMAC-SHA256 of `<t>.<raw body>` with the webhook secret. During a secret rotation
 * the header carries one `v1=` per valid secret (new first); a receiver accepts when any matches.
 *
 * `verifyWebhookSignature` is the receiver-side helper (no dependency beyond node:crypto; see the
 * README recipe): split on `,`, reject when |now - t| > 5 minutes, recompute on the raw body
 * (before any JSON parsing) and compare in constant time.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Service-Signature';
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/** A new signing secret (`whsec_` + 32 random bytes, base64url). */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

function hmacHex(secret: string, timestamp: number, rawBody: string | Uint8Array): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex');
}

/** The header value for `rawBody` signed at `timestamp` (unix seconds) with every secret given. */
export function signWebhookPayload(secrets: readonly string[], rawBody: string | Uint8Array, timestamp: number): string {
  return [`t=${timestamp}`, ...secrets.map((s) => `v1=${hmacHex(s, timestamp, rawBody)}`)].join(',');
}

export interface VerifyOptions {
  /** Seconds of allowed clock difference; 300 (5 minutes) by default. */
  toleranceSeconds?: number;
  /** Current unix time in seconds; the wall clock by default. */
  now?: number;
}

/**
 * True when `header` carries a valid signature of `rawBody` (the exact bytes received) by `secret`,
 * made within the tolerance.
 */
export function verifyWebhookSignature(header: string | null | undefined, rawBody: string | Uint8Array, secret: string, options: VerifyOptions = {}): boolean {
  if (!header) return false;
  let timestamp: number | undefined;
  const candidates: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't' && /^\d+$/.test(value)) timestamp = Number(value);
    else if (key === 'v1') candidates.push(value);
  }
  if (timestamp === undefined || !candidates.length) return false;
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > (options.toleranceSeconds ?? SIGNATURE_TOLERANCE_SECONDS)) return false;
  const expected = Buffer.from(hmacHex(secret, timestamp, rawBody), 'hex');
  return candidates.some((c) => {
    const given = Buffer.from(c, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/**
 * The AFNOR XP Z12-013 callback signature (`Afnor-Signature`, with `Afnor-Signature-Timestamp`):
 * the SHA-256 fingerprint (hex) of `<JSON payload as sent>@<epoch seconds>`, HMAC-SHA256'd with the
 * signing key the subscription gave (the bytes of the webhook secret), base64.
 */
export function afnorSignature(secret: string, rawBody: string, timestamp: number): string {
  const fingerprint = createHash('sha256').update(rawBody).update(`@${timestamp}`).digest('hex');
  return createHmac('sha256', secret).update(fingerprint).digest('base64');
}
