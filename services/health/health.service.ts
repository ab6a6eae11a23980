import type { Context, Service, ServiceSchema, ServiceSettingSchema } from 'moleculer';
import { schedule, type ScheduledTask } from 'node-cron';
import { implement } from '../shared/contract.ts';
import { maybeDatabaseOf } from '../shared/persistence/database.ts';
import { brokerOptions } from '../../moleculer.config.ts';
import { CircuitBoard, type BreakerEvent } from './circuit-board.ts';
import { loadConfig } from '../shared/config.ts';
import { sampleWhileMetricsOn, setMetric } from '../shared/metrics.ts';
import { liveness, readiness, contracts, CHECK_CONTRACT_ACTION, type CircuitState, type ContractStatus, type Readiness } from './health.contract.ts';

const DB_CHECK_TIMEOUT_MS = 2_000;

interface HealthState {
  board: CircuitBoard;
  contractResults: Map<string, ContractStatus>;
  cronTask?: ScheduledTask;
  stopCircuitSampler?: () => void;
}

const CIRCUIT_GAUGE: Record<CircuitState, number> = { closed: 0, half_open: 1, open: 2 };

/** Marks the HTTP answer 503 without turning it into an error envelope (the spec's health shape). */
function degradedStatus(ctx: Context, degraded: boolean): void {
  if (degraded) (ctx.meta as { $statusCode?: number }).$statusCode = 503;
}

async function checkDatabase(broker: Context['broker']): Promise<Readiness['database']> {
  const orm = maybeDatabaseOf(broker);
  if (!orm) return { status: 'not_configured', responseMs: null };
  const started = performance.now();
  try {
    await Promise.race([
      orm.em.fork().getConnection().execute('select 1'),
      new Promise((_, reject) => setTimeout(() => reject(new Error(`no answer within ${DB_CHECK_TIMEOUT_MS} ms`)), DB_CHECK_TIMEOUT_MS).unref()),
    ]);
    return { status: 'ok', responseMs: Math.round(performance.now() - started) };
  } catch (err) {
    return { status: 'down', responseMs: Math.round(performance.now() - started), error: (err as Error).message };
  }
}

interface HealthMethods {
  trackAdapters(): void;
  publishCircuits(): void;
  runContractChecks(): Promise<void>;
  connectorHealth(): Promise<NonNullable<Readiness['connectors']>>;
}

/** The adapters whose connector tells its own health (API 2.3 `health` verb). */
const CONNECTOR_HEALTH = /^adapter\.[a-z0-9-]+\.health$/;

type HealthThis = Service & HealthMethods & { state: HealthState };

