/**
 * Builds the `ConnectorHost` a connector runs against: its validated configuration and secrets,
 * the HTTP client, a logger that never prints a secret, the clock, the translators, the
 * platform's directory, a scheduler whose timers die with the service, the durable inbound
 * hand-off (documents.receiveInbound: stored and committed before the promise resolves) and the
 * durable state (the connector-state service, namespaced by this connector's id).
 */
import { readFileSync } from 'node:fs';
import type { ServiceBroker } from 'moleculer';
import * as translators from '../../mappings/index.ts';
import { checkStateKey, stateValueJson, type ConnectorHost, type ConnectorManifest, type ConnectorState, type Logger, type Secret, type Timer } from '../../adapters/sdk/index.ts';
import { call } from '../shared/call.ts';
import { systemClock } from '../shared/clock.ts';
import { connectorEnvName, type ConnectorSettings } from '../shared/connector-settings.ts';
import { receiveInbound, recordNetworkStatus } from '../documents/documents.contract.ts';
import { lookupParticipant } from '../directory/directory.contract.ts';
import { createHttpClient } from './http-client.ts';
import { compareAndSetState, deleteState, getState } from './connector-state.contract.ts';
import { acquireWorkerPool, releaseWorkerPool } from '../shared/worker-pool.ts';

type LoggerInstance = ReturnType<ServiceBroker['getLogger']>;
type Value = string | number | boolean;

function secretOf(value: string): Secret {
  return { reveal: () => value, toString: () => '[secret]', toJSON: () => '[secret]', [Symbol.for('nodejs.util.inspect.custom')]: () => '[secret]' } as Secret;
}

function coerce(id: string, name: string, type: 'string' | 'number' | 'boolean', raw: unknown): Value {
  if (type === 'string') return String(raw);
  if (type === 'number') {
    const n = typeof raw === 'number' ? raw : Number(raw);
    if (!Number.isFinite(n)) throw new Error(`connector ${id}: option ${name} must be a number`);
    return n;
  }
  if (typeof raw === 'boolean') return raw;
  if (raw === 'true' || raw === 'false') return raw === 'true';
  throw new Error(`connector ${id}: option ${name} must be true or false`);
}

export interface ResolvedConfig {
  config: Record<string, Value | undefined>;
  secrets: Map<string, string>;
}

/** Options from env (EINV_CONNECTOR_<ID>_<OPTION>), then the connectors file, then the manifest default. */
export function resolveConnectorConfig(manifest: ConnectorManifest, settings: ConnectorSettings, env: NodeJS.ProcessEnv = process.env): ResolvedConfig {
  const config: Record<string, Value | undefined> = {};
  const secrets = new Map<string, string>();
  const secretsFile = settings.secretsFile ?? env[connectorEnvName(manifest.id, 'secretsFile')];
  const fromSecretsFile = secretsFile ? JSON.parse(readFileSync(secretsFile, 'utf8')) as Record<string, unknown> : {};
  const missing: string[] = [];
  for (const [name, option] of Object.entries(manifest.options ?? {})) {
    const envValue = env[connectorEnvName(manifest.id, name)];
    const raw = envValue !== undefined && envValue !== '' ? envValue
      : option.secret && fromSecretsFile[name] !== undefined ? fromSecretsFile[name]
        : settings.options?.[name] !== undefined ? settings.options[name]
          : option.default;
    if (raw === undefined) {
      if (option.required) missing.push(`${name} (${connectorEnvName(manifest.id, name)})`);
      continue;
    }
    if (option.secret) secrets.set(name, String(raw));
    else config[name] = coerce(manifest.id, name, option.type, raw);
  }
  if (missing.length) throw new Error(`connector ${manifest.id}: missing required option(s) ${missing.join(', ')}`);
  return { config, secrets };
}

/** The broker's logger for the connector, with every configured secret value masked. */
function redactingLogger(log: LoggerInstance, secrets: Map<string, string>): Logger {
  const values = [...secrets.values()].filter((v) => v.length >= 4);
  const mask = (s: string) => values.reduce((out, v) => out.split(v).join('[secret]'), s);
  const line = (message: string, extra?: Record<string, unknown>) => mask(extra ? `${message} ${JSON.stringify(extra)}` : message);
  return {
    debug: (m, e) => log.debug(line(m, e)),
    info: (m, e) => log.info(line(m, e)),
    warn: (m, e) => log.warn(line(m, e)),
    error: (m, e) => log.error(line(m, e)),
  };
}

