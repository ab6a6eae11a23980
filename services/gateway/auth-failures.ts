/**
 * Throttle of failed authentications: bad, revoked or expired keys and tokens per client IP, wrong
 * client secrets at /oauth/token per client IP and per client id. Past `limit` failures in the
 * window the caller gets 429 RATE_LIMITED with Retry-After instead of another verdict on its
 * guess. Counted in Redis when REDIS_URL is set (every replica sees the same count), in-process
 * otherwise. A store that does not answer lets the attempt through (fail open) and says so.
 */
import type { ServiceBroker } from 'moleculer';
import { DomainError, specCodeOf, type ErrorCode } from '../shared/errors.ts';
import type { CredentialsConfig } from '../shared/config.ts';
import { createFailureStore, type FailureCount, type FailureStore } from './rate-limit.ts';

/** The verdicts that mean "this credential is not good": each one counts. */
const FAILURE_CODES: ReadonlySet<ErrorCode> = new Set(['INVALID_TOKEN', 'EXPIRED_TOKEN', 'REVOKED_KEY', 'INVALID_CLIENT', 'INVALID_GRANT']);

export const isAuthFailure = (err: unknown): boolean => {
  const code = specCodeOf(err);
  return code !== undefined && FAILURE_CODES.has(code);
};

export const ipKey = (ip: string) => `ip:${ip}`;
export const clientKey = (clientId: string) => `client:${clientId}`;

export class AuthFailureThrottle {
  private readonly store: FailureStore;
  private readonly limit: number;
  private readonly windowMs: number;
  private readonly logger: ServiceBroker['logger'];

  constructor(config: Pick<CredentialsConfig, 'authFailureLimit' | 'authFailureWindowSeconds'>, redisUrl: string | undefined, logger: ServiceBroker['logger']) {
    this.store = createFailureStore(redisUrl);
    this.limit = config.authFailureLimit;
    this.windowMs = config.authFailureWindowSeconds * 1000;
    this.logger = logger;
  }

  private refusal(counts: FailureCount[]): DomainError {
    const wait = Math.max(1, ...counts.map((c) => Math.ceil(c.resetMs / 1000)));
    return new DomainError('RATE_LIMITED', `Too many failed authentications from this client; retry in ${wait} s`, { retryAfter: wait });
  }

  /** Before an attempt: refuses when any key already has `limit` failures in the window. */
  async check(keys: string[]): Promise<void> {
    let counts: FailureCount[];
    try {
      counts = await Promise.all(keys.map((k) => this.store.peek(k, this.windowMs)));
    } catch (err) {
      this.logger.warn('auth-failure throttle unavailable, attempt not checked:', err);
      return;
    }
    const over = counts.filter((c) => c.count >= this.limit);
    if (over.length) throw this.refusal(over);
  }

  /**
   * After a failed attempt: counts it against every key, and returns the error to answer with —
   * the attempt's own, or RATE_LIMITED once a key has gone past the limit.
   */
  async fail(keys: string[], err: unknown): Promise<unknown> {
    let counts: FailureCount[];
    try {
      counts = await Promise.all(keys.map((k) => this.store.record(k, this.windowMs)));
    } catch (storeErr) {
      this.logger.warn('auth-failure throttle unavailable, failure not counted:', storeErr);
      return err;
    }
    const over = counts.filter((c) => c.count > this.limit);
    return over.length ? this.refusal(over) : err;
  }

  close(): Promise<void> {
    return this.store.close();
  }
}
