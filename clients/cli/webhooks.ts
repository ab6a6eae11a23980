/**
 * `einv webhooks verify`: checks a delivery's `X-Service-Signature` locally, with the typed
 * client's verifier (the documented scheme: `t=<unix>,v1=<hex>`, HMAC-SHA256 of `<t>.<raw body>`,
 * 5 minutes of tolerance, constant-time comparison). The body is read as raw bytes (a file or
 * stdin), never re-serialised: one changed byte must fail. Exit code 0 valid, 1 not.
 */
import { readFileSync } from 'node:fs';
import { verifyWebhook } from '../typescript/src/index.ts';
import { UsageError } from './context.ts';

export interface VerifyOptions { secret?: string; signature?: string; body?: string; tolerance?: string }

export function webhooksVerifyCommand(options: VerifyOptions): number {
  const secret = options.secret ?? process.env.EINV_WEBHOOK_SECRET;
  if (!secret) throw new UsageError('--secret <whsec_…> (or EINV_WEBHOOK_SECRET) is required');
  if (!options.signature) throw new UsageError('--signature "<X-Service-Signature header value>" is required');
  const raw = options.body && options.body !== '-' ? readFileSync(options.body) : readFileSync(0);
  try {
    const { event, signedAt } = verifyWebhook<{ id?: string; type?: string }>(raw, options.signature, secret.split(','), Number(options.tolerance ?? 300));
    process.stdout.write(`valid signature: ${event.type ?? 'event'} ${event.id ?? ''} signed at ${new Date(signedAt * 1000).toISOString()}\n`);
    return 0;
  } catch (err) {
    process.stdout.write(`INVALID signature: ${(err as Error).message.replace(/^webhook: /, '')}\n`);
    return 1;
  }
}
