import type { Readable } from 'node:stream';
import { AppError } from '../../domain/errors.js';
import type { ConsoleDeps } from '../console-deps.js';
import type { GalleryItem } from './gallery-items.js';
import { createThumbnailMaker, type ThumbWidth, thumbEtag } from './thumbnails.js';
import { videoPlaceholder } from './video-placeholder.js';

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const webp = (data: Buffer, headers: Record<string, string>) =>
  new Response(new Uint8Array(data), {
    status: 200,
    headers: { ...headers, 'content-type': 'image/webp', 'content-length': String(data.byteLength) },
  });

/**
 * The answers of GET /console/thumbs/{taskId}/{index}: an image's thumbnail, or a video's poster
 * frame at the width (the poster made now for a video stored without one). Either is cached
 * privately under its ETag for images.cacheMaxAgeSeconds, as the image itself (not as immutable:
 * a deleted task's pictures go); a video with no poster to show gets a placeholder, never cached,
 * so that its frame shows once one can be made.
 */
export function createThumbAnswers(deps: Pick<ConsoleDeps, 'images' | 'videos' | 'config'>) {
  const thumbnails = createThumbnailMaker({ maxPixels: () => deps.config.current().fetch.maxPixels });

  async function source(item: GalleryItem): Promise<Buffer | null> {
    if (item.kind === 'video') return deps.videos.poster(item.file);
    const opened = await deps.images.open(item.file);
    return opened ? readAll(opened.stream) : null;
  }

  return async function answer(
    item: GalleryItem,
    width: ThumbWidth,
    ifNoneMatch: string | undefined,
  ): Promise<Response> {
    const etag = thumbEtag(item.id, width);
    const headers = { etag, 'cache-control': `private, max-age=${deps.config.current().images.cacheMaxAgeSeconds}` };
    if (ifNoneMatch === etag) return new Response(null, { status: 304, headers });
    try {
      const { data, made } = await thumbnails.thumbnail(item.file, width, () => source(item));
      return webp(data, { ...headers, 'x-thumbnail': made ? 'resized' : 'cached' });
    } catch (err) {
      if (item.kind !== 'video' || !(err instanceof AppError) || err.code !== 'NOT_FOUND') throw err;
      return webp(await videoPlaceholder(), { 'cache-control': 'no-store', 'x-thumbnail': 'placeholder' });
    }
  };
}
