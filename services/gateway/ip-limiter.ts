/**
 * Sliding-window limiter per client IP for public calls (sandbox bootstrap): a log of the last
 * `limit` timestamps per IP. In-process: each gateway replica counts on its own, which only makes
 * the public limit stricter per replica set, never looser than `limit × replicas`.
 */
export class IpLimiter {
  readonly #hits = new Map<string, number[]>();
  readonly #limit: number;
  readonly #windowMs: number;

  constructor(limit: number, windowMs: number) {
    this.#limit = limit;
    this.#windowMs = windowMs;
  }

  /** Records a hit; returns 0 when allowed, else the seconds until the oldest hit leaves the window. */
  hit(ip: string, now: number): number {
    const since = now - this.#windowMs;
    const log = (this.#hits.get(ip) ?? []).filter((t) => t > since);
    if (log.length >= this.#limit) {
      this.#hits.set(ip, log);
      return Math.max(1, Math.ceil((log[0]! + this.#windowMs - now) / 1000));
    }
    log.push(now);
    this.#hits.set(ip, log);
    if (this.#hits.size > 100_000) this.#sweep(since);
    return 0;
  }

  #sweep(since: number): void {
    for (const [ip, log] of this.#hits) if ((log.at(-1) ?? 0) <= since) this.#hits.delete(ip);
  }
}
