/**
 * Per-credential rate limits: a 60-second sliding window (every counted request is remembered
 * with its instant, so the window slides exactly, no fixed buckets) with the organization's plan
 * limit, and the sandbox's forced exhaustion per organization.
 *
 * Two stores behind one interface: Redis (ioredis + one Lua script, so check-and-count is atomic
 * and every gateway replica shares the same window; Redis's own clock is used so replicas' clocks
 * need not agree) when REDIS_URL is set, an in-process store otherwise.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

export const WINDOW_MS = 60_000;


export interface RateDecision {
  allowed: boolean;
  limit: number;
  /** Requests still allowed in the current window (after this one). */
  remaining: number;
  /** Milliseconds until the oldest counted request leaves the window, i.e. until a slot frees. */
  resetMs: number;
  /** Milliseconds the organization's forced exhaustion (sandbox) still lasts; 0 when none. */
  forcedMs: number;
  /** The store's clock at the decision, in ms since the epoch. */
  now: number;
}

export interface RateLimitStore {
  readonly kind: 'redis' | 'memory';
  /** Counts one request of `credential` (of `organizationId`) if the window has room. */
  hit(credential: string, organizationId: string, limit: number): Promise<RateDecision>;
  /** Every request of the organization is refused for `seconds` (sandbox control). */
  exhaust(organizationId: string, seconds: number): Promise<void>;
  close(): Promise<void>;
}

/** In-process store: one array of instants per credential, pruned as the window slides. */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly kind = 'memory' as const;
  private readonly windows = new Map<string, number[]>();
  private readonly forcedUntil = new Map<string, number>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly clock: () => number;

  constructor(clock: () => number = Date.now) {
    this.clock = clock;
    // Credentials that went quiet are forgotten, so the map stays as large as the active set.
    this.sweeper = setInterval(() => this.sweep(), WINDOW_MS);
    this.sweeper.unref();
  }

  async hit(credential: string, organizationId: string, limit: number): Promise<RateDecision> {
    const now = this.clock();
    const forcedMs = Math.max(0, (this.forcedUntil.get(organizationId) ?? 0) - now);
    let hits = this.windows.get(credential);
    if (!hits) this.windows.set(credential, (hits = []));
    let expired = 0;
    while (expired < hits.length && hits[expired]! <= now - WINDOW_MS) expired++;
    if (expired) hits.splice(0, expired);
    const allowed = forcedMs === 0 && hits.length < limit;
    if (allowed) hits.push(now);
    const resetMs = hits.length ? hits[0]! + WINDOW_MS - now : 0;
    return { allowed, limit, remaining: Math.max(0, limit - hits.length), resetMs, forcedMs, now };
  }

  async exhaust(organizationId: string, seconds: number): Promise<void> {
    this.forcedUntil.set(organizationId, this.clock() + seconds * 1000);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }

  private sweep(): void {
    const now = this.clock();
    for (const [key, hits] of this.windows) if (!hits.length || hits.at(-1)! <= now - WINDOW_MS) this.windows.delete(key);
    for (const [org, until] of this.forcedUntil) if (until <= now) this.forcedUntil.delete(org);
  }
}

/**
 * KEYS[1]: the credential's window (a sorted set of instants), KEYS[2]: the organization's
 * forced-exhaustion marker. ARGV: limit, window ms, a unique member suffix.
 * Returns {allowed, count, resetMs, forcedMs, now}.
 */
const SLIDING_WINDOW_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local forced = redis.call('PTTL', KEYS[2])
if forced < 0 then forced = 0 end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
local allowed = 0
if forced == 0 and count < limit then
  redis.call('ZADD', KEYS[1], now, now .. '-' .. ARGV[3])
  redis.call('PEXPIRE', KEYS[1], window)
  count = count + 1
  allowed = 1
