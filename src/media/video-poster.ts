import sharp from 'sharp';
import type { VideoFormat } from '../domain/media-types.js';
import { ffmpegFileToFile } from './ffmpeg.js';

/** A poster is never wider than the widest thumbnail made from it. */
const POSTER_MAX_WIDTH = 1280;

/**
 * A still of a clip, for pages that show videos as pictures: its first frame as a WebP. An MP4's
 * frame comes from ffmpeg (from a file: an MP4 whose moov comes last cannot be read from a pipe);
 * an animated WebP's from sharp, which reads its first page.
 */
export async function posterFrame(
  data: Buffer,
  format: VideoFormat,
  options: { ffmpegPath: string; signal?: AbortSignal; tempDir?: string },
): Promise<Buffer> {
  const still =
    format === 'webp'
      ? data
      : await ffmpegFileToFile(
          data,
          { input: 'in.mp4', output: 'frame.png' },
          (input, out) => ['-i', input, '-frames:v', '1', '-an', '-y', out],
          options,
        );
  return sharp(still).resize({ width: POSTER_MAX_WIDTH, withoutEnlargement: true }).webp({ quality: 80 }).toBuffer();
}
