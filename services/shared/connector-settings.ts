/**
 * Which connectors this deployment runs and their settings, from configuration only:
 * `EINV_CONNECTORS=sandbox-network,file-drop` and/or a JSON file (`EINV_CONNECTORS_FILE`):
 *
 *   { "file-drop": { "enabled": true, "concurrency": 4, "options": { "outboxDir": "/srv/out" }, "secretsFile": "/run/secrets/file-drop.json" } }
 *
 * An option can also come from `EINV_CONNECTOR_<ID>_<OPTION>` (`EINV_CONNECTOR_FILE_DROP_OUTBOX_DIR`),
 * which wins over the file. Secrets are read by the connector host only (services/connectors).
 */
import { readFileSync } from 'node:fs';
import { loadConfig } from './config.ts';

export interface ConnectorFileEntry {
  enabled?: boolean;
  /** Folder or entry file of the connector when it is not `adapters/<id>/` or on EINV_CONNECTORS_PATH. */
  module?: string;
  concurrency?: number;
  options?: Record<string, unknown>;
  /** JSON file of `{ "<secret option>": "value" }`. */
  secretsFile?: string;
}

export interface ConnectorSettings extends ConnectorFileEntry {
  id: string;
  /** Deliveries in flight at once through this connector, per documents instance. */
  concurrency: number;
}

const fileCache = new Map<string, Record<string, ConnectorFileEntry>>();

function readConnectorsFile(path: string | undefined): Record<string, ConnectorFileEntry> {
  if (!path) return {};
  let parsed = fileCache.get(path);
  if (!parsed) {
    try {
      parsed = JSON.parse(readFileSync(path, 'utf8')) as Record<string, ConnectorFileEntry>;
    } catch (err) {
      throw new Error(`EINV_CONNECTORS_FILE ${path} is not readable JSON: ${(err as Error).message}`);
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error(`EINV_CONNECTORS_FILE ${path} must be an object keyed by connector id`);
    fileCache.set(path, parsed);
  }
  return parsed;
}

/** `file-drop` + `outboxDir` → `EINV_CONNECTOR_FILE_DROP_OUTBOX_DIR`. */
export function connectorEnvName(id: string, option: string): string {
  const snake = option.replace(/([a-z0-9])([A-Z])/g, '$1_$2');
  return `EINV_CONNECTOR_${id}_${snake}`.replace(/-/g, '_').toUpperCase();
}

export function enabledConnectorIds(): string[] {
  const cfg = loadConfig().connectors;
  if (cfg.enabled) return [...new Set(cfg.enabled)];
  const file = readConnectorsFile(cfg.file);
  const fromFile = Object.entries(file).filter(([, e]) => e.enabled !== false).map(([id]) => id);
  return cfg.file ? fromFile : ['sandbox-network'];
}

export function connectorSettings(id: string): ConnectorSettings {
  const cfg = loadConfig();
  const entry = readConnectorsFile(cfg.connectors.file)[id] ?? {};
  const rawConcurrency = process.env[connectorEnvName(id, 'concurrency')];
  const concurrency = rawConcurrency ? Number(rawConcurrency) : entry.concurrency ?? cfg.documents.deliveryConcurrency;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`connector ${id}: concurrency must be a positive integer`);
  return { ...entry, id, concurrency };
}