end
local reset = 0
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if oldest[2] then reset = tonumber(oldest[2]) + window - now end
return {allowed, count, reset, forced, now}
`;

type SlidingWindowRedis = Redis & {
  einvSlidingWindow(windowKey: string, forcedKey: string, limit: number, windowMs: number, member: string): Promise<[number, number, number, number, number]>;
};

export class RedisRateLimitStore implements RateLimitStore {
  readonly kind = 'redis' as const;
  private readonly redis: SlidingWindowRedis;
  private counter = 0;
  private readonly instance = randomBytes(6).toString('hex');
  private readonly prefix: string;

  constructor(url: string, prefix = 'einv:rl:') {
    this.prefix = prefix;
    // A Redis that does not answer within a second fails the call, and the gateway serves uncounted.
    const redis = new Redis(url, { maxRetriesPerRequest: 1, commandTimeout: 1000, enableOfflineQueue: true, lazyConnect: false });
    // ioredis sends EVALSHA and falls back to EVAL when the script is not cached yet.
    redis.defineCommand('einvSlidingWindow', { numberOfKeys: 2, lua: SLIDING_WINDOW_LUA });
    redis.on('error', () => { /* reported through the failing commands */ });
    this.redis = redis as SlidingWindowRedis;
  }

  async hit(credential: string, organizationId: string, limit: number): Promise<RateDecision> {
    const member = `${this.instance}-${(this.counter = (this.counter + 1) % 1e9)}`;
    const [allowed, count, resetMs, forcedMs, now] = await this.redis.einvSlidingWindow(
      `${this.prefix}w:${credential}`, `${this.prefix}force:${organizationId}`, limit, WINDOW_MS, member,
    );
    return { allowed: allowed === 1, limit, remaining: Math.max(0, limit - count), resetMs, forcedMs, now };
  }

  async exhaust(organizationId: string, seconds: number): Promise<void> {
    await this.redis.set(`${this.prefix}force:${organizationId}`, '1', 'PX', seconds * 1000);
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}

export function createRateLimitStore(redisUrl: string | undefined): RateLimitStore {
  return redisUrl ? new RedisRateLimitStore(redisUrl) : new MemoryRateLimitStore();
}

/** Seconds a refused client should wait: the forced exhaustion, else until a slot frees. */
export function retryAfterSeconds(d: RateDecision): number {
  return Math.max(1, Math.ceil((d.forcedMs > 0 ? d.forcedMs : d.resetMs) / 1000));
}

/**
 * The spec's headers, on every response: IETF `RateLimit-*` (Reset in delta-seconds until a slot
 * frees) and the legacy `X-RateLimit-*` (Reset as a Unix timestamp).
 */
export function rateLimitHeaders(d: RateDecision): Record<string, string> {
  const resetSeconds = d.forcedMs > 0 ? Math.ceil(d.forcedMs / 1000) : Math.ceil(d.resetMs / 1000);
  const remaining = d.forcedMs > 0 ? 0 : d.remaining;
  return {
    'RateLimit-Limit': String(d.limit),
    'RateLimit-Remaining': String(remaining),
    'RateLimit-Reset': String(resetSeconds),
    'RateLimit-Policy': `${d.limit};w=${WINDOW_MS / 1000}`,
    'X-RateLimit-Limit': String(d.limit),
    'X-RateLimit-Remaining': String(remaining),
    'X-RateLimit-Reset': String(Math.ceil((d.now + resetSeconds * 1000) / 1000)),
  };
}


// ---------- failed authentications ----------

export interface FailureCount {
  /** Failures of the key within the window (this one included, for `record`). */
  count: number;
  /** Milliseconds until the oldest counted failure leaves the window. */
  resetMs: number;
}

/**
 * Failed authentications per key (a client IP, a client id), in a sliding window of the caller's
 * length: `record` counts one, `peek` only reads. Same two stores as the rate limits.
 */
export interface FailureStore {
  readonly kind: 'redis' | 'memory';
  peek(key: string, windowMs: number): Promise<FailureCount>;
  record(key: string, windowMs: number): Promise<FailureCount>;
  close(): Promise<void>;
}

/** Keys keep at most this many instants: enough to refuse, bounded whatever an attacker sends. */
const FAILURES_KEPT = 10_000;

export class MemoryFailureStore implements FailureStore {
  readonly kind = 'memory' as const;
  private readonly failures = new Map<string, number[]>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly clock: () => number;
  private longestWindowMs = 0;

  constructor(clock: () => number = Date.now) {
    this.clock = clock;
    this.sweeper = setInterval(() => this.sweep(), WINDOW_MS);
    this.sweeper.unref();
  }

  private window(key: string, windowMs: number): { hits: number[]; now: number } {
    const now = this.clock();
    this.longestWindowMs = Math.max(this.longestWindowMs, windowMs);
    const hits = this.failures.get(key) ?? [];
    let expired = 0;
    while (expired < hits.length && hits[expired]! <= now - windowMs) expired++;
    if (expired) hits.splice(0, expired);
    return { hits, now };
  }

  async peek(key: string, windowMs: number): Promise<FailureCount> {
    const { hits, now } = this.window(key, windowMs);
    return { count: hits.length, resetMs: hits.length ? hits[0]! + windowMs - now : 0 };
  }

  async record(key: string, windowMs: number): Promise<FailureCount> {
    const { hits, now } = this.window(key, windowMs);
    hits.push(now);
    if (hits.length > FAILURES_KEPT) hits.splice(0, hits.length - FAILURES_KEPT);
    this.failures.set(key, hits);
    return { count: hits.length, resetMs: hits[0]! + windowMs - now };
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }

  private sweep(): void {
    const now = this.clock();
    for (const [key, hits] of this.failures) if (!hits.length || hits.at(-1)! <= now - this.longestWindowMs) this.failures.delete(key);
  }
}

/** KEYS[1]: the key's window. ARGV: window ms, record (1) or peek (0), member suffix, kept. Returns {count, resetMs}. */
const FAILURES_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if ARGV[2] == '1' then
  redis.call('ZADD', KEYS[1], now, now .. '-' .. ARGV[3])
  redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -(tonumber(ARGV[4]) + 1))
  redis.call('PEXPIRE', KEYS[1], window)
end
local count = redis.call('ZCARD', KEYS[1])
local reset = 0
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if oldest[2] then reset = tonumber(oldest[2]) + window - now end
return {count, reset}
`;

