import type { ConfigSource } from '../config/source.js';
import { IMAGE_ID, randomId } from '../domain/ids.js';
import { IMAGE_MIME } from '../domain/media-types.js';
import type { OutputOrigin, ProvenanceState } from '../domain/provenance.js';
import { isOutOfSpace, storageFull } from '../domain/storage-full.js';
import { ProviderError, type TaskErrorCode } from '../domain/task-status.js';
import { encodeImage, ImageReadError, type OutputFormat, probeImage } from '../media/images.js';
import type { SourceImage } from '../providers/provider-types.js';
import type { BlobStore, ByteRange, OpenedBlob } from '../store/blobs.js';
import type { StoredFile } from '../store/records.js';
import { type StoringSigner, signForStorage } from './output-signing.js';
import type { UrlFetcher } from './ports.js';
import type { SpaceGuard } from './space-guard.js';

export interface StoredImage {
  id: string;
  fileName: string;
  format: 'png' | 'jpg' | 'webp' | 'gif';
  width: number;
  height: number;
  bytes: number;
  serviceUrl: string;
  /** What was written: the image's blob and its size (an item's `files`). */
  files: StoredFile[];
  /** Whether the stored bytes carry Content Credentials; set for an image stored with an origin (a made one). */
  provenance?: ProvenanceState;
}

/** What the storage said when it failed, short enough for a task's error (its code, never its address). */
export function storageFailure(err: unknown): string {
  const e = err as { Code?: string; code?: string; name?: string; $metadata?: { httpStatusCode?: number } };
  const status = e.$metadata?.httpStatusCode;
  return `${status ? `HTTP ${status} ` : ''}${e.Code ?? e.code ?? e.name ?? 'Error'}`;
}

/**
 * Writes a blob; a storage that fails (an S3 bucket out of reach) fails the item with
 * UNKNOWN_ERROR, not retried: the service's own storage is not a provider, so trying another
 * provider (PROVIDER_ERROR's retries) would only make and pay for the same image again. A full
 * disk is STORAGE_FULL instead: an upload answers 507, and the runner keeps the item pending and
 * runs it again once space is back.
 */
export async function putBlob(
  blobs: BlobStore,
  fileName: string,
  data: Buffer,
  contentType: string,
  what: string,
): Promise<void> {
  try {
    await blobs.put(fileName, data, contentType);
  } catch (err) {
    if (isOutOfSpace(err))
      throw storageFull(`the ${what} could not be stored: the server's storage is full; retry once space is freed`);
    throw new ProviderError(
      'UNKNOWN_ERROR',
      `the ${what} could not be stored: its storage failed (${storageFailure(err)})`,
      { retryable: false },
    );
  }
}

/** Stored images: fetch, store (signed), read and their public URLs. */
export interface ImageLibrary {
  serviceUrl(fileName: string): string;
  /** Throws STORAGE_FULL while free space is below the floor: uploads wait for space (generated images do not). */
  admitUpload(): Promise<void>;
  /** A stored image's size; null when the name is not an image's or nothing is stored under it. */
  stat(fileName: string): Promise<{ size: number } | null>;
  /** A stored image's bytes (a range of them), as a stream; null as for `stat`. */
  open(fileName: string, range?: ByteRange): Promise<OpenedBlob | null>;
  /**
   * Loads an image for a provider. `fetchCode` is what a URL that cannot be fetched or read
   * fails with: FETCH_FAILED for rating and alt text, INVALID_INPUT for inputs. `signal` (the
   * item's) aborts a fetch under way.
   */
  load(ref: string, fetchCode: TaskErrorCode, signal: AbortSignal): Promise<SourceImage>;
  /**
   * Encodes to the requested format and stores it durably; returns the stored bytes too (for a
   * destination). With an `origin` (a made image) the encoded bytes are signed before they are
   * stored: the file, what /images serves and what a destination gets carry the credentials.
   */
  saveEncoded(
    data: Buffer,
    format: OutputFormat,
    quality: number,
    origin?: OutputOrigin,
  ): Promise<StoredImage & { data: Buffer }>;
  /**
   * Stores bytes as they are (uploads; provider output already in the right format), signed first when they have an
   * `origin`.
   */
  saveAsIs(
    data: Buffer,
    format: 'png' | 'jpg' | 'webp' | 'gif',
    width: number,
    height: number,
    origin?: OutputOrigin,
  ): Promise<StoredImage & { data: Buffer }>;
}

/**
 * Images the service stores and reads. Its own images (service URLs, or bare `img_…` ids)
 * are read from its blob store (the data dir or the shared bucket), never fetched; every other
 * URL goes through the SSRF-guarded fetcher.
 */