/**
 * The state port of one connector: every call names this connector's id, never one the connector
 * chose, so a connector reads and writes only its own keys. Checks run here, before the broker.
 */
export function connectorStatePort(broker: ServiceBroker, connectorId: string): ConnectorState {
  return {
    async get<T>(key: string) {
      checkStateKey(key);
      const row = await call(broker, getState, { connectorId, key });
      return row ? { value: JSON.parse(row.valueJson) as T, version: row.version } : null;
    },
    async compareAndSet(key, expectedVersion, value) {
      const valueJson = stateValueJson(key, value);
      return (await call(broker, compareAndSetState, { connectorId, key, expectedVersion, valueJson })).written;
    },
    async delete(key, expectedVersion) {
      checkStateKey(key);
      return (await call(broker, deleteState, { connectorId, key, expectedVersion })).deleted;
    },
  };
}

export interface RunningHost {
  host: ConnectorHost;
  /** Cancels the scheduler's timers and closes the HTTP pools. */
  close(): Promise<void>;
}

export function createConnectorHost(broker: ServiceBroker, manifest: ConnectorManifest, settings: ConnectorSettings): RunningHost {
  const { config, secrets } = resolveConnectorConfig(manifest, settings);
  const log = redactingLogger(broker.getLogger(`connector.${manifest.id}`), secrets);
  const http = createHttpClient();
  // The process's document workers: a connector parses and compresses large documents there, off the event loop.
  const workers = acquireWorkerPool();
  const timers = new Set<NodeJS.Timeout>();
  const running = new Set<Promise<void>>();
  let closed = false;

  const run = (task: () => Promise<void>): Promise<void> => {
    const p = task().catch((err: unknown) => log.error(`scheduled task failed: ${(err as Error).message}`)).finally(() => running.delete(p));
    running.add(p);
    return p;
  };

  const host: ConnectorHost = {
    config: Object.freeze({ ...config }),
    secrets: {
      get(name) {
        const value = secrets.get(name);
        if (value === undefined) throw new Error(`connector ${manifest.id}: secret ${name} is not configured (${connectorEnvName(manifest.id, name)})`);
        return secretOf(value);
      },
      has: (name) => secrets.has(name),
    },
    http: { request: (url, options) => http.request(url, options) },
    log,
    clock: { now: () => systemClock.now() },
    translators,
    directory: { lookup: (participant, livemode) => call(broker, lookupParticipant, { participant, livemode }) },
    scheduler: {
      every(intervalMs, task) {
        let handle: NodeJS.Timeout | undefined;
        let cancelled = false;
        const tick = () => {
          timers.delete(handle!);
          if (cancelled || closed) return;
          // The next run is planned when this one ends: runs never overlap.
          void run(task).finally(() => {
            if (cancelled || closed) return;
            handle = setTimeout(tick, intervalMs);
            timers.add(handle);
          });
        };
        handle = setTimeout(tick, intervalMs);
        timers.add(handle);
        return { cancel() { cancelled = true; clearTimeout(handle); timers.delete(handle!); } } satisfies Timer;
      },
      after(delayMs, task) {
        const handle = setTimeout(() => { timers.delete(handle); if (!closed) void run(task); }, delayMs);
        timers.add(handle);
        return { cancel() { clearTimeout(handle); timers.delete(handle); } };
      },
    },
    workers: { run: (moduleUrl, fn, args, sizeBytes) => workers.run(moduleUrl, fn, args, sizeBytes) },
    outbound: {
      statusReceived: (status) => call(broker, recordNetworkStatus, { ...status, connectorId: manifest.id }),
    },
    state: connectorStatePort(broker, manifest.id),
    inbound: {
      accept: (doc) => call(broker, receiveInbound, { ...doc, connectorId: manifest.id }),
    },
  };

  return {
    host,
    async close() {
      closed = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      await Promise.allSettled([...running]);
      await http.close();
      await releaseWorkerPool(workers);
    },
  };
}
