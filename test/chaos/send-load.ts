/**
 * A steady send load the way the README tells clients to behave: every send carries an
 * `Idempotency-Key`, and a send that fails with a 5xx, a 409 (the same key still in flight) or a
 * network error is sent again with the same key after a short pause, until it is answered or a
 * deadline passes. Every failure is kept with its time, so the chaos suite can say what clients saw
 * during each fault.
 */

export interface Failure { at: number; status: number | string }

export interface SendOutcome {
  key: string;
  startedAt: number;
  /** Set once a 2xx answered: the document's id. */
  id?: string;
  answeredAt?: number;
  attempts: number;
  /** What each failed attempt got: a status code or a network error's code. */
  failedWith: Array<number | string>;
  gaveUp: boolean;
}

export interface SendLoadOptions {
  baseUrl: string;
  apiKey: string;
  /** The send body for the n-th send (a new invoice number each time). */
  body: (n: number) => unknown;
  workers: number;
  /** Pause between one worker's sends. */
  intervalMs: number;
  /** How long one send keeps being retried before the client gives up. */
  retryForMs: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class SendLoad {
  readonly outcomes: SendOutcome[] = [];
  readonly failures: Failure[] = [];
  private running = false;
  private loops: Array<Promise<void>> = [];
  private sequence = 0;
  private readonly options: SendLoadOptions;

  constructor(options: SendLoadOptions) {
    this.options = options;
  }

  start(): void {
    this.running = true;
    this.loops = Array.from({ length: this.options.workers }, () => this.loop());
  }

  /** Stops starting new sends and waits until every started one is answered or given up. */
  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  /** One send, retried with its key until answered: the probe the suite uses to see the service is back. */
  async sendOnce(): Promise<SendOutcome> {
    const n = ++this.sequence;
    const outcome: SendOutcome = { key: `chaos-${process.pid}-${n}`, startedAt: Date.now(), attempts: 0, failedWith: [], gaveUp: false };
    this.outcomes.push(outcome);
    const deadline = outcome.startedAt + this.options.retryForMs;
    const body = JSON.stringify(this.options.body(n));
    while (Date.now() < deadline) {
      outcome.attempts++;
      const status = await this.attempt(outcome.key, body).catch((err: Error & { cause?: { code?: string } }) => err.cause?.code ?? err.name);
      if (typeof status === 'object') {
        outcome.id = status.id;
        outcome.answeredAt = Date.now();
        return outcome;
      }
      this.failures.push({ at: Date.now(), status });
      outcome.failedWith.push(status);
      if (typeof status === 'number' && status < 500 && status !== 409 && status !== 429) break; // a client error is no fault of the topology
      await sleep(250);
    }
    outcome.gaveUp = true;
    return outcome;
  }

  accepted(): Map<string, string> {
    return new Map(this.outcomes.filter((o) => o.id).map((o) => [o.key, o.id!]));
  }

  /** Failures seen by clients between two instants, by kind. */
  failuresBetween(from: number, to: number): { serverErrors: number; network: number; other: number } {
    const seen = this.failures.filter((f) => f.at >= from && f.at <= to);
    return {
      serverErrors: seen.filter((f) => typeof f.status === 'number' && f.status >= 500).length,
      network: seen.filter((f) => typeof f.status === 'string').length,
      other: seen.filter((f) => typeof f.status === 'number' && f.status < 500).length,
    };
  }

  /** When the first send started after `from` was answered with a 2xx: the service works again. */
  firstAnswerAfter(from: number): number | undefined {
    const answered = this.outcomes.filter((o) => o.startedAt >= from && o.answeredAt).map((o) => o.answeredAt!);
    return answered.length ? Math.min(...answered) : undefined;
  }

  private async loop(): Promise<void> {
    while (this.running) {
      await this.sendOnce();
      await sleep(this.options.intervalMs);
    }
  }

  private async attempt(key: string, body: string): Promise<{ id: string } | number> {
    const res = await fetch(`${this.options.baseUrl}/v1/documents/send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${this.options.apiKey}`, 'idempotency-key': key },
      body,
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    if (res.status >= 200 && res.status < 300) return { id: (JSON.parse(text) as { id: string }).id };
    return res.status;
  }
}