const HealthService: ServiceSchema<ServiceSettingSchema, HealthMethods, { state: HealthState }> = {
  name: 'health',

  created() {
    const halfOpen = (this.broker.options.circuitBreaker as { halfOpenTime?: number } | undefined)?.halfOpenTime
      ?? (brokerOptions().circuitBreaker as { halfOpenTime: number }).halfOpenTime;
    this.state = { board: new CircuitBoard(halfOpen), contractResults: new Map() };
  },

  started() {
    // Adapters appear as they register (other processes join later): the gauge follows on each poll.
    this.state.stopCircuitSampler = sampleWhileMetricsOn(this.broker, loadConfig().observability.metrics?.pollMs, async () => {
      this.trackAdapters();
      this.publishCircuits();
    });
    // Checks the tracked upstream contracts once a minute (override with EINV_CONTRACT_CHECK_CRON).
    this.state.cronTask = schedule(process.env.EINV_CONTRACT_CHECK_CRON ?? '* * * * *', () => this.runContractChecks(), { noOverlap: true });
  },

  async stopped() {
    this.state.stopCircuitSampler?.();
    await this.state.cronTask?.stop();
  },

  events: {
    '$circuit-breaker.opened'(ctx: Context<BreakerEvent>) {
      this.state.board.opened(ctx.params, Date.now());
      this.publishCircuits();
    },
    '$circuit-breaker.half-opened'(ctx: Context<BreakerEvent>) {
      this.state.board.halfOpened(ctx.params);
      this.publishCircuits();
    },
    '$circuit-breaker.closed'(ctx: Context<BreakerEvent>) {
      this.state.board.closed(ctx.params);
      this.publishCircuits();
    },
  },

  actions: {
    liveness: implement(liveness, async () => ({ status: 'ok' as const })),

    readiness: implement(readiness, async function (this: HealthThis, ctx) {
      this.trackAdapters();
      const [database, connectors] = await Promise.all([checkDatabase(this.broker), this.connectorHealth()]);
      const degraded = this.state.board.anyOpen() || database.status === 'down' || Object.values(connectors).some((c) => c.status === 'failed');
      degradedStatus(ctx, degraded);
      return { status: degraded ? 'degraded' : 'ok', circuits: this.state.board.view(Date.now()), database, ...(Object.keys(connectors).length ? { connectors } : {}) };
    }),

    contracts: implement(contracts, async function (this: HealthThis, ctx) {
      const services = Object.fromEntries([...this.state.contractResults.entries()].sort(([a], [b]) => a.localeCompare(b)));
      const degraded = Object.values(services).some((s) => s.status === 'failed');
      degradedStatus(ctx, degraded);
      return { status: degraded ? 'degraded' : 'ok', services };
    }),

    /** Runs every tracked contract check now (also what the cron tick does). */
    runContractChecks: {
      params: {},
      async handler() {
        await this.runContractChecks();
        return { ok: true };
      },
    },
  },

  methods: {
    /** Each adapter's circuit as a gauge (0 closed, 1 half-open, 2 open), on every change and every poll. */
    publishCircuits() {
      if (!this.broker.isMetricsEnabled()) return;
      for (const [service, view] of Object.entries(this.state.board.view(Date.now()))) {
        setMetric(this.broker, 'circuitState', CIRCUIT_GAUGE[view.state], { service });
      }
    },

    /** Adapters are the broker-level dependencies: list them as closed until a breaker says otherwise. */
    trackAdapters() {
      for (const svc of this.broker.registry.getServiceList({ onlyAvailable: false, skipInternal: true }) as Array<{ name: string }>) {
        if (svc.name.startsWith('adapter.')) this.state.board.track(svc.name);
      }
    },

    /** Asks each connector that tells its health; one that cannot answer counts as failed. */
    async connectorHealth() {
      const actions = (this.broker.registry.getActionList({ onlyAvailable: true, skipInternal: true }) as Array<{ name: string }>)
        .map((a) => a.name).filter((name) => CONNECTOR_HEALTH.test(name));
      const answers = await Promise.all([...new Set(actions)].map(async (name) => {
        const service = name.slice(0, -'.health'.length);
        try {
          const h = await this.broker.call(name, {}, { timeout: 2_000, retries: 0 }) as { status: 'ok' | 'warning' | 'failed'; message: string };
          return [service, { status: h.status, message: h.message }] as const;
        } catch (err) {
          return [service, { status: 'failed' as const, message: (err as Error).message }] as const;
        }
      }));
      return Object.fromEntries(answers);
    },

    async runContractChecks() {
      const actions = (this.broker.registry.getActionList({ onlyAvailable: true, skipInternal: true }) as Array<{ name: string }>)
        .map((a) => a.name)
        .filter((name) => name.endsWith(`.${CHECK_CONTRACT_ACTION}`));
      const lastCheck = new Date().toISOString();
      for (const [service, h] of Object.entries(await this.connectorHealth())) {
        this.state.contractResults.set(service, { status: h.status, responseMs: null, lastCheck, error: h.status === 'ok' ? null : h.message });
      }
      await Promise.all([...new Set(actions)].map(async (name) => {
        const service = name.slice(0, -CHECK_CONTRACT_ACTION.length - 1);
        const started = performance.now();
        try {
          await this.broker.call(name, {}, { timeout: 10_000, retries: 0 });
          this.state.contractResults.set(service, { status: 'ok', responseMs: Math.round(performance.now() - started), lastCheck: new Date().toISOString(), error: null });
        } catch (err) {
          this.state.contractResults.set(service, { status: 'failed', responseMs: Math.round(performance.now() - started), lastCheck: new Date().toISOString(), error: (err as Error).message });
        }
      }));
    },
  },
};

export default HealthService;
