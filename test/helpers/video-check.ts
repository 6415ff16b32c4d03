import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { bundledFfmpegPath } from '../../src/media/ffmpeg.js';
import { probeVideo } from '../../src/media/video-probe.js';

const run = promisify(execFile);

/** The top-level ISO BMFF box types in file order, e.g. ['ftyp', 'moov', 'mdat'] (moov before mdat = fast start). */
export function mp4Boxes(data: Buffer): string[] {
  const types: string[] = [];
  let at = 0;
  while (at + 8 <= data.length) {
    let size = data.readUInt32BE(at);
    types.push(data.toString('latin1', at + 4, at + 8));
    if (size === 1) size = Number(data.readBigUInt64BE(at + 8));
    else if (size === 0) size = data.length - at;
    if (size < 8) break;
    at += size;
  }
  return types;
}

export interface DecodedVideo {
  /** How many frames the decoder produced. */
  frames: number;
  width: number;
  height: number;
  /** Every decoded frame, back to back (`gray`: 1 byte a pixel, `rgb24`: 3). */
  pixels: Buffer;
  /** Frame `i`'s bytes. */
  frame(i: number): Buffer;
}

/**
 * Decodes a clip with the bundled ffmpeg (a real demuxer and decoder), every frame as it is in the
 * file (`-vsync passthrough`: none dropped or repeated). The size comes from the container.
 */
export async function decodeVideo(
  data: Buffer,
  ffmpegPath = bundledFfmpegPath(),
  options: { pixFmt?: 'gray' | 'rgb24' } = {},
): Promise<DecodedVideo> {
  const pixFmt = options.pixFmt ?? 'gray';
  const { width, height } = probeVideo(data);
  const dir = await mkdtemp(join(tmpdir(), 'imgtask-decode-'));
  try {
    const file = join(dir, 'in');
    await writeFile(file, data);
    const { stdout } = await run(
      ffmpegPath,
      ['-v', 'error', '-nostdin', '-i', file, '-vsync', 'passthrough', '-f', 'rawvideo', '-pix_fmt', pixFmt, '-'],
      {
        encoding: 'buffer',
        maxBuffer: 1024 * 1024 * 1024,
      },
    );
    const frameBytes = width * height * (pixFmt === 'gray' ? 1 : 3);
    if (stdout.length % frameBytes !== 0)
      throw new Error(`decoded ${stdout.length} bytes: not a whole number of ${width}x${height} frames`);
    return {
      frames: stdout.length / frameBytes,
      width,
      height,
      pixels: stdout,
      frame: (i) => stdout.subarray(i * frameBytes, (i + 1) * frameBytes),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** An animated WebP as sharp (libwebp's demuxer) reads it. */
export async function webpAnimation(
  data: Buffer,
): Promise<{ pages: number; delay: number[]; loop: number; width: number; pageHeight: number }> {
  const meta = await sharp(data).metadata();
  if (meta.format !== 'webp') throw new Error(`not a WebP: ${meta.format}`);
  return {
    pages: meta.pages ?? 1,
    delay: meta.delay ?? [],
    loop: meta.loop ?? 0,
    width: meta.width,
    pageHeight: meta.pageHeight ?? meta.height,
  };
}

/** Each WebP frame as raw RGB (sharp decodes every page, stacked). */
export async function webpFrames(data: Buffer): Promise<{ width: number; height: number; frames: Buffer[] }> {
  const { data: raw, info } = await sharp(data, { animated: true })
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const pages = info.pages ?? 1;
  const height = info.pageHeight ?? info.height / pages;
  const bytes = info.width * height * 3;
  return {
    width: info.width,
    height,
    frames: Array.from({ length: pages }, (_, i) => raw.subarray(i * bytes, (i + 1) * bytes)),
  };
}

/** The mean absolute difference of two equal-length byte arrays (0–255). */
export function meanAbsDiff(a: Uint8Array, b: Uint8Array): number {
  if (a.length !== b.length) throw new Error(`lengths differ: ${a.length} and ${b.length}`);
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i] - b[i]);
  return sum / a.length;
}
