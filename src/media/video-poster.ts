import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import type { VideoFormat } from '../domain/media-types.js';
import { inTempDir, runFfmpeg } from './video.js';

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
      : await inTempDir(options.tempDir, async (dir) => {
          const input = join(dir, 'in.mp4');
          const out = join(dir, 'frame.png');
          await writeFile(input, data);
          await runFfmpeg(options.ffmpegPath, ['-i', input, '-frames:v', '1', '-an', '-y', out], {
            signal: options.signal,
          });
          return readFile(out);
        });
  return sharp(still).resize({ width: POSTER_MAX_WIDTH, withoutEnlargement: true }).webp({ quality: 80 }).toBuffer();
}
