/**
 * Bytes in any S3-compatible object store (AWS S3, MinIO, Ceph, Scaleway, OVH …), configured with
 * EINV_ARTEFACTS_S3_* (services/shared/artefacts/settings.ts). The key is derived from the hash:
 * `<prefix><organization id>/<live|test>/sha256/<first two hex digits>/<hash>`.
 *
 * A write asks for the key first and sends `If-None-Match: *` (S3 conditional writes), so an
 * object once written is never replaced, even by a concurrent writer. Every failure of the store
 * becomes ArtefactStoreUnavailableError (503, Retry-After): never a 500 with the SDK's stack.
 */
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { ArtefactStoreUnavailableError, namespaceKey, type ArtefactNamespace } from './artefact-store.ts';
import type { BlobBackend } from './blob-backend.ts';

export interface S3Settings {
  endpoint: string | undefined;
  bucket: string;
  region: string;
  accessKeyId: string | undefined;
  secretAccessKey: string | undefined;
  /** `http://host/bucket/key` instead of `http://bucket.host/key` (MinIO and most self-hosted stores). */
  forcePathStyle: boolean;
  /** Prepended to every key (one bucket shared by several deployments). */
  prefix: string;
  connectTimeoutMs: number;
  requestTimeoutMs: number;
}

const statusOf = (err: unknown): number | undefined => (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
const nameOf = (err: unknown): string | undefined => (err as { name?: string }).name;
/** `<organization>/<live|test>/sha256/<ab>/<hash>` after the prefix (keyOf). */
const OBJECT_KEY = /^([A-Za-z0-9_-]{1,128})\/(live|test)\/sha256\/[0-9a-f]{2}\/([0-9a-f]{64})$/;
const absent = (err: unknown): boolean => statusOf(err) === 404 && nameOf(err) !== 'NoSuchBucket';

export class S3BlobBackend implements BlobBackend {
  readonly location = 's3' as const;
  readonly client: S3Client;
  readonly settings: S3Settings;

  constructor(settings: S3Settings) {
    this.settings = settings;
    this.client = new S3Client({
      ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
      region: settings.region,
      forcePathStyle: settings.forcePathStyle,
      ...(settings.accessKeyId && settings.secretAccessKey ? { credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey } } : {}),
      // Checksums only where S3 requires them: many S3-compatible stores reject the newer default trailers.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 2,
      requestHandler: { connectionTimeout: settings.connectTimeoutMs, requestTimeout: settings.requestTimeoutMs },
    });
  }

  keyOf(ns: ArtefactNamespace, sha256: string): string {
    return `${this.settings.prefix}${namespaceKey(ns)}/sha256/${sha256.slice(0, 2)}/${sha256}`;
  }

  async write(ns: ArtefactNamespace, sha256: string, bytes: Uint8Array, contentType: string): Promise<void> {
    const Key = this.keyOf(ns, sha256);
    if (await this.exists(Key)) return;
    try {
      await this.client.send(new PutObjectCommand({ Bucket: this.settings.bucket, Key, Body: bytes, ContentType: contentType, ContentLength: bytes.byteLength, IfNoneMatch: '*' }));
    } catch (err) {
      // 412: written meanwhile by another writer; the same hash is the same bytes.
      if (statusOf(err) === 412 || nameOf(err) === 'PreconditionFailed') return;
      throw new ArtefactStoreUnavailableError(`write object ${Key}`, err);
    }
  }

  async read(ns: ArtefactNamespace, sha256: string): Promise<Buffer | null> {
    const Key = this.keyOf(ns, sha256);
    try {
      const res = await this.client.send(new GetObjectCommand({ Bucket: this.settings.bucket, Key }));
      return Buffer.from(await res.Body!.transformToByteArray());
    } catch (err) {
      if (absent(err) || nameOf(err) === 'NoSuchKey') return null;
      throw new ArtefactStoreUnavailableError(`read object ${Key}`, err);
    }
  }

  async remove(ns: ArtefactNamespace, sha256: string): Promise<void> {
    const Key = this.keyOf(ns, sha256);
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.settings.bucket, Key }));
    } catch (err) {
      throw new ArtefactStoreUnavailableError(`delete object ${Key}`, err);
    }
  }

  /**
   * One page of the objects under the prefix, in key order after `after` (a key), named back as
   * namespace and hash; keys of another shape are skipped. Only the sweep of unnamed bytes lists
   * the bucket: every other path asks the index.
   */
  async listPage(after: string | undefined, limit: number): Promise<{ objects: Array<{ key: string; namespace: ArtefactNamespace; sha256: string; size: number; lastModified: Date }>; last: string | undefined }> {
    let res;
    try {
      // ListObjects (v1) with a marker: every S3-compatible store pages it the same way, where v2's
      // continuation tokens are each store's own (s3rver's cannot be made under Node 24's OpenSSL).
      res = await this.client.send(new ListObjectsCommand({ Bucket: this.settings.bucket, Prefix: this.settings.prefix || undefined, Marker: after, MaxKeys: limit }));
    } catch (err) {
      throw new ArtefactStoreUnavailableError('list objects', err);
    }
    const contents = res.Contents ?? [];
    const objects = [];
    for (const o of contents) {
      const m = OBJECT_KEY.exec(o.Key!.slice(this.settings.prefix.length));
      if (!m || !o.LastModified) continue;
      objects.push({ key: o.Key!, namespace: { organizationId: m[1]!, livemode: m[2] === 'live' }, sha256: m[3]!, size: Number(o.Size ?? 0), lastModified: o.LastModified });
    }
    return { objects, last: res.IsTruncated ? contents.at(-1)?.Key : undefined };
  }

  private async exists(Key: string): Promise<boolean> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.settings.bucket, Key }));
      return true;
    } catch (err) {
      if (absent(err)) return false;
      throw new ArtefactStoreUnavailableError(`check object ${Key}`, err);
    }
  }

  destroy(): void {
    this.client.destroy();
  }
}
