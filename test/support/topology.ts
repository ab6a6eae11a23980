/**
 * The scaled deployment on one machine, for the chaos suite (test/chaos) and the scaled bench
 * (bench/scaled-throughput.bench.ts): its own nats-server, PostgreSQL (the npm binaries) and
 * redis-server on 127.0.0.1, every role as its own `node server.ts` process (SERVICES=…), and a
 * small round-robin proxy in front of the gateways, as a load balancer would stand.
 *
 * Each part can be hurt the way production hurts it: a role replica killed with SIGKILL and started
 * again (an orchestrator's restart), PostgreSQL and NATS stopped and restarted on the same port and
 * data, Redis paused (SIGSTOP) and resumed. Nothing here knows the product's internals beyond the
 * environment variables ops set.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { credentialsFileOf, startEmbeddedPostgres, withDatabase, type EmbeddedDatabase } from '../../services/shared/persistence/embedded-postgres.ts';
import { createDatabaseIfMissing } from '../../services/shared/persistence/database-url.ts';
import { freePort, startNats, startRedis, type RunningServer } from './servers.ts';
import { startServer, stop as stopServer, waitFor, type Running } from './server-process.ts';

/** One role of the deployment: the services its processes run and how many replicas. */
export interface RoleSpec {
  name: string;
  services: string[];
  replicas: number;
}

/** The chaos suite's topology: two of every role that can be two, as the issue asks. */
export function scaledRoles(options: { documents?: number; validation?: number } = {}): RoleSpec[] {
  return [
    { name: 'gateway', services: ['gateway', 'health'], replicas: 2 },
    { name: 'core', services: ['tenancy', 'sandbox', 'identity', 'limits', 'idempotency', 'requests', 'compliance', 'platform', 'stats', 'partners', 'smp', 'reporting', 'payments', 'categorization'], replicas: 1 },
    { name: 'documents', services: ['documents', 'directory'], replicas: options.documents ?? 2 },
    { name: 'validation', services: ['validation'], replicas: options.validation ?? 1 },
    { name: 'events', services: ['events', 'clock'], replicas: 2 },
    { name: 'webhooks', services: ['webhooks'], replicas: 2 },
    { name: 'adapter', services: ['adapter.sandbox-network'], replicas: 1 },
  ];
}

export interface Replica {
  role: string;
  index: number;
  /** The gateway's own port (gateways only). */
  port?: number;
  running: Running;
}

export interface Topology {
  /** The proxy in front of the gateways: what clients call. */
  baseUrl: string;
  databaseUrl: string;
  replicas: Replica[];
  /** SIGKILL one replica; resolves once it is gone. */
  kill(replica: Replica): Promise<void>;
  /** Starts a killed replica again with the same environment (and port, for a gateway). */
  restart(replica: Replica): Promise<void>;
  restartPostgres(downMs: number): Promise<void>;
  restartNats(downMs: number): Promise<void>;
  pauseRedis(pausedMs: number): Promise<void>;
  /** Output of every replica, for a failure message. */
  output(): string;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Round-robin over the gateways; a refused connection moves on to the next one, as nginx's `proxy_next_upstream error` does. */
async function startProxy(backends: () => number[]): Promise<Server> {
  let next = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const ports = backends();
      const tryBackend = (left: number) => {
        const port = ports[next++ % ports.length]!;
        const upstream = httpRequest({ host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers }, (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        });
        upstream.on('error', (err: NodeJS.ErrnoException) => {
          // Only a connection that never reached a gateway is safe to send again; one cut mid-way is the client's to retry.
          if (err.code === 'ECONNREFUSED' && left > 1) return tryBackend(left - 1);
          if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { code: 'BAD_GATEWAY', message: `proxy: ${err.code ?? err.message}` } }));
        });
        upstream.end(body);
      };
      tryBackend(ports.length);
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

