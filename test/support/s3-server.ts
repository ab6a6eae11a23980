/**
 * An S3-compatible object store on 127.0.0.1 for tests: s3rver over a temporary directory, one
 * bucket, and the EINV_ARTEFACTS_S3_* settings that point the artefact store at it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
// @ts-expect-error s3rver ships no types; only run() and close() are used.
import S3rver from 's3rver';

export interface TestS3 {
  endpoint: string;
  bucket: string;
  /** The environment that selects this store (EINV_ARTEFACTS_S3_*). */
  env: Record<string, string>;
  /** A client of this store, for a test to look at what was written (destroy it when done). */
  client(): S3Client;
  /** Stops it (once; later calls wait for the first). */
  stop(): Promise<void>;
}

export async function startS3Server(bucket = 'einv-artefacts'): Promise<TestS3> {
  const directory = await mkdtemp(join(tmpdir(), 'einv-s3-'));
  const server = new S3rver({ port: 0, address: '127.0.0.1', directory, silent: true, configureBuckets: [{ name: bucket }] });
  const { port } = (await server.run()) as { port: number };
  const endpoint = `http://127.0.0.1:${port}`;
  let stopped: Promise<void> | undefined;
  return {
    endpoint, bucket,
    env: { EINV_ARTEFACTS_S3_ENDPOINT: endpoint, EINV_ARTEFACTS_S3_BUCKET: bucket, EINV_ARTEFACTS_S3_ACCESS_KEY_ID: 'S3RVER', EINV_ARTEFACTS_S3_SECRET_ACCESS_KEY: 'S3RVER', EINV_ARTEFACTS_S3_FORCE_PATH_STYLE: 'true' },
    client: () => new S3Client({ endpoint, forcePathStyle: true, region: 'us-east-1', credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } }),
    stop: async function stop() {
      stopped ??= (async () => {
        await server.close();
        await rm(directory, { recursive: true, force: true });
      })();
      await stopped;
    },
  };
}