export function createImageLibrary(deps: {
  blobs: BlobStore;
  fetcher: UrlFetcher;
  publicBase: () => string;
  config: Pick<ConfigSource, 'current'>;
  /** Refuses uploads while free space is below store.minFreeBytes; none: never refused. */
  space?: Pick<SpaceGuard, 'admit'>;
  /** Signs the images stored with an origin (docs/provenance.md); none: they are stored unsigned. */
  signer?: StoringSigner;
  log?: (message: string) => void;
}): ImageLibrary {
  const maxPixels = () => deps.config.current().fetch.maxPixels;
  const serviceUrl = (fileName: string) => `${deps.publicBase()}/images/${fileName}`;

  /** The stored file a URL or id names, if it is one of ours. */
  async function ownFile(ref: string): Promise<string | null> {
    if (IMAGE_ID.test(ref)) return deps.blobs.findById(ref);
    const prefix = `${deps.publicBase()}/images/`;
    if (!ref.startsWith(prefix)) return null;
    const name = ref.slice(prefix.length).split(/[?#]/)[0];
    return deps.blobs.isFileName(name) ? name : null;
  }

  return {
    serviceUrl,
    /** Throws STORAGE_FULL while free space is below the floor: uploads wait for space (generated images do not). */
    admitUpload: async (): Promise<void> => deps.space?.admit(),
    /** A stored image's size; null when the name is not an image's or nothing is stored under it. */
    stat: (fileName: string) => deps.blobs.stat(fileName),
    /** A stored image's bytes (a range of them), as a stream; null as for `stat`. */
    open: (fileName: string, range?: ByteRange) => deps.blobs.open(fileName, range),

    /**
     * Loads an image for a provider. `fetchCode` is what a URL that cannot be fetched or read
     * fails with: FETCH_FAILED for rating and alt text, INVALID_INPUT for inputs. `signal` (the
     * item's) aborts a fetch under way.
     */
    async load(ref: string, fetchCode: TaskErrorCode, signal: AbortSignal): Promise<SourceImage> {
      let data: Buffer | null;
      const own = await ownFile(ref);
      // An id names only a stored image: one not stored is no URL to fetch.
      if (!own && IMAGE_ID.test(ref))
        throw new ProviderError(fetchCode, `no stored image ${ref}`, { retryable: false });
      if (own) {
        try {
          data = await deps.blobs.read(own);
        } catch (err) {
          throw new ProviderError(
            fetchCode,
            `cannot read the stored image ${own}: its storage failed (${storageFailure(err)})`,
            { retryable: false },
          );
        }
        if (!data) throw new ProviderError(fetchCode, `no stored image ${own}`, { retryable: false });
      } else {
        try {
          data = (await deps.fetcher.fetch(ref, signal)).data;
        } catch (err) {
          throw new ProviderError(fetchCode, `cannot fetch the image: ${(err as Error).message}`, { retryable: false });
        }
      }
      try {
        const { format, width, height } = await probeImage(data, maxPixels());
        return { data, format, width, height };
      } catch (err) {
        throw new ProviderError(fetchCode, err instanceof ImageReadError ? err.message : 'the image cannot be read', {
          retryable: false,
        });
      }
    },

    /**
     * Encodes to the requested format and stores it durably; returns the stored bytes too (for a
     * destination). With an `origin` (a made image) the encoded bytes are signed before they are
     * stored: the file, what /images serves and what a destination gets carry the credentials.
     */
    async saveEncoded(
      data: Buffer,
      format: OutputFormat,
      quality: number,
      origin?: OutputOrigin,
    ): Promise<StoredImage & { data: Buffer }> {
      const encoded = await encodeImage(data, format, quality, maxPixels());
      return this.saveAsIs(encoded.data, format, encoded.width, encoded.height, origin);
    },

    /**
     * Stores bytes as they are (uploads; provider output already in the right format), signed first when they have an
     * `origin`.
     */
    async saveAsIs(
      data: Buffer,
      format: 'png' | 'jpg' | 'webp' | 'gif',
      width: number,
      height: number,
      origin?: OutputOrigin,
    ): Promise<StoredImage & { data: Buffer }> {
      const id = randomId('img');
      const fileName = `${id}.${format}`;
      const stored = await signForStorage(deps.signer, data, IMAGE_MIME[format], origin, deps.log);
      await putBlob(deps.blobs, fileName, stored.data, IMAGE_MIME[format], 'image');
      const bytes = stored.data.length;
      const image = {
        id,
        fileName,
        format,
        width,
        height,
        bytes,
        serviceUrl: serviceUrl(fileName),
        files: [{ name: fileName, bytes }],
        data: stored.data,
      };
      return stored.provenance ? { ...image, provenance: stored.provenance } : image;
    },
  };
}
