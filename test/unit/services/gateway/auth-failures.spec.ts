/** Failed-authentication counting: both stores (in-process on a controlled clock, Redis on a real redis-server) and the throttle's verdicts. */
import { randomUUID } from 'node:crypto';
import { MemoryFailureStore, RedisFailureStore, type FailureStore } from '../../../../services/gateway/rate-limit.ts';
import { AuthFailureThrottle, isAuthFailure } from '../../../../services/gateway/auth-failures.ts';
import { DomainError } from '../../../../services/shared/errors.ts';

const quiet = { warn: () => undefined } as unknown as ConstructorParameters<typeof AuthFailureThrottle>[2];

describe('MemoryFailureStore', () => {
  it('counts failures per key in a sliding window of the caller\'s length; peek does not count', async () => {
    let now = 1_000_000;
    const store = new MemoryFailureStore(() => now);
    try {
      expect(await store.peek('ip:a', 10_000)).toEqual({ count: 0, resetMs: 0 });
      expect(await store.record('ip:a', 10_000)).toEqual({ count: 1, resetMs: 10_000 });
      now += 4_000;
      expect(await store.record('ip:a', 10_000)).toEqual({ count: 2, resetMs: 6_000 });
      expect(await store.peek('ip:a', 10_000)).toEqual({ count: 2, resetMs: 6_000 });
      expect(await store.peek('ip:b', 10_000)).toEqual({ count: 0, resetMs: 0 });
      now += 6_000; // the first failure leaves the window
      expect(await store.peek('ip:a', 10_000)).toEqual({ count: 1, resetMs: 4_000 });
    } finally {
      await store.close();
    }
  });
});

describe('RedisFailureStore (real redis-server)', () => {
  it('counts atomically across clients (replicas) and peeks without counting', async () => {
    const prefix = `test:${randomUUID()}:`;
    const a: FailureStore = new RedisFailureStore(process.env.EINV_TEST_REDIS_URL!, prefix);
    const b: FailureStore = new RedisFailureStore(process.env.EINV_TEST_REDIS_URL!, prefix);
    try {
      await Promise.all(Array.from({ length: 40 }, (_, n) => (n % 2 ? a : b).record('client:cli_x', 60_000)));
      const seen = await b.peek('client:cli_x', 60_000);
      expect(seen.count).toBe(40);
      expect(seen.resetMs).toBeGreaterThan(55_000);
      expect(seen.resetMs).toBeLessThanOrEqual(60_000);
      expect((await a.peek('client:cli_x', 60_000)).count).toBe(40);
      expect((await a.peek('client:cli_other', 60_000)).count).toBe(0);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe('AuthFailureThrottle', () => {
  it('answers the first N failures with their own error, then RATE_LIMITED with a Retry-After; check refuses once N are counted', async () => {
    const throttle = new AuthFailureThrottle({ authFailureLimit: 3, authFailureWindowSeconds: 30 }, undefined, quiet);
    try {
      const invalid = new DomainError('INVALID_TOKEN', 'nope');
      for (let n = 0; n < 3; n++) {
        await throttle.check(['ip:1']);
        expect(await throttle.fail(['ip:1'], invalid)).toBe(invalid);
      }
      await expect(throttle.check(['ip:2', 'ip:1'])).rejects.toMatchObject({ type: 'RATE_LIMITED', data: { retryAfter: 30 } });
      const fourth = await throttle.fail(['ip:1'], invalid) as DomainError;
      expect(fourth).toMatchObject({ type: 'RATE_LIMITED', data: { retryAfter: 30 } });
      await expect(throttle.check(['ip:2'])).resolves.toBeUndefined();
    } finally {
      await throttle.close();
    }
  });

  it('lets attempts through when its Redis does not answer (fail open), and counts only credential verdicts', async () => {
    const throttle = new AuthFailureThrottle({ authFailureLimit: 1, authFailureWindowSeconds: 30 }, 'redis://127.0.0.1:1', quiet);
    try {
      const invalid = new DomainError('INVALID_CLIENT', 'nope');
      await expect(throttle.check(['ip:x'])).resolves.toBeUndefined();
      expect(await throttle.fail(['ip:x'], invalid)).toBe(invalid);
    } finally {
      await throttle.close();
    }
    expect(['INVALID_TOKEN', 'EXPIRED_TOKEN', 'REVOKED_KEY', 'INVALID_CLIENT'].every((code) => isAuthFailure(new DomainError(code as 'INVALID_TOKEN', 'x')))).toBe(true);
    expect(isAuthFailure(new DomainError('ORGANIZATION_FORBIDDEN', 'x'))).toBe(false);
    expect(isAuthFailure(new Error('boom'))).toBe(false);
  });
});