type FailuresRedis = Redis & {
  einvFailures(key: string, windowMs: number, record: '0' | '1', member: string, kept: number): Promise<[number, number]>;
};

export class RedisFailureStore implements FailureStore {
  readonly kind = 'redis' as const;
  private readonly redis: FailuresRedis;
  private counter = 0;
  private readonly instance = randomBytes(6).toString('hex');
  private readonly prefix: string;

  constructor(url: string, prefix = 'einv:authfail:') {
    this.prefix = prefix;
    const redis = new Redis(url, { maxRetriesPerRequest: 1, commandTimeout: 1000, enableOfflineQueue: true, lazyConnect: false });
    redis.defineCommand('einvFailures', { numberOfKeys: 1, lua: FAILURES_LUA });
    redis.on('error', () => { /* reported through the failing commands */ });
    this.redis = redis as FailuresRedis;
  }

  private async run(key: string, windowMs: number, record: '0' | '1'): Promise<FailureCount> {
    const member = `${this.instance}-${(this.counter = (this.counter + 1) % 1e9)}`;
    const [count, resetMs] = await this.redis.einvFailures(`${this.prefix}${key}`, windowMs, record, member, FAILURES_KEPT);
    return { count, resetMs };
  }

  peek(key: string, windowMs: number): Promise<FailureCount> {
    return this.run(key, windowMs, '0');
  }

  record(key: string, windowMs: number): Promise<FailureCount> {
    return this.run(key, windowMs, '1');
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}

export function createFailureStore(redisUrl: string | undefined): FailureStore {
  return redisUrl ? new RedisFailureStore(redisUrl) : new MemoryFailureStore();
}
