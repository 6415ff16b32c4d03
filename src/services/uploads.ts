import { AppError } from '../domain/errors.js';
import { sizeText } from '../domain/sizes.js';
import { isoTime } from '../domain/time.js';
import { ImageReadError, probeImage } from '../media/images.js';
import type { UploadRecord } from '../store/records.js';
import type { Store } from '../store/store-contract.js';
import type { ImageLibrary } from './image-library.js';
import type { Clock } from './ports.js';

/** Upload limits (docs/api/uploads.md, docs/api/limits.md). */
export const UPLOAD_LIMITS = {
  minFiles: 1,
  maxFiles: 10,
  minBytes: 1024,
  maxBytes: 10 * 1024 * 1024,
  maxBody: 100 * 1024 * 1024,
} as const;

export interface ReceivedFile {
  filename: string;
  data: Buffer;
  /** More than maxBytes arrived; the rest was not kept. */
  truncated: boolean;
}

export interface UploadedImage {
  id: string;
  url: string;
  service_url: string;
  format: 'png' | 'jpg' | 'webp';
  size: string;
  bytes: number;
  filename: string;
}

/** Who uploads: the account, and the key (null for an access token). */
export interface Uploader {
  accountId: string;
  apiKeyId: string | null;
}

/** Uploaded images and their records (POST /image/upload). */
export interface UploadService {
  /**
   * Stores the files as `storeUploads` does, then records each (its blob is durable first: a
   * record never names nothing). An upload whose account began to be erased while its body
   * arrived is removed again: the erase may have passed its uploads already.
   */
  store(uploader: Uploader, files: ReceivedFile[]): Promise<UploadedImage[]>;
}

/**
 * Uploaded images (POST /image/upload): each stored with a record of whose it is, so its owner
 * can delete it (DELETE /image/upload/{id}: services/data-removal.ts), retention can age it out
 * and the account's stored bytes count it.
 */
export function createUploadService(deps: {
  images: ImageLibrary;
  store: Pick<Store, 'uploads' | 'accounts'>;
  clock: Clock;
  maxPixels: () => number;
  /** Removes an upload's file and record (services/data-removal.ts). */
  discard: (upload: UploadRecord) => Promise<void>;
}): UploadService {
  return {
    /**
     * Stores the files as `storeUploads` does, then records each (its blob is durable first: a
     * record never names nothing). An upload whose account began to be erased while its body
     * arrived is removed again: the erase may have passed its uploads already.
     */
    async store(uploader: Uploader, files: ReceivedFile[]): Promise<UploadedImage[]> {
      const stored = await storeUploads(deps.images, files, deps.maxPixels());
      const createdAt = isoTime(deps.clock.now());
      const records: UploadRecord[] = stored.map((image) => ({
        id: image.id,
        accountId: uploader.accountId,
        apiKeyId: uploader.apiKeyId,
        fileName: `${image.id}.${image.format}`,
        bytes: image.bytes,
        createdAt,
      }));
      await Promise.all(records.map((record) => deps.store.uploads.put(record)));
      const account = await deps.store.accounts.get(uploader.accountId);
      if (!account || account.erasingSince !== undefined || account.erasedAt !== undefined) {
        for (const record of records) await deps.discard(record);
        throw new AppError('UNAUTHORIZED', 'this account is being erased');
      }
      return stored;
    },
  };
}

/**
 * Checks every file before storing any (all or nothing): 1 to 10 files, each 1 KB to 10 MB,
 * JPEG, PNG or WEBP by its bytes (never its name), readable within the pixel limit. Refused
 * with 507 STORAGE_FULL while free space is below store.minFreeBytes, or when the disk fills.
 */
async function storeUploads(images: ImageLibrary, files: ReceivedFile[], maxPixels: number): Promise<UploadedImage[]> {
  await images.admitUpload();
  if (files.length < UPLOAD_LIMITS.minFiles)
    throw new AppError('VALIDATION_ERROR', 'send at least one file in the multipart field "files"');
  if (files.length > UPLOAD_LIMITS.maxFiles)
    throw new AppError('VALIDATION_ERROR', `at most ${UPLOAD_LIMITS.maxFiles} files per upload`);
  const checked = [];
  for (const [index, file] of files.entries()) {
    const label = `file ${index + 1} (${file.filename || 'unnamed'})`;
    if (file.truncated || file.data.length > UPLOAD_LIMITS.maxBytes)
      throw new AppError('VALIDATION_ERROR', `${label} is larger than 10 MB`);
    if (file.data.length < UPLOAD_LIMITS.minBytes)
      throw new AppError('VALIDATION_ERROR', `${label} is smaller than 1 KB`);
    let probe: Awaited<ReturnType<typeof probeImage>>;
    try {
      probe = await probeImage(file.data, maxPixels);
    } catch (err) {
      throw new AppError(
        'VALIDATION_ERROR',
        `${label} is not a readable JPEG, PNG or WEBP image${err instanceof ImageReadError ? `: ${err.message}` : ''}`,
      );
    }
    if (probe.format === 'gif')
      throw new AppError('VALIDATION_ERROR', `${label} is a GIF; uploads take JPEG, PNG or WEBP`);
    checked.push({ file, probe: { ...probe, format: probe.format === 'jpeg' ? ('jpg' as const) : probe.format } });
  }
  const stored: UploadedImage[] = [];
  for (const { file, probe } of checked) {
    const image = await images.saveAsIs(file.data, probe.format, probe.width, probe.height);
    stored.push({
      id: image.id,
      url: image.serviceUrl,
      service_url: image.serviceUrl,
      format: probe.format,
      size: sizeText(probe.width, probe.height),
      bytes: image.bytes,
      filename: file.filename,
    });
  }
  return stored;
}
