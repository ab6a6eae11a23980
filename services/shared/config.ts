/**
 * Process configuration, read once from the environment. Plain well-known names for shared
 * infrastructure (PORT, DATABASE_URL, REDIS_URL, NATS_URL), `EINV_*` for everything of ours,
 * `MOL_*` only inside moleculer.config.ts. The README's env-var table lists every entry.
 */
function int(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return value;
}

function str(name: string): string | undefined {
  const raw = process.env[name];
  return raw === undefined || raw === '' ? undefined : raw;
}

export interface AppConfig {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  natsUrl: string | undefined;
  /** Where the embedded PostgreSQL keeps its files when DATABASE_URL is unset. */
  dataDir: string;
  embeddedPostgresPort: number;
  /** Comma-separated service names this process runs; all of them when unset. */
  services: string[] | undefined;
  /** Public base URL used in docUrl links and the OpenAPI `servers` entry. */
  publicUrl: string;
  docsUrl: string;
  /** Largest JSON body accepted, in bytes, after decompression. */
  maxJsonBytes: number;
  /** Largest request body accepted, in bytes, after decompression (file deposits). */
  maxBodyBytes: number;
  /** Sandbox bootstrap calls allowed per client IP per hour. */
  bootstrapPerIpPerHour: number;
  /** Lifetime of a bootstrap sandbox key, in days. */
  sandboxKeyDays: number;
}

export function loadConfig(): AppConfig {
  const port = int('PORT', 3000);
  const publicUrl = str('EINV_PUBLIC_URL') ?? `http://localhost:${port}`;
  return {
    port,
    host: str('HOST') ?? '0.0.0.0',
    databaseUrl: str('DATABASE_URL'),
    redisUrl: str('REDIS_URL'),
    natsUrl: str('NATS_URL'),
    dataDir: str('EINV_DATA_DIR') ?? '.data',
    embeddedPostgresPort: int('EINV_EMBEDDED_PG_PORT', 54329),
    services: str('SERVICES')?.split(',').map((s) => s.trim()).filter(Boolean),
    publicUrl,
    docsUrl: str('EINV_DOCS_URL') ?? `${publicUrl}/docs/errors`,
    maxJsonBytes: int('EINV_MAX_JSON_BYTES', 1024 * 1024),
    maxBodyBytes: int('EINV_MAX_BODY_BYTES', 25 * 1024 * 1024),
    bootstrapPerIpPerHour: int('EINV_BOOTSTRAP_PER_IP_PER_HOUR', 10),
    sandboxKeyDays: int('EINV_SANDBOX_KEY_DAYS', 30),
  };
}
