/**
 * What every command needs: the typed client (clients/typescript) built from the flags, the
 * environment and the config file, in that order of precedence.
 */
import { createExchangeClient, type ExchangeClient } from '../typescript/src/index.ts';
import { configPath, DEFAULT_BASE_URL, readConfig, type CliConfig } from './config.ts';

export interface GlobalOptions {
  baseUrl?: string;
  apiKey?: string;
  config?: string;
  company?: string;
}

export interface CliContext {
  baseUrl: string;
  config: CliConfig;
  configFile: string;
  client(): ExchangeClient;
}

export function cliContext(options: GlobalOptions): CliContext {
  const configFile = configPath(options.config);
  const config = readConfig(configFile);
  // An empty variable counts as unset.
  const baseUrl = options.baseUrl || process.env.EINV_BASE_URL || config.baseUrl || DEFAULT_BASE_URL;
  return {
    baseUrl,
    config,
    configFile,
    client() {
      const apiKey = options.apiKey || process.env.EINV_API_KEY || config.apiKey;
      if (!apiKey) throw new UsageError(`no API key: run \`einv bootstrap\`, or pass --api-key / EINV_API_KEY (config file ${configFile})`);
      return createExchangeClient({ baseUrl, apiKey, ...(options.company ? { company: options.company } : {}) });
    },
  };
}

/** A failure to report in one line (no stack): bad usage, or the API's error envelope. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** One line for an API error envelope (`CODE: message`), whatever the operation. */
export function describeApiError(error: unknown, status: number): string {
  const e = (error as { error?: { code?: string; message?: string } } | undefined)?.error;
  return e?.code ? `${e.code}: ${e.message ?? ''}` : `HTTP ${status}`;
}