export async function startTopology(options: { roles?: RoleSpec[]; env?: Record<string, string> } = {}): Promise<Topology> {
  const roles = options.roles ?? scaledRoles();
  const work = mkdtempSync(join(tmpdir(), 'einv-topology-'));
  // Under the repository, as the test suite's own cluster: run as root, the embedded PostgreSQL
  // drops to another user, who cannot enter a 0700 temporary directory.
  const pgDir = join('.data', `topology-postgres-${process.pid}-${Date.now()}`);
  const pgPort = await freePort();
  let postgres: EmbeddedDatabase = await startEmbeddedPostgres({ dataDir: pgDir, port: pgPort });
  await createDatabaseIfMissing(postgres.adminUrl, 'einvoicing', { owner: postgres.appRole });
  const databaseUrl = withDatabase(postgres.serverUrl, 'einvoicing');
  execFileSync(process.execPath, ['scripts/migrations.ts', 'up'], { env: { ...process.env, NODE_OPTIONS: '', DATABASE_URL: databaseUrl }, stdio: 'pipe' });

  const natsDir = join(work, 'nats');
  let nats: RunningServer = await startNats({ storeDir: natsDir });
  const natsPort = nats.port;
  const redis = await startRedis();

  const env = (spec: RoleSpec, port?: number): Record<string, string> => ({
    DATABASE_URL: databaseUrl, NATS_URL: nats.url, REDIS_URL: redis.url, SERVICES: spec.services.join(','),
    MOL_LOG_LEVEL: 'warn', EINV_RATE_LIMITS: 'free=100000000', EINV_BOOTSTRAP_PER_IP_PER_HOUR: '1000',
    ...(port ? { PORT: String(port) } : {}), ...options.env,
  });
  const specs = new Map(roles.map((r) => [r.name, r]));
  const replicas: Replica[] = [];
  for (const spec of roles) {
    for (let index = 0; index < spec.replicas; index++) {
      const port = spec.services.includes('gateway') ? await freePort() : undefined;
      replicas.push({ role: spec.name, index, ...(port ? { port } : {}), running: startServer(env(spec, port)) });
    }
  }
  const gateways = () => replicas.filter((r) => r.port).map((r) => r.port!);
  const proxy = await startProxy(gateways);
  const baseUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  for (const r of replicas.filter((x) => x.port)) await waitFor(`http://127.0.0.1:${r.port}/health/liveness`, r.running, 120_000);

  const output = () => replicas.map((r) => `--- ${r.role}#${r.index}\n${r.running.output().slice(-4000)}`).join('\n');
  const topology: Topology = {
    baseUrl,
    databaseUrl,
    replicas,
    async kill(replica) {
      replica.running.child.kill('SIGKILL');
      await replica.running.exited;
    },
    async restart(replica) {
      replica.running = startServer(env(specs.get(replica.role)!, replica.port));
      if (replica.port) await waitFor(`http://127.0.0.1:${replica.port}/health/liveness`, replica.running, 120_000);
    },
    async restartPostgres(downMs) {
      await postgres.stop();
      await sleep(downMs);
      postgres = await startEmbeddedPostgres({ dataDir: pgDir, port: pgPort });
    },
    async restartNats(downMs) {
      await nats.stop();
      await sleep(downMs);
      nats = await startNats({ port: natsPort, storeDir: natsDir });
    },
    async pauseRedis(pausedMs) {
      redis.child.kill('SIGSTOP');
      await sleep(pausedMs);
      redis.child.kill('SIGCONT');
    },
    output,
    async stop() {
      await new Promise<void>((resolve) => { proxy.closeAllConnections(); proxy.close(() => resolve()); });
      await Promise.all(replicas.map(async (r) => {
        if (r.running.child.exitCode !== null || r.running.child.signalCode !== null) return;
        const code = await stopServer(r.running);
        if (code !== 0) r.running.child.kill('SIGKILL');
      }));
      redis.child.kill('SIGCONT');
      await Promise.all([redis.stop(), nats.stop(), postgres.stop()]);
      rmSync(work, { recursive: true, force: true });
      rmSync(pgDir, { recursive: true, force: true });
      rmSync(credentialsFileOf(resolve(pgDir)), { force: true });
    },
  };
  return topology;
}
