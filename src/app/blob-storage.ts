import { join } from 'node:path';
import { ConfigError, environment } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { createS3Objects } from '../destinations/s3-objects.js';
import {
  type BlobStore,
  IMAGE_BLOBS,
  LocalBlobStore,
  ObjectBlobStore,
  POSTER_BLOBS,
  VIDEO_BLOBS,
} from '../store/blobs.js';
import type { StorageFs } from '../store/durable-fs.js';
import { localMark, MARK_NAME, objectMark, recordedSince } from '../store/recorded-since.js';
import { removeTempFiles } from '../store/temp-files.js';

export interface BlobStores {
  images: BlobStore;
  videos: BlobStore;
  /** Videos' poster frames, in the videos' folder (a copy or a sync of it takes them along). */
  posters: BlobStore;
  /** The data dir's folders the blobs are written to (none on a bucket): where free space matters. */
  folders: { name: string; path: string }[];
  /** Where they live, as doctor names it: the data dir, or s3://bucket/prefix. */
  location: string;
  /**
   * Since when every blob stored is recorded in the store (store/recorded-since.ts); the first call of a version marks
   * it.
   */
  recordedSince(now: number): Promise<number>;
  /** Ends the bucket's kept-alive connections (nothing to do for local files). */
  close(): void;
}

/**
 * The blob stores of images and videos, from `images.storage` (read once, at start): the data
 * dir's `images/` and `videos/` folders, or one S3-compatible bucket under `<prefix>images/` and
 * `<prefix>videos/`. `secret` reads a secret of the encrypted store (for secretAccessKeySecret).
 */
export async function openBlobStores(
  config: Config,
  options: { root: string; secret: (name: string) => Promise<string | undefined>; fs?: StorageFs },
): Promise<BlobStores> {
  const { storage, s3 } = config.images;
  if (storage === 'local' || !s3) {
    const folders = [
      { name: 'images', path: join(options.root, 'images') },
      { name: 'videos', path: join(options.root, 'videos') },
    ];
    const stores = {
      images: new LocalBlobStore(folders[0].path, IMAGE_BLOBS, options.fs),
      videos: new LocalBlobStore(folders[1].path, VIDEO_BLOBS, options.fs),
      posters: new LocalBlobStore(folders[1].path, POSTER_BLOBS, options.fs),
    };
    return {
      ...stores,
      folders,
      location: options.root,
      recordedSince: (now) => recordedSince(localMark(join(options.root, MARK_NAME)), Object.values(stores), now),
      close() {},
    };
  }
  let credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
  if (s3.accessKeyId !== null) {
    const secretAccessKey = s3.secretAccessKeySecret
      ? await options.secret(s3.secretAccessKeySecret)
      : s3.secretAccessKeyEnv
        ? environment.secret(s3.secretAccessKeyEnv)
        : s3.secretAccessKey;
    if (!secretAccessKey) {
      const where = s3.secretAccessKeySecret
        ? `the secret "${s3.secretAccessKeySecret}" (imgtask secrets set ${s3.secretAccessKeySecret})`
        : `the environment variable ${s3.secretAccessKeyEnv}`;
      throw new ConfigError(`images.s3: no secret access key: ${where} is not set`);
    }
    credentials = { accessKeyId: s3.accessKeyId, secretAccessKey };
  }
  const objects = createS3Objects({
    bucket: s3.bucket,
    region: s3.region,
    endpoint: s3.endpoint ?? undefined,
    forcePathStyle: s3.forcePathStyle ?? s3.endpoint !== null,
    credentials,
    timeoutMs: s3.timeoutMs,
  });
  const stores = {
    images: new ObjectBlobStore(objects, `${s3.prefix}images/`, IMAGE_BLOBS),
    videos: new ObjectBlobStore(objects, `${s3.prefix}videos/`, VIDEO_BLOBS),
    posters: new ObjectBlobStore(objects, `${s3.prefix}videos/`, POSTER_BLOBS),
  };
  return {
    ...stores,
    folders: [],
    location: `s3://${s3.bucket}/${s3.prefix}`,
    recordedSince: (now) => recordedSince(objectMark(objects, `${s3.prefix}${MARK_NAME}`), Object.values(stores), now),
    close: () => objects.close(),
  };
}

/**
 * A temp file older than this in images/ or videos/ is a write that never finished (a younger one may be under way in
 * another process).
 */
const STALE_TEMP_MS = 60 * 60 * 1000;

/**
 * The start-up chores of the blob stores, in the background: marking since when every file stored is
 * recorded (by the first start of a version that records them, before it stores any: doctor's orphans
 * rest on it), and removing the temp files of writes a crash interrupted (start-up does not wait for a
 * walk of images/).
 */
export async function tidyBlobStores(blobs: BlobStores, log: (message: string) => void): Promise<void> {
  await blobs
    .recordedSince(Date.now())
    .catch((err: Error) =>
      log(`storage: could not mark since when files are recorded (${err.message}); doctor marks it later`),
    );
  for (const folder of blobs.folders) {
    removeTempFiles(folder.path, STALE_TEMP_MS, 1).then(
      (removed) => removed > 0 && log(`storage: removed ${removed} stale temp file(s) from ${folder.name}/`),
      (err: Error) => log(`storage: could not sweep stale temp files from ${folder.name}/ (${err.message})`),
    );
  }
}
