/**
 * One delivery attempt over HTTP: Node's fetch, POST of the stored JSON body, redirects not
 * followed (a 3xx is a failure), a timeout (spec: 20 s), and the spec's headers.
 */
import { afnorSignature, signWebhookPayload, SIGNATURE_HEADER } from './signature.ts';
import { privateTargetProblem } from '../shared/url-policy.ts';
import { WEBHOOK_USER_AGENT } from './webhooks.contract.ts';

export interface AttemptTarget {
  url: string;
  livemode: boolean;
  secrets: string[];
  /** `afnor-flow`: the AFNOR XP Z12-013 callback headers too (signature.ts, afnorSignature). */
  format?: string;
}

export interface AttemptInput {
  deliveryId: string;
  eventId: string;
  eventType: string;
  payload: string;
  attempt: number;
}

export interface AttemptResult {
  ok: boolean;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  at: Date;
}

export async function attemptDelivery(target: AttemptTarget, input: AttemptInput, timeoutMs: number): Promise<AttemptResult> {
  const at = new Date();
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  if (target.livemode) {
    const problem = await privateTargetProblem(target.url);
    if (problem) return { ok: false, statusCode: null, latencyMs: elapsed(), error: `refused: ${problem}`, at };
  }
  const timestamp = Math.floor(Date.now() / 1000);
  try {
    const res = await fetch(target.url, {
      method: 'POST',
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
      headers: {
        'Content-Type': 'application/json',
        'User-Agent': WEBHOOK_USER_AGENT,
        [SIGNATURE_HEADER]: signWebhookPayload(target.secrets, input.payload, timestamp),
        'X-Service-Event': input.eventType,
        'X-Service-Event-Id': input.eventId,
        'X-Service-Delivery': input.deliveryId,
        'X-Service-Attempt': String(input.attempt),
        ...(target.format === 'afnor-flow' ? { 'Afnor-Signature': afnorSignature(target.secrets[0]!, input.payload, timestamp), 'Afnor-Signature-Timestamp': String(timestamp) } : {}),
      },
      body: input.payload,
    });
    // The answer's body is not needed; release the connection without reading it all.
    await res.body?.cancel().catch(() => undefined);
    const ok = res.status >= 200 && res.status < 300;
    return { ok, statusCode: res.status, latencyMs: elapsed(), error: ok ? null : res.status >= 300 && res.status < 400 ? `redirect ${res.status} not followed` : `HTTP ${res.status}`, at };
  } catch (err) {
    const e = err as Error & { cause?: { code?: string; message?: string } };
    const error = e.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : e.cause?.code ?? e.cause?.message ?? e.message;
    return { ok: false, statusCode: null, latencyMs: elapsed(), error, at };
  }
}
