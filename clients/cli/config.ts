/**
 * Where `einv` keeps its credential: a JSON file (default `~/.config/einv/config.json`, or
 * `EINV_CONFIG`), written with mode 0600 in a 0700 directory because it holds an API key. Flags
 * and environment (`--api-key`/`EINV_API_KEY`, `--base-url`/`EINV_BASE_URL`) win over the file.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

export interface CliConfig {
  baseUrl?: string;
  apiKey?: string;
  organizationId?: string;
  companyId?: string;
  peppolId?: string;
}

export const DEFAULT_BASE_URL = 'http://localhost:3000';

export function configPath(explicit?: string): string {
  return explicit || process.env.EINV_CONFIG || join(homedir(), '.config', 'einv', 'config.json');
}

export function readConfig(path: string): CliConfig {
  if (!existsSync(path)) return {};
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as CliConfig;
  } catch {
    throw new Error(`${path} is not valid JSON; fix or remove it`);
  }
}

/** Writes the file whole (temporary file, then rename) with mode 0600: never readable by others, never half-written. */
export function writeConfig(path: string, config: CliConfig): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, path);
}
