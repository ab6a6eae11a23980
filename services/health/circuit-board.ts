/**
 * Keeps the state of the broker's circuit breakers, fed by the `$circuit-breaker.*` events that
 * Moleculer broadcasts (to every node, so any replica of this service sees every breaker). Pure
 * bookkeeping: the clock is passed in.
 */
import type { CircuitState, CircuitView } from './health.contract.ts';

interface ActionCircuit {
  state: CircuitState;
  failures: number;
  openedAt: number | null;
}

export interface BreakerEvent {
  service: string;
  action: string;
  failures?: number;
}

export class CircuitBoard {
  readonly #byService = new Map<string, Map<string, ActionCircuit>>();
  readonly #halfOpenMs: number;

  constructor(halfOpenMs: number) {
    this.#halfOpenMs = halfOpenMs;
  }

  #circuit(event: BreakerEvent): ActionCircuit {
    let actions = this.#byService.get(event.service);
    if (!actions) this.#byService.set(event.service, (actions = new Map()));
    let circuit = actions.get(event.action);
    if (!circuit) actions.set(event.action, (circuit = { state: 'closed', failures: 0, openedAt: null }));
    return circuit;
  }

  /** Makes a dependency visible (as closed) before anything happened to it. */
  track(service: string): void {
    if (!this.#byService.has(service)) this.#byService.set(service, new Map());
  }

  opened(event: BreakerEvent, now: number): void {
    Object.assign(this.#circuit(event), { state: 'open', failures: event.failures ?? 0, openedAt: now });
  }

  halfOpened(event: BreakerEvent): void {
    Object.assign(this.#circuit(event), { state: 'half_open', openedAt: null });
  }

  closed(event: BreakerEvent): void {
    Object.assign(this.#circuit(event), { state: 'closed', failures: 0, openedAt: null });
  }

  /** One entry per dependency (service): the worst state among its actions. */
  view(now: number): Record<string, CircuitView> {
    const rank: Record<CircuitState, number> = { closed: 0, half_open: 1, open: 2 };
    const out: Record<string, CircuitView> = {};
    for (const [service, actions] of [...this.#byService.entries()].sort(([a], [b]) => a.localeCompare(b))) {
      let worst: CircuitView = { state: 'closed', failures: 0, cooldown_remaining: 0 };
      for (const c of actions.values()) {
        const cooldown = c.state === 'open' && c.openedAt !== null ? Math.max(0, Math.ceil((c.openedAt + this.#halfOpenMs - now) / 1000)) : 0;
        const candidate: CircuitView = { state: c.state, failures: c.failures, cooldown_remaining: cooldown };
        if (rank[candidate.state] > rank[worst.state] || (candidate.state === worst.state && candidate.failures > worst.failures)) worst = candidate;
      }
      out[service] = worst;
    }
    return out;
  }

  anyOpen(): boolean {
    for (const actions of this.#byService.values()) for (const c of actions.values()) if (c.state === 'open') return true;
    return false;
  }
}
