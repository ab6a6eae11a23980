/**
 * The loop of a poll-and-wake worker (the outbox dispatcher, the webhooks' feed follower): runs
 * passes over its queue until a pass has found it empty. A wake-up while a round runs joins that
 * round and asks for one more pass, since its work may have landed after the pass looked; a
 * node-cron tick polls on top, for wake-ups lost on the way. Stopping lets the current pass end
 * and starts no other. A pass that fails is logged and left for the next wake-up or tick.
 */
import { schedule, type ScheduledTask } from 'node-cron';

export class DrainLoop {
  private running?: Promise<number>;
  private again = false;
  private stopped = false;
  private task?: ScheduledTask;
  private readonly pass: (stopping: () => boolean) => Promise<number>;
  private readonly onError: (err: unknown) => void;

  /** `pass` works until the queue is empty (or `stopping()` turns true) and says how much it did. */
  constructor(pass: (stopping: () => boolean) => Promise<number>, onError: (err: unknown) => void) {
    this.pass = pass;
    this.onError = onError;
  }

  /** Polls on `cron` from now on, and runs a round at once. */
  start(cron: string): void {
    this.task = schedule(cron, () => { void this.run(); }, { noOverlap: true });
    void this.run();
  }

  /** Runs until the queue is empty; a call during a round joins it (plus one more pass). Resolves to the work done. */
  run(): Promise<number> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    const stopping = () => this.stopped;
    const round = (async () => {
      let total = 0;
      try {
        do {
          this.again = false;
          total += await this.pass(stopping);
        } while (this.again && !this.stopped);
      } catch (err) {
        if (!this.stopped) this.onError(err);
      } finally {
        this.running = undefined;
      }
      return total;
    })();
    this.running = round;
    return round;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.task?.stop();
    await this.running?.catch(() => 0);
  }
}
