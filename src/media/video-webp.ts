import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { h264Output, inTempDir, rawRgbInput, runFfmpeg } from './ffmpeg.js';
import { SHARP_WEBP_BUDGET_BYTES } from './video-encode.js';
import { webpTiming } from './video-timing.js';

export interface WebpToMp4Options {
  ffmpegPath: string;
  /** The frame rate the clip was made for, when known (see webpTiming). */
  fps?: number;
  signal?: AbortSignal;
  tempDir?: string;
  /** The most decoded bytes held at once (default SHARP_WEBP_BUDGET_BYTES): frames are decoded in runs that fit. */
  budgetBytes?: number;
}

/**
 * Converts an animated WebP to an H.264 MP4 (yuv420p, faststart) with the same frames at the same
 * rate. This ffmpeg's WebP decoder reads no animation (ANIM/ANMF chunks), so sharp decodes the
 * frames, a run at a time, and ffmpeg encodes them from a pipe. An odd side loses its last pixel
 * row or column (4:2:0 chroma needs even sides); transparency is drawn over black.
 */
export async function webpToMp4(data: Buffer, options: WebpToMp4Options): Promise<Buffer> {
  const { default: sharp } = await import('sharp');
  const { signal } = options;
  const meta = await sharp(data, { animated: true, limitInputPixels: false }).metadata();
  const pages = meta.pages ?? 1;
  const width = meta.width;
  const height = meta.pageHeight ?? meta.height;
  if (meta.format !== 'webp' || !width || !height) throw new Error('not a WebP');
  if (width < 2 || height < 2) throw new Error(`a ${width}x${height} WebP is too small for H.264`);
  const timing = webpTiming(meta.delay ?? Array(pages).fill(0), options.fps);
  const frameBytes = width * height * 3;
  const run = Math.max(1, Math.floor((options.budgetBytes ?? SHARP_WEBP_BUDGET_BYTES) / (width * height * 4)));

  async function* frames(): AsyncGenerator<Buffer> {
    for (let first = 0; first < pages; first += run) {
      signal?.throwIfAborted();
      const count = Math.min(run, pages - first);
      const raw = await sharp(data, { page: first, pages: count, limitInputPixels: false })
        .flatten({ background: '#000000' })
        .raw()
        .toBuffer();
      for (let i = 0; i < count; i++) {
        const frame = raw.subarray(i * frameBytes, (i + 1) * frameBytes);
        for (let r = 0; r < timing.repeats[first + i]; r++) yield frame;
      }
    }
  }

  const even = (n: number) => n - (n % 2);
  const crop = width % 2 || height % 2 ? ['-vf', `crop=${even(width)}:${even(height)}:0:0`] : [];
  return inTempDir(options.tempDir, async (dir) => {
    const out = join(dir, 'out.mp4');
    const input = rawRgbInput(width, height, '-framerate', timing.rate);
    const output = [...crop, ...h264Output(out)];
    await runFfmpeg(options.ffmpegPath, [...input, ...output], { input: frames(), frameBytes, signal });
    return readFile(out);
  });
}
