/** The two rate-limit stores: the in-process one on a controlled clock, the Redis one on a real redis-server. */
import { randomUUID } from 'node:crypto';
import { MemoryRateLimitStore, RedisRateLimitStore, rateLimitHeaders, retryAfterSeconds, WINDOW_MS } from '../../../../services/gateway/rate-limit.ts';

describe('MemoryRateLimitStore', () => {
  it('slides: a slot frees exactly when the oldest counted request is 60 s old', async () => {
    let now = 1_000_000;
    const store = new MemoryRateLimitStore(() => now);
    try {
      for (let i = 0; i < 3; i++) {
        expect((await store.hit('key_a', 'org_a', 3)).allowed).toBe(true);
        now += 10_000;
      }
      // t = 30 s: window full; the first request (t = 0) frees its slot at t = 60 s.
      const refused = await store.hit('key_a', 'org_a', 3);
      expect(refused).toMatchObject({ allowed: false, remaining: 0, resetMs: 30_000 });
      expect(retryAfterSeconds(refused)).toBe(30);
      now = 1_000_000 + WINDOW_MS - 1;
      expect((await store.hit('key_a', 'org_a', 3)).allowed).toBe(false);
      now = 1_000_000 + WINDOW_MS;
      const admitted = await store.hit('key_a', 'org_a', 3);
      expect(admitted).toMatchObject({ allowed: true, remaining: 0 });
      // Other keys are untouched.
      expect(await store.hit('key_b', 'org_a', 3)).toMatchObject({ allowed: true, remaining: 2 });
    } finally {
      await store.close();
    }
  });

  it('forced exhaustion refuses every key of the organization until it ends', async () => {
    let now = 0;
    const store = new MemoryRateLimitStore(() => now);
    try {
      await store.exhaust('org_x', 5);
      const d = await store.hit('key_1', 'org_x', 100);
      expect(d).toMatchObject({ allowed: false, forcedMs: 5000 });
      expect(retryAfterSeconds(d)).toBe(5);
      expect(rateLimitHeaders(d)['RateLimit-Remaining']).toBe('0');
      expect((await store.hit('key_2', 'org_y', 100)).allowed).toBe(true);
      now = 5000;
      expect((await store.hit('key_1', 'org_x', 100)).allowed).toBe(true);
    } finally {
      await store.close();
    }
  });
});

describe('rateLimitHeaders', () => {
  it('writes the IETF and the legacy headers: Reset in delta-seconds, legacy Reset as a Unix time', () => {
    const headers = rateLimitHeaders({ allowed: true, limit: 300, remaining: 12, resetMs: 41_200, forcedMs: 0, now: 1_700_000_000_000 });
    expect(headers).toEqual({
      'RateLimit-Limit': '300', 'RateLimit-Remaining': '12', 'RateLimit-Reset': '42', 'RateLimit-Policy': '300;w=60',
      'X-RateLimit-Limit': '300', 'X-RateLimit-Remaining': '12', 'X-RateLimit-Reset': '1700000042',
    });
  });
});

describe('RedisRateLimitStore (real redis-server)', () => {
  it('is atomic: 200 concurrent hits on a limit of 50 admit exactly 50, across two clients (replicas)', async () => {
    const a = new RedisRateLimitStore(process.env.EINV_TEST_REDIS_URL!, `test:${randomUUID()}:`);
    try {
      const credential = `key_${randomUUID()}`;
      const decisions = await Promise.all(Array.from({ length: 200 }, () => a.hit(credential, 'org_r', 50)));
      expect(decisions.filter((d) => d.allowed)).toHaveLength(50);
      const refused = decisions.find((d) => !d.allowed)!;
      expect(refused.remaining).toBe(0);
      expect(refused.resetMs).toBeGreaterThan(WINDOW_MS - 5000);
      expect(refused.resetMs).toBeLessThanOrEqual(WINDOW_MS);
    } finally {
      await a.close();
    }
  });

  it('shares windows and forced exhaustion between clients with the same prefix', async () => {
    const prefix = `test:${randomUUID()}:`;
    const a = new RedisRateLimitStore(process.env.EINV_TEST_REDIS_URL!, prefix);
    const b = new RedisRateLimitStore(process.env.EINV_TEST_REDIS_URL!, prefix);
    try {
      expect((await a.hit('key_s', 'org_s', 2)).remaining).toBe(1);
      expect((await b.hit('key_s', 'org_s', 2)).remaining).toBe(0);
      expect((await a.hit('key_s', 'org_s', 2)).allowed).toBe(false);
      await b.exhaust('org_t', 3);
      const forced = await a.hit('key_t', 'org_t', 10);
      expect(forced.allowed).toBe(false);
      expect(forced.forcedMs).toBeGreaterThan(2000);
      expect(retryAfterSeconds(forced)).toBe(3);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('fails fast when Redis does not answer, so the gateway can serve uncounted', async () => {
    const dead = new RedisRateLimitStore('redis://127.0.0.1:1', `test:${randomUUID()}:`);
    try {
      const started = Date.now();
      await expect(dead.hit('key_d', 'org_d', 10)).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      await dead.close();
    }
  });
});
