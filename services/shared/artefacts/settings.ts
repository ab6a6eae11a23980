/**
 * Which artefact store a process uses, from the environment: PostgreSQL unless
 * EINV_ARTEFACTS_S3_BUCKET names a bucket of an S3-compatible store.
 *
 * | Variable | Meaning |
 * | --- | --- |
 * | EINV_ARTEFACTS_S3_BUCKET | bucket; set: new artefacts go to the object store |
 * | EINV_ARTEFACTS_S3_ENDPOINT | the store's URL (unset: AWS S3 of the region) |
 * | EINV_ARTEFACTS_S3_REGION | region (default us-east-1) |
 * | EINV_ARTEFACTS_S3_ACCESS_KEY_ID, EINV_ARTEFACTS_S3_SECRET_ACCESS_KEY | credentials (unset: the AWS SDK's own chain, AWS_* variables, instance roles) |
 * | EINV_ARTEFACTS_S3_FORCE_PATH_STYLE | `true`/`false` (default true when an endpoint is set: MinIO and most self-hosted stores) |
 * | EINV_ARTEFACTS_S3_PREFIX | prepended to every key |
 * | EINV_ARTEFACTS_S3_TIMEOUT_MS | per request (default 30000; connect 5000) |
 * | EINV_ARTEFACTS_RETENTION, EINV_ARTEFACTS_RETENTION_DEFAULT_YEARS | retention per country (retention.ts) |
 * | EINV_ARTEFACT_SWEEP_CRON | when the retention sweep runs (node-cron, UTC; default `30 3 * * *`, daily at 03:30; `off`: never) |
 * | EINV_ARTEFACT_SWEEP_BATCH | artefacts claimed per transaction (default 100, at most 1000) |
 * | EINV_ARTEFACT_SWEEP_MAX_BATCHES | batches per run and kind (default 100); the next run goes on |
 * | EINV_ARTEFACT_SWEEP_GRACE_HOURS | bytes no artefact names are kept this long (default 24) |
 * | EINV_ARTEFACT_SWEEP_LEASE_MINUTES | a sweep's claim older than this is taken over (default 60) |
 */
import { validate as validCron } from 'node-cron';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Artefacts } from './artefacts.ts';
import { PgBlobBackend } from './pg-blob-backend.ts';
import { S3BlobBackend, type S3Settings } from './s3-blob-backend.ts';

export function s3SettingsFromEnv(env: NodeJS.ProcessEnv = process.env): S3Settings | undefined {
  const value = (name: string): string | undefined => (env[name] === undefined || env[name] === '' ? undefined : env[name]);
  const bucket = value('EINV_ARTEFACTS_S3_BUCKET');
  if (!bucket) return undefined;
  const endpoint = value('EINV_ARTEFACTS_S3_ENDPOINT');
  if (endpoint !== undefined && !/^https?:\/\/[^/]/.test(endpoint)) throw new Error(`EINV_ARTEFACTS_S3_ENDPOINT must be an http(s) URL, got "${endpoint}"`);
  const pathStyle = value('EINV_ARTEFACTS_S3_FORCE_PATH_STYLE');
  if (pathStyle !== undefined && pathStyle !== 'true' && pathStyle !== 'false') throw new Error(`EINV_ARTEFACTS_S3_FORCE_PATH_STYLE must be true or false, got "${pathStyle}"`);
  const accessKeyId = value('EINV_ARTEFACTS_S3_ACCESS_KEY_ID');
  const secretAccessKey = value('EINV_ARTEFACTS_S3_SECRET_ACCESS_KEY');
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) throw new Error('EINV_ARTEFACTS_S3_ACCESS_KEY_ID and EINV_ARTEFACTS_S3_SECRET_ACCESS_KEY go together: set both or neither');
  const timeout = Number(value('EINV_ARTEFACTS_S3_TIMEOUT_MS') ?? 30_000);
  if (!Number.isInteger(timeout) || timeout < 100) throw new Error('EINV_ARTEFACTS_S3_TIMEOUT_MS must be an integer of at least 100');
  return {
    endpoint, bucket, region: value('EINV_ARTEFACTS_S3_REGION') ?? 'us-east-1', accessKeyId, secretAccessKey,
    forcePathStyle: pathStyle === undefined ? endpoint !== undefined : pathStyle === 'true',
    prefix: value('EINV_ARTEFACTS_S3_PREFIX') ?? '',
    connectTimeoutMs: Math.min(5_000, timeout), requestTimeoutMs: timeout,
  };
}

/**
 * The store for a process: new bytes to the object store when one is configured, else to
 * PostgreSQL; PostgreSQL stays readable either way (artefacts stored before an object store was
 * configured are read there until `scripts/artefacts-migrate.ts` moves them).
 */
export function artefactsFromEnv(em: EntityManager, env: NodeJS.ProcessEnv = process.env): Artefacts {
  const pg = new PgBlobBackend(em);
  const s3 = s3SettingsFromEnv(env);
  const options = { sweepLeaseMs: sweepSettingsFromEnv(env).leaseMs };
  return s3 ? new Artefacts(em, new S3BlobBackend(s3), [pg], options) : new Artefacts(em, pg, [], options);
}

export interface SweepSettings {
  /** node-cron expression (UTC); null: the sweep never runs on its own. */
  cron: string | null;
  batch: number;
  maxBatches: number;
  orphanGraceMs: number;
  leaseMs: number;
}

/**
 * The retention sweep's schedule and bounds (services/shared/artefacts/sweep.ts). On by default,
 * daily: nothing is deletable before its statutory period ends, so a fresh deployment deletes
 * nothing for years, and bytes nobody names are cleaned up without an operator remembering to.
 */
export function sweepSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): SweepSettings {
  const raw = env.EINV_ARTEFACT_SWEEP_CRON?.trim() || '30 3 * * *';
  if (raw !== 'off' && !validCron(raw)) throw new Error(`EINV_ARTEFACT_SWEEP_CRON must be a node-cron expression or off, got "${raw}"`);
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const value = env[name] === undefined || env[name] === '' ? fallback : Number(env[name]);
    if (!Number.isInteger(value) || value < min || value > max) throw new Error(`${name} must be an integer from ${min} to ${max}, got "${env[name]}"`);
    return value;
  };
  return {
    cron: raw === 'off' ? null : raw,
    batch: int('EINV_ARTEFACT_SWEEP_BATCH', 100, 1, 1000),
    maxBatches: int('EINV_ARTEFACT_SWEEP_MAX_BATCHES', 100, 1, 100_000),
    orphanGraceMs: int('EINV_ARTEFACT_SWEEP_GRACE_HOURS', 24, 1, 24 * 365) * 3_600_000,
    leaseMs: int('EINV_ARTEFACT_SWEEP_LEASE_MINUTES', 60, 1, 24 * 60) * 60_000,
  };
}
