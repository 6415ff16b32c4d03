import type { Agent as HttpAgent } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import { DeleteObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { SafeFetchError } from '../net/safe-fetch.js';
import type { StorageDriver } from './storage-driver.js';
import { guardFailure, publicUrl, StorageError } from './storage-driver.js';

export interface S3Options {
  bucket: string;
  region: string;
  endpoint?: string;
  prefix?: string;
  forcePathStyle?: boolean;
  accessKeyId: string;
  secretAccessKey: string;
  publicBaseUrl?: string;
  timeoutMs: number;
  /** Agents whose connections go only to checked addresses (the endpoint is user-supplied). */
  agents: { http: HttpAgent; https: HttpsAgent };
}

/**
 * The SDK's error as a StorageError in the storage's own words: when it answered, its error code
 * and message (`NoSuchBucket: …`); when it was not reached, the guard's refusal or the system's
 * error code. Never the name of the class that carried it.
 */
function storageError(err: unknown, endpoint: string | undefined): StorageError {
  if (err instanceof SafeFetchError) return guardFailure(err);
  const e = err as Error & { Code?: string; code?: string; $metadata?: { httpStatusCode?: number } };
  const timedOut = /timeout/i.test(e.name) || e.code === 'ETIMEDOUT';
  const status = e.$metadata?.httpStatusCode;
  if (status) {
    const said = `${e.Code ?? e.name}: ${e.message}`;
    return new StorageError(said, `HTTP ${status} ${said}`.slice(0, 500), timedOut);
  }
  const where = endpoint ? new URL(endpoint).host : 'the storage';
  return new StorageError(
    timedOut ? `no answer from ${where} in time` : `cannot reach ${where}: ${e.code ?? e.message}`,
    undefined,
    timedOut,
  );
}

/** Any S3-compatible store (AWS, MinIO, R2, …) through @aws-sdk/client-s3. */
export function createS3(options: S3Options): StorageDriver {
  /** Runs one request on a fresh client: nothing is kept between tasks, so nothing is left open either. */
  async function withClient(send: (client: S3Client) => Promise<unknown>): Promise<void> {
    const client = new S3Client({
      region: options.region,
      endpoint: options.endpoint,
      forcePathStyle: options.forcePathStyle ?? Boolean(options.endpoint),
      credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey },
      maxAttempts: 2,
      requestHandler: new NodeHttpHandler({
        httpAgent: options.agents.http,
        httpsAgent: options.agents.https,
        requestTimeout: options.timeoutMs,
        connectionTimeout: options.timeoutMs,
      }),
    });
    try {
      await send(client);
    } catch (err) {
      throw storageError(err, options.endpoint);
    } finally {
      client.destroy();
    }
  }

  return {
    async put(object, signal) {
      const key = `${options.prefix ?? ''}${object.key}`;
      await withClient((client) =>
        client.send(
          new PutObjectCommand({
            Bucket: options.bucket,
            Key: key,
            Body: object.data,
            ContentType: object.contentType,
            CacheControl: object.cacheControl,
            Metadata: object.taskId ? { 'task-id': object.taskId } : undefined,
          }),
          { abortSignal: signal },
        ),
      );
      return { key, url: publicUrl(options.publicBaseUrl, key) };
    },
    async remove(key) {
      await withClient((client) => client.send(new DeleteObjectCommand({ Bucket: options.bucket, Key: key })));
    },
  };
}
