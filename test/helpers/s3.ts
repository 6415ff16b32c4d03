import { mkdtemp, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import {
  CreateBucketCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import S3rver from 's3rver';

/** A real S3-compatible server (s3rver) on loopback with one bucket, and a client to read it back. */
export async function startS3(t: TestContext, bucket = 'images') {
  const directory = await mkdtemp(join(tmpdir(), 'imgtask-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory });
  const { port } = (await server.run()) as unknown as { port: number };
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({
    region: 'us-east-1',
    endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  t.after(async () => {
    client.destroy();
    await server.close();
    await rm(directory, { recursive: true, force: true });
  });
  return {
    endpoint,
    bucket,
    async read(key: string): Promise<{ body: Buffer; contentType?: string }> {
      const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      return { body: Buffer.from(await object.Body!.transformToByteArray()), contentType: object.ContentType };
    },
    /** HeadObject with exactly this key: the object's headers and user metadata, or null on 404. */
    async head(
      key: string,
    ): Promise<{ contentType?: string; cacheControl?: string; metadata: Record<string, string> } | null> {
      try {
        const object = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
        return { contentType: object.ContentType, cacheControl: object.CacheControl, metadata: object.Metadata ?? {} };
      } catch (err) {
        if ((err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return null;
        throw err;
      }
    },
    /** Every key in the bucket that starts with `prefix`. */
    async keys(prefix = ''): Promise<string[]> {
      const listed = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
      return (listed.Contents ?? []).map((object) => object.Key!);
    },
    /** The total size of the objects whose key starts with `prefix`. */
    async bytes(prefix = ''): Promise<number> {
      const listed = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
      return (listed.Contents ?? []).reduce((sum, object) => sum + (object.Size ?? 0), 0);
    },
    /** Writes an object as another client of the bucket would (one the service does not know of). */
    async put(key: string, body: Buffer): Promise<void> {
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
    },
    /** Dates an object back to `at`: s3rver answers LastModified from its file's modification time. */
    async age(key: string, at: Date): Promise<void> {
      await utimes(join(directory, bucket, `${key}._S3rver_object`), at, at);
    },
  };
}
