import { AppError } from '../domain/errors.js';
import { IMAGE_MIME, VIDEO_MIME } from '../domain/media-types.js';
import { sniffImage } from '../media/images.js';
import type { BlobStore } from '../store/blobs.js';
import type { Store } from '../store/store-contract.js';
import { storageFailure } from './image-library.js';
import type { UrlFetcher } from './ports.js';

/** What POST /image/verify reads: an http(s) URL, or an `img_` id (the caller's upload, or a made image). */
export type VerifyTarget = { url: string } | { id: string };

/** Bytes to verify, with the media type sniffed from them. */
export interface VerifyAsset {
  data: Buffer;
  mimeType: string;
}

/** The media type of an image or video, from its first bytes (never a name or a header); null for anything else. */
function sniffAsset(data: Buffer): string | null {
  const image = sniffImage(data);
  if (image) return IMAGE_MIME[image];
  if (data.length >= 12 && data.toString('latin1', 4, 8) === 'ftyp') return VIDEO_MIME.mp4;
  return null;
}

/** Bytes as an asset to verify; 400 VALIDATION_ERROR when they are no image or video. */
export function assetOf(data: Buffer): VerifyAsset {
  const mimeType = sniffAsset(data);
  if (!mimeType)
    throw new AppError('VALIDATION_ERROR', 'not an image or video: PNG, JPEG, WebP, GIF or MP4 bytes are verified');
  return { data, mimeType };
}

const readStored = async (blobs: BlobStore, fileName: string): Promise<Buffer | null> => {
  try {
    return await blobs.read(fileName);
  } catch (err) {
    throw new AppError('UNKNOWN_ERROR', `cannot read the stored file: its storage failed (${storageFailure(err)})`);
  }
};

/** What POST /image/verify reads: a URL through the SSRF guard, or an upload from storage. */
export interface VerifySource {
  /** A stored output of this server (the console's full view), by its file name; null when it is gone. */
  stored(kind: 'image' | 'video', fileName: string): Promise<VerifyAsset | null>;
  read(accountId: string, target: VerifyTarget): Promise<VerifyAsset>;
}

/**
 * Reads what a verify names (docs/api/images.md#verify-post-imageverify): the service's own
 * files (its service URLs, an upload's id) from storage, never fetched; any other URL through the
 * SSRF-guarded fetcher with the `fetch.*` limits. An unfetchable URL or bytes that are no image or
 * video are the caller's to fix: 400 VALIDATION_ERROR, never a 500.
 */
export function createVerifySource(deps: {
  store: Pick<Store, 'uploads'>;
  images: BlobStore;
  videos: BlobStore;
  fetcher: UrlFetcher;
  publicBase: () => string;
}): VerifySource {
  /** The stored blob a service URL of this server names, if it is one. */
  function ownFile(url: string): { blobs: BlobStore; name: string } | null {
    for (const [folder, blobs] of [
      ['images', deps.images],
      ['videos', deps.videos],
    ] as const) {
      const prefix = `${deps.publicBase()}/${folder}/`;
      if (!url.startsWith(prefix)) continue;
      const name = url.slice(prefix.length).split(/[?#]/)[0];
      return blobs.isFileName(name) ? { blobs, name } : null;
    }
    return null;
  }

  /** A made image's stored bytes by its id, whatever format it was stored in; null when there is none. */
  async function madeImage(id: string): Promise<Buffer | null> {
    for (const format of ['webp', 'png', 'jpg', 'gif']) {
      const name = `${id}.${format}`;
      if (!deps.images.isFileName(name)) return null;
      const data = await readStored(deps.images, name);
      if (data) return data;
    }
    return null;
  }

  async function bytesOf(accountId: string, target: VerifyTarget): Promise<Buffer> {
    if ('id' in target) {
      const upload = await deps.store.uploads.get(target.id);
      // A made image is stored as `<id>.<format>` and served to whoever holds its id (the random id
      // is the capability, as for GET /images): reading it by id shows no more than that does.
      if (!upload) {
        const made = await madeImage(target.id);
        if (made) return made;
      }
      // Another account's upload answers as an unknown one: nothing tells that it exists.
      if (!upload || upload.accountId !== accountId || upload.deletedAt)
        throw new AppError('NOT_FOUND', `no image ${target.id} among this account's uploads or made images`);
      const data = await readStored(deps.images, upload.fileName);
      if (!data) throw new AppError('NOT_FOUND', `no image ${target.id} among this account's uploads`);
      return data;
    }
    const own = ownFile(target.url);
    if (own) {
      const data = await readStored(own.blobs, own.name);
      if (!data) throw new AppError('NOT_FOUND', 'no such stored file on this server (deleted, or never stored)');
      return data;
    }
    try {
      return (await deps.fetcher.fetch(target.url)).data;
    } catch (err) {
      throw new AppError('VALIDATION_ERROR', `the URL could not be fetched: ${(err as Error).message}`);
    }
  }

  return {
    /** A stored output of this server (the console's full view), by its file name; null when it is gone. */
    async stored(kind: 'image' | 'video', fileName: string): Promise<VerifyAsset | null> {
      const data = await readStored(kind === 'image' ? deps.images : deps.videos, fileName);
      return data ? assetOf(data) : null;
    },
    async read(accountId: string, target: VerifyTarget): Promise<VerifyAsset> {
      return assetOf(await bytesOf(accountId, target));
    },
  };
}
