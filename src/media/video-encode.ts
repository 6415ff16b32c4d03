import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { VideoFormat } from '../domain/media-types.js';
import { ffmpegFileToFile, h264Output, inTempDir, rawRgbInput, runFfmpeg, webpOutput } from './ffmpeg.js';

/** Raw frames larger than this in total go to ffmpeg's streaming WebP encoder instead of sharp. */
export const SHARP_WEBP_BUDGET_BYTES = 256 * 1024 * 1024;

export interface EncodeOptions {
  width: number;
  height: number;
  fps: number;
  format: VideoFormat;
  ffmpegPath: string;
  signal?: AbortSignal;
  /** Where the temporary folder goes (default the OS temp dir). */
  tempDir?: string;
  /** The most raw bytes handed to sharp for a WebP (default SHARP_WEBP_BUDGET_BYTES); past it, ffmpeg encodes. */
  webpBudgetBytes?: number;
}

/**
 * Encodes raw RGB24 frames (width × height × 3 bytes each) into an H.264 MP4 (yuv420p, faststart)
 * through ffmpeg, or an animated WebP through sharp. Frames are pulled one at a time as the encoder
 * takes them; an MP4 never holds the clip in memory.
 */
export async function encodeFrames(
  frames: AsyncIterable<Buffer> | Iterable<Buffer>,
  options: EncodeOptions,
): Promise<Buffer> {
  const { width, height, fps, format, ffmpegPath, signal } = options;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 2 || height < 2)
    throw new Error(`bad frame size ${width}x${height}`);
  if (!(fps > 0)) throw new Error(`bad frame rate ${fps}`);
  const frameBytes = width * height * 3;
  if (format === 'mp4') {
    if (width % 2 || height % 2)
      throw new Error(`H.264 with 4:2:0 chroma needs an even frame size, not ${width}x${height}`);
    return inTempDir(options.tempDir, async (dir) => {
      const out = join(dir, 'out.mp4');
      const args = [...rawRgbInput(width, height, '-r', String(fps)), ...h264Output(out)];
      await runFfmpeg(ffmpegPath, args, { input: frames, frameBytes, signal });
      return readFile(out);
    });
  }
  // Animated WebP through sharp (one raw image, pages stacked, pageHeight = height). sharp needs every
  // frame at once, so past the budget the frames already read and the rest stream into ffmpeg's
  // libwebp_anim encoder instead (the same kind of file: lossy frames, 1000/fps ms each, looping).
  const budget = options.webpBudgetBytes ?? SHARP_WEBP_BUDGET_BYTES;
  const iterator = (Symbol.asyncIterator in frames ? frames[Symbol.asyncIterator]() : frames[Symbol.iterator]()) as
    | AsyncIterator<Buffer>
    | Iterator<Buffer>;
  const held: Buffer[] = [];
  let overBudget = false;
  for (;;) {
    signal?.throwIfAborted();
    const next = await iterator.next();
    if (next.done) break;
    if (next.value.length !== frameBytes) {
      await iterator.return?.();
      throw new Error(`a frame has ${next.value.length} bytes, not ${frameBytes}`);
    }
    held.push(next.value);
    if ((held.length + 1) * frameBytes > budget) {
      overBudget = true;
      break;
    }
  }
  if (overBudget) {
    async function* rest(): AsyncGenerator<Buffer> {
      while (held.length) yield held.shift()!;
      for (;;) {
        const next = await iterator.next();
        if (next.done) return;
        yield next.value;
      }
    }
    return inTempDir(options.tempDir, async (dir) => {
      const out = join(dir, 'out.webp');
      await runFfmpeg(ffmpegPath, [...rawRgbInput(width, height, '-r', String(fps)), ...webpOutput, '-y', out], {
        input: rest(),
        frameBytes,
        signal,
      });
      return readFile(out);
    });
  }
  if (held.length === 0) throw new Error('no frames to encode');
  const { default: sharp } = await import('sharp');
  const delay = Math.round(1000 / fps);
  const raw = Buffer.concat(held);
  held.length = 0;
  const encoded = await sharp(raw, {
    raw: { width, height: height * (raw.length / frameBytes), channels: 3, pageHeight: height },
    limitInputPixels: false,
  })
    .webp({ quality: 75, effort: 2, loop: 0, delay: Array(raw.length / frameBytes).fill(delay) })
    .toBuffer();
  signal?.throwIfAborted();
  return encoded;
}

/** Converts an MP4 to an animated WebP (looping, same frame rate) through ffmpeg. */
export async function mp4ToWebp(
  data: Buffer,
  options: { ffmpegPath: string; signal?: AbortSignal; tempDir?: string },
): Promise<Buffer> {
  return ffmpegFileToFile(
    data,
    { input: 'in.mp4', output: 'out.webp' },
    (input, out) => ['-i', input, ...webpOutput, '-y', out],
    options,
  );
}
