import { posterFrame } from '../media/video-poster.js';
import type { BlobStore } from '../store/blobs.js';

/** The poster's name of a stored video: `vid_….mp4` → `vid_….poster.webp`. */
export const posterName = (videoFile: string): string => `${videoFile.slice(0, videoFile.indexOf('.'))}.poster.webp`;

/** How many videos whose poster could not be made are remembered, so they are not decoded again on every view. */
const FAILURES_KEPT = 1000;

/**
 * Poster frames of stored videos. One is made when a video is stored; a video stored before
 * posters existed (or whose poster could not be written then) gets one the first time it is asked
 * for. A poster is a convenience: a clip ffmpeg cannot read, or a full disk, leaves the video
 * without one (null), never fails the video.
 */
export function createVideoPosters(deps: { videos: BlobStore; posters: BlobStore; ffmpegPath: () => string }) {
  const making = new Map<string, Promise<Buffer | null>>();
  const failed = new Set<string>();

  async function make(videoFile: string, data: Buffer): Promise<Buffer | null> {
    try {
      const poster = await posterFrame(data, videoFile.endsWith('.webp') ? 'webp' : 'mp4', {
        ffmpegPath: deps.ffmpegPath(),
      });
      await deps.posters.put(posterName(videoFile), poster, 'image/webp');
      return poster;
    } catch {
      if (failed.size >= FAILURES_KEPT) failed.clear();
      failed.add(videoFile);
      return null;
    }
  }

  async function makeLate(videoFile: string): Promise<Buffer | null> {
    const video = await deps.videos.read(videoFile);
    return video ? make(videoFile, video) : null;
  }

  return {
    /** Makes and stores the poster of a video being stored; null when it could not. */
    make,
    /** The poster of a stored video: the stored one, or one made now (once, however many ask at the same time). */
    async get(videoFile: string): Promise<Buffer | null> {
      if (!deps.videos.isFileName(videoFile)) return null;
      const stored = await deps.posters.read(posterName(videoFile));
      if (stored || failed.has(videoFile)) return stored;
      let pending = making.get(videoFile);
      if (!pending) {
        pending = makeLate(videoFile).finally(() => making.delete(videoFile));
        making.set(videoFile, pending);
      }
      return pending;
    },
  };
}
