import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { NodeHttpHandler } from '@smithy/node-http-handler';

export interface S3ObjectsOptions {
  bucket: string;
  region: string;
  endpoint?: string;
  forcePathStyle: boolean;
  /** Static keys; none: the SDK's default chain (AWS_* environment, shared files, instance role). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** Connection and idle-socket deadline of each request. */
  timeoutMs: number;
  /** Attempts per request (the SDK retries throttling, 5xx and transport errors). */
  maxAttempts?: number;
  /**
   * Keys per page of a listing (a ListObjects page's MaxKeys).
   * @default 1000
   */
  listPageSize?: number;
}

/** The store's not-found answers: HeadObject's bare 404, GetObject's NoSuchKey. */
const isNotFound = (err: unknown) => {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.$metadata?.httpStatusCode === 404 || e.name === 'NoSuchKey' || e.name === 'NotFound';
};

/**
 * One S3-compatible bucket as plain object storage (put, head, ranged get, delete, list), for the service's
 * own media when processes do not share a disk. The endpoint is the operator's config, not a
 * user's, so it is reached like a provider's base URL: directly, private addresses included.
 * One client per process, its connections kept alive between requests; `close` ends them.
 */
export function createS3Objects(options: S3ObjectsOptions) {
  const client = new S3Client({
    region: options.region,
    endpoint: options.endpoint,
    forcePathStyle: options.forcePathStyle,
    credentials: options.credentials,
    maxAttempts: options.maxAttempts ?? 3,
    requestHandler: new NodeHttpHandler({
      httpAgent: new http.Agent({ keepAlive: true }),
      httpsAgent: new https.Agent({ keepAlive: true }),
      requestTimeout: options.timeoutMs,
      connectionTimeout: options.timeoutMs,
    }),
  });
  const Bucket = options.bucket;

  return {
    async put(key: string, data: Buffer, contentType: string): Promise<void> {
      await client.send(
        new PutObjectCommand({ Bucket, Key: key, Body: data, ContentType: contentType, ContentLength: data.length }),
      );
    },

    async head(key: string): Promise<{ size: number } | null> {
      try {
        const object = await client.send(new HeadObjectCommand({ Bucket, Key: key }));
        return { size: object.ContentLength ?? 0 };
      } catch (err) {
        if (isNotFound(err)) return null;
        throw err;
      }
    },

    async get(key: string, range?: { start: number; end: number }): Promise<{ size: number; stream: Readable } | null> {
      try {
        const object = await client.send(
          new GetObjectCommand({ Bucket, Key: key, Range: range ? `bytes=${range.start}-${range.end}` : undefined }),
        );
        if (range && !object.ContentRange) {
          // A storage that ignored the Range would have the whole object served as the slice.
          (object.Body as Readable | undefined)?.destroy();
          throw new Error(`the storage answered ${key} without the byte range asked for`);
        }
        // A ranged answer names the whole size after the slash of Content-Range.
        const total = object.ContentRange ? Number(/\/(\d+)$/.exec(object.ContentRange)?.[1]) : Number.NaN;
        return {
          size: Number.isSafeInteger(total) ? total : (object.ContentLength ?? 0),
          stream: object.Body as Readable,
        };
      } catch (err) {
        if (isNotFound(err)) return null;
        throw err;
      }
    },

    /** S3 answers 204 whether or not the key held an object; a store that says 404 instead is no error either. */
    async delete(key: string): Promise<void> {
      try {
        await client.send(new DeleteObjectCommand({ Bucket, Key: key }));
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    },

    /**
     * Every object under `prefix`, a page at a time; an object with no date reads as written now
     * (never old enough to remove). Each page starts after the last key of the one before (keys
     * come in order): ListObjects with a marker, which every S3-compatible server answers, where
     * ListObjectsV2's continuation tokens fail on some (s3rver's need a cipher OpenSSL 3 dropped).
     */
    async *list(prefix: string): AsyncIterable<{ key: string; size: number; modifiedAt: Date }> {
      let Marker: string | undefined;
      for (;;) {
        const page = await client.send(
          new ListObjectsCommand({ Bucket, Prefix: prefix, Marker, MaxKeys: options.listPageSize ?? 1000 }),
        );
        const objects = page.Contents ?? [];
        for (const object of objects) {
          if (object.Key)
            yield { key: object.Key, size: object.Size ?? 0, modifiedAt: object.LastModified ?? new Date() };
        }
        const last = objects.at(-1)?.Key;
        if (!page.IsTruncated || last === undefined) return;
        Marker = last;
      }
    },

    close(): void {
      client.destroy();
    },
  };
}
