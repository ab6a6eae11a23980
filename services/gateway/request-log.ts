/**
 * The gateway's side of the request log: a bounded in-memory buffer that never blocks a
 * response. Entries are written in batches (one multi-row insert each) by a single flusher; when
 * the buffer is full new entries are dropped and counted, never waited for.
 *
 * Entries of many tenants share a batch, so one entry must never take the others down: strings
 * PostgreSQL refuses (a NUL sent by a hostile client) are replaced before queueing, and a batch
 * that still fails is written again entry by entry, so only an entry that fails alone is lost.
 */
import type { RequestLogInput } from '../requests/requests.contract.ts';
import { storable } from '../shared/pg-text.ts';

export interface RequestLogStats {
  /** Entries accepted into the buffer. */
  captured: number;
  written: number;
  /** Entries refused because the buffer was full. */
  dropped: number;
  /** Entries lost because a batch could not be written after its retries. */
  failed: number;
  batches: number;
  /** Largest number of entries waiting at once. */
  maxDepth: number;
  /** Slowest batch write, in ms. */
  maxFlushMs: number;
}

export interface RequestLogBufferOptions {
  /** Most entries held in memory. */
  capacity: number;
  /** Most entries per insert. */
  batchSize: number;
  /** A partial batch waits at most this long. */
  flushIntervalMs: number;
  /** Attempts per batch before its entries are counted as failed. */
  attempts?: number;
}

export type WriteBatch = (entries: RequestLogInput[]) => Promise<void>;

export class RequestLogBuffer {
  private queue: RequestLogInput[] = [];
  private flushing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly write: WriteBatch;
  private readonly options: Required<RequestLogBufferOptions>;
  readonly stats: RequestLogStats = { captured: 0, written: 0, dropped: 0, failed: 0, batches: 0, maxDepth: 0, maxFlushMs: 0 };

  constructor(write: WriteBatch, options: RequestLogBufferOptions) {
    this.write = write;
    this.options = { attempts: 3, ...options };
  }

  /** Never awaits: the response this entry describes is already on its way. */
  push(entry: RequestLogInput): void {
    if (this.queue.length >= this.options.capacity) {
      this.stats.dropped++;
      return;
    }
    this.queue.push(storable(entry));
    this.stats.captured++;
    if (this.queue.length > this.stats.maxDepth) this.stats.maxDepth = this.queue.length;
    if (this.queue.length >= this.options.batchSize) this.kick();
    else if (!this.timer && !this.stopped) {
      this.timer = setTimeout(() => { this.timer = undefined; this.kick(); }, this.options.flushIntervalMs);
      this.timer.unref();
    }
  }

  get depth(): number {
    return this.queue.length;
  }

  /** Writes everything buffered so far (tests, shutdown). */
  async flush(): Promise<void> {
    while (this.queue.length || this.flushing) {
      this.kick();
      await this.flushing;
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  private kick(): void {
    if (this.flushing || !this.queue.length) return;
    this.flushing = this.drain().finally(() => {
      this.flushing = undefined;
      // Entries that arrived during the last write are written right away.
      if (this.queue.length) this.kick();
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length) {
      const batch = this.queue.splice(0, this.options.batchSize);
      const started = performance.now();
      let attempt = 0;
      for (;;) {
        try {
          await this.write(batch);
          this.stats.written += batch.length;
          this.stats.batches++;
          break;
        } catch {
          if (++attempt >= this.options.attempts) {
            await this.writeOneByOne(batch);
            break;
          }
          await new Promise((r) => setTimeout(r, 50 * 2 ** attempt));
        }
      }
      const ms = performance.now() - started;
      if (ms > this.stats.maxFlushMs) this.stats.maxFlushMs = ms;
    }
  }

  /** A batch that kept failing: each entry on its own, so the others of the batch survive the bad one. */
  private async writeOneByOne(batch: RequestLogInput[]): Promise<void> {
    if (batch.length === 1) {
      this.stats.failed++;
      return;
    }
    for (const entry of batch) {
      try {
        await this.write([entry]);
        this.stats.written++;
        this.stats.batches++;
      } catch {
        this.stats.failed++;
      }
    }
  }
}
