import sharp from 'sharp';
import { AppError } from '../../domain/errors.js';
import { createThumbCache } from './thumb-cache.js';

/**
 * The only widths thumbnails are made at: the grid's srcset (160, 320, 640), the inspector's (160, 320) and the full
 * view's (640, 1280).
 */
export const THUMB_WIDTHS = [160, 320, 640, 1280] as const;
export type ThumbWidth = (typeof THUMB_WIDTHS)[number];
/** The grid's widths: a tile is at most 320 CSS pixels wide, so 640 serves a 2× screen. */
export const GRID_WIDTHS: readonly ThumbWidth[] = [160, 320, 640];
/** The task inspector's widths: a 160-pixel picture, 320 for a 2× screen. */
export const INSPECTOR_WIDTHS: readonly ThumbWidth[] = [160, 320];
/** The full view's widths. */
export const VIEW_WIDTHS: readonly ThumbWidth[] = [640, 1280];

/** What the thumbnails of one process may hold in memory: 32 MiB (about 2,000 grid thumbnails). */
export const THUMB_CACHE_BYTES = 32 * 1024 * 1024;
/** Bumped when the encoding below changes, so browsers holding the old bytes under their ETag ask again. */
const ENCODING_VERSION = 1;

/** The width asked (`?w=`), if it is one of THUMB_WIDTHS; VALIDATION_ERROR otherwise. */
export function thumbWidth(asked: string | undefined): ThumbWidth {
  const width = Number(asked);
  const found = THUMB_WIDTHS.find((w) => w === width);
  if (!found) throw new AppError('VALIDATION_ERROR', `w: one of ${THUMB_WIDTHS.join(', ')}`);
  return found;
}

/** The ETag of an image's thumbnail at a width: the image's bytes never change under its id. */
export const thumbEtag = (imageId: string, width: ThumbWidth): string => `"${imageId}.w${width}.v${ENCODING_VERSION}"`;

/** The URL of a gallery item's thumbnail at a width. */
export const thumbUrl = (taskId: string, index: number, width: ThumbWidth): string =>
  `/console/thumbs/${taskId}/${index}?w=${width}`;

/** `srcset` over the given widths. */
export const thumbSrcset = (taskId: string, index: number, widths: readonly ThumbWidth[]): string =>
  widths.map((w) => `${thumbUrl(taskId, index, w)} ${w}w`).join(', ');

/**
 * Thumbnails of stored images and video posters: the source bytes (read only when no thumbnail
 * is kept) decoded under the service's pixel limit (a decompression bomb is refused before it costs
 * memory), scaled down to the width (never up), encoded as webp, and kept in a bounded LRU so a
 * second view does not resize again.
 */
export function createThumbnailMaker(deps: { maxPixels: () => number }, maxBytes = THUMB_CACHE_BYTES) {
  const cache = createThumbCache(maxBytes);

  async function resize(read: () => Promise<Buffer | null>, width: ThumbWidth): Promise<Buffer> {
    const data = await read();
    if (!data) throw new AppError('NOT_FOUND', 'no such image');
    try {
      return await sharp(data, { limitInputPixels: deps.maxPixels() })
        .rotate()
        .resize({ width, withoutEnlargement: true })
        .webp({ quality: 75, alphaQuality: 90 })
        .toBuffer();
    } catch {
      throw new AppError('NOT_FOUND', 'this image cannot be read');
    }
  }

  return {
    /**
     * The thumbnail of the stored file `name` at `width`, from the bytes `read` answers (`made`: resized now rather
     * than found in memory).
     */
    thumbnail: (name: string, width: ThumbWidth, read: () => Promise<Buffer | null>) =>
      cache.get(`${name}@${width}`, () => resize(read, width)),
  };
}
