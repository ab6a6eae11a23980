/**
 * Deliveries in flight at once per connector in one documents instance. A delivery waits a little
 * for a slot of its own connector (slots of a fast connector free up in milliseconds); when none
 * frees in time the connector is saturated (e.g. its partner hangs) and the caller hands the job
 * back to the queue, so a hung connector holds its own slots and nothing else.
 */
export class ConnectorSlots {
  private readonly used = new Map<string, number>();
  private readonly waiting = new Map<string, Array<(taken: boolean) => void>>();
  private readonly limitOf: (connectorId: string) => number;

  constructor(limitOf: (connectorId: string) => number) {
    this.limitOf = limitOf;
  }

  /** Resolves true with a slot taken, or false when none freed within `waitMs`. */
  take(connectorId: string, waitMs: number): Promise<boolean> {
    const used = this.used.get(connectorId) ?? 0;
    if (used < this.limitOf(connectorId)) {
      this.used.set(connectorId, used + 1);
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const queue = this.waiting.get(connectorId) ?? [];
      this.waiting.set(connectorId, queue);
      const timer = setTimeout(() => {
        const i = queue.indexOf(wake);
        if (i >= 0) queue.splice(i, 1);
        resolve(false);
      }, waitMs);
      const wake = (taken: boolean) => { clearTimeout(timer); resolve(taken); };
      queue.push(wake);
    });
  }

  /** Frees a slot: the longest waiter of that connector gets it, else it is free. */
  give(connectorId: string): void {
    const next = this.waiting.get(connectorId)?.shift();
    if (next) { next(true); return; }
    this.used.set(connectorId, Math.max(0, (this.used.get(connectorId) ?? 1) - 1));
  }

  inUse(connectorId: string): number {
    return this.used.get(connectorId) ?? 0;
  }
}
