import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import type { VideoFormat } from '../domain/media-types.js';
import { webpTiming } from './video-timing.js';

/** What a produced clip is, read from its container (never from a name). */
export interface VideoInfo {
  format: VideoFormat;
  width: number;
  height: number;
  durationS: number;
  frames: number;
  fps: number;
}

export class VideoReadError extends Error {}

// ---------------------------------------------------------------------------------------------
// Probing: MP4 (ISO BMFF boxes) and WebP (RIFF chunks), in TypeScript, every offset checked.

const fourcc = (data: Buffer, at: number) => data.toString('latin1', at, at + 4);

/** Reads big- or little-endian integers from `data[start, end)`; any read past `end` is a VideoReadError. */
class Reader {
  constructor(
    readonly data: Buffer,
    readonly start: number,
    readonly end: number,
    readonly what: string,
  ) {}

  private at(offset: number, bytes: number): number {
    const at = this.start + offset;
    if (offset < 0 || at + bytes > this.end) throw new VideoReadError(`${this.what} is truncated`);
    return at;
  }
  u8 = (offset: number) => this.data[this.at(offset, 1)];
  u16le = (offset: number) => this.data.readUInt16LE(this.at(offset, 2));
  u32be = (offset: number) => this.data.readUInt32BE(this.at(offset, 4));
  u64be = (offset: number): number => {
    const value = this.data.readBigUInt64BE(this.at(offset, 8));
    if (value > BigInt(Number.MAX_SAFE_INTEGER))
      throw new VideoReadError(`${this.what} has an out-of-range 64-bit value`);
    return Number(value);
  };
  u24le = (offset: number) => this.data.readUIntLE(this.at(offset, 3), 3);
  u32le = (offset: number) => this.data.readUInt32LE(this.at(offset, 4));
  fourcc = (offset: number) => fourcc(this.data, this.at(offset, 4));
}

interface Box {
  type: string;
  /** The payload, after the header. */
  body: Reader;
}

/** The boxes directly inside `[start, end)`; size 1 means a 64-bit size follows, size 0 runs to `end`. */
function boxes(data: Buffer, start: number, end: number): Box[] {
  const found: Box[] = [];
  let at = start;
  while (at < end) {
    if (end - at < 8) throw new VideoReadError('MP4 box header is truncated');
    let size = data.readUInt32BE(at);
    const type = fourcc(data, at + 4);
    let header = 8;
    if (size === 1) {
      if (end - at < 16) throw new VideoReadError(`MP4 box ${JSON.stringify(type)} is truncated`);
      const large = data.readBigUInt64BE(at + 8);
      if (large > BigInt(Number.MAX_SAFE_INTEGER))
        throw new VideoReadError(`MP4 box ${JSON.stringify(type)} is too large`);
      size = Number(large);
      header = 16;
    } else if (size === 0) {
      size = end - at;
    }
    if (size < header || at + size > end)
      throw new VideoReadError(`MP4 box ${JSON.stringify(type)} is truncated or has a bad size`);
    found.push({ type, body: new Reader(data, at + header, at + size, `MP4 box ${type}`) });
    at += size;
  }
  return found;
}

const child = (box: Box | undefined, type: string): Box | undefined =>
  box ? boxes(box.body.data, box.body.start, box.body.end).find((b) => b.type === type) : undefined;

function probeMp4(data: Buffer): VideoInfo {
  const top = boxes(data, 0, data.length);
  if (top[0]?.type !== 'ftyp') throw new VideoReadError('not an MP4: no ftyp box first');
  const moov = top.find((b) => b.type === 'moov');
  if (!moov) throw new VideoReadError('MP4 has no moov box');
  if (!top.some((b) => b.type === 'mdat')) throw new VideoReadError('MP4 has no mdat box (no media data)');
  const mvhd = child(moov, 'mvhd');
  let movie = { timescale: 0, duration: 0 };
  if (mvhd) {
    const v = mvhd.body.u8(0);
    movie =
      v === 1
        ? { timescale: mvhd.body.u32be(20), duration: mvhd.body.u64be(24) }
        : { timescale: mvhd.body.u32be(12), duration: mvhd.body.u32be(16) };
  }
  for (const trak of boxes(data, moov.body.start, moov.body.end).filter((b) => b.type === 'trak')) {
    const mdia = child(trak, 'mdia');
    const hdlr = child(mdia, 'hdlr');
    // hdlr: version and flags, pre_defined, then the handler type.
    if (hdlr?.body.fourcc(8) !== 'vide') continue;
    const tkhd = child(trak, 'tkhd');
    if (!tkhd) throw new VideoReadError('MP4 video track has no tkhd box');
    const tv = tkhd.body.u8(0);
    const dims = tv === 1 ? 4 + 84 : 4 + 72;
    // 16.16 fixed point.
    const width = Math.round(tkhd.body.u32be(dims) / 65536);
    const height = Math.round(tkhd.body.u32be(dims + 4) / 65536);
    const mdhd = child(mdia, 'mdhd');
    let track = { timescale: 0, duration: 0 };
    if (mdhd) {
      const v = mdhd.body.u8(0);
      track =
        v === 1
          ? { timescale: mdhd.body.u32be(20), duration: mdhd.body.u64be(24) }
          : { timescale: mdhd.body.u32be(12), duration: mdhd.body.u32be(16) };
    }
    const stsz = child(child(child(mdia, 'minf'), 'stbl'), 'stsz');
    const frames = stsz ? stsz.body.u32be(8) : 0;
    const durationS =
      track.timescale > 0 && track.duration > 0
        ? track.duration / track.timescale
        : movie.timescale > 0
          ? movie.duration / movie.timescale
          : 0;
    return { format: 'mp4', width, height, durationS, frames, fps: durationS > 0 ? frames / durationS : 0 };
  }
  throw new VideoReadError('MP4 has no video track');
}

/** The video track's sample entry type ('avc1' for H.264), or null. */
export function mp4Codec(data: Buffer): string | null {
  try {
    const moov = boxes(data, 0, data.length).find((b) => b.type === 'moov');
    for (const trak of moov ? boxes(data, moov.body.start, moov.body.end).filter((b) => b.type === 'trak') : []) {
      const mdia = child(trak, 'mdia');
      const hdlr = child(mdia, 'hdlr');
      if (hdlr?.body.fourcc(8) !== 'vide') continue;
      const stsd = child(child(child(mdia, 'minf'), 'stbl'), 'stsd');
      if (!stsd || stsd.body.u32be(4) < 1) return null;
      const [entry] = boxes(data, stsd.body.start + 8, stsd.body.end);
      return entry?.type ?? null;
    }
    return null;
  } catch {
    return null;
  }
}

function probeWebp(data: Buffer): VideoInfo {
  // RIFF size counts from byte 8; a file may be padded past it, never cut short of it.
  const riffEnd = 8 + data.readUInt32LE(4);
  if (riffEnd > data.length) throw new VideoReadError('WebP is truncated');
  let at = 12;
  let canvas: { width: number; height: number } | null = null;
  let still: { width: number; height: number } | null = null;
  const delays: number[] = [];
  while (at < riffEnd) {
    if (riffEnd - at < 8) throw new VideoReadError('WebP chunk header is truncated');
    const type = fourcc(data, at);
    const size = data.readUInt32LE(at + 4);
    const body = new Reader(data, at + 8, at + 8 + size, `WebP chunk ${type}`);
    if (at + 8 + size > riffEnd) throw new VideoReadError(`WebP chunk ${JSON.stringify(type)} is truncated`);
    if (type === 'VP8X') canvas = { width: body.u24le(4) + 1, height: body.u24le(7) + 1 };
    else if (type === 'ANMF') delays.push(body.u24le(12));
    else if (type === 'VP8 ') {
      // Frame tag (3 bytes), start code 9d 01 2a, then 14-bit width and height.
      if (body.u8(3) !== 0x9d || body.u8(4) !== 0x01 || body.u8(5) !== 0x2a)
        throw new VideoReadError('WebP VP8 chunk has no start code');
      still = { width: body.u16le(6) & 0x3fff, height: body.u16le(8) & 0x3fff };
    } else if (type === 'VP8L') {
      if (body.u8(0) !== 0x2f) throw new VideoReadError('WebP VP8L chunk has no signature');
      const bits = body.u32le(1);
      still = { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
    }
    at += 8 + size + (size & 1);
  }
  if (delays.length > 0) {
    if (!canvas) throw new VideoReadError('animated WebP has no VP8X chunk');
    const durationS = delays.reduce((sum, delay) => sum + delay, 0) / 1000;
    // Counted at the clip's rate: the encoder stores a run of identical frames as one longer frame.
    const frames = webpTiming(delays).repeats.reduce((sum, repeats) => sum + repeats, 0);
    return { format: 'webp', ...canvas, durationS, frames, fps: durationS > 0 ? frames / durationS : 0 };
  }
  const size = canvas ?? still;
  if (!size || !still) throw new VideoReadError('WebP has no image data');
  return { format: 'webp', ...size, durationS: 0, frames: 1, fps: 0 };
}

/** Reads an MP4 (ISO BMFF boxes) or animated WebP (RIFF chunks) header; throws VideoReadError when it is neither. */
export function probeVideo(data: Buffer): VideoInfo {
  if (data.length >= 12 && fourcc(data, 0) === 'RIFF' && fourcc(data, 8) === 'WEBP') return probeWebp(data);
  if (data.length >= 8 && fourcc(data, 4) === 'ftyp') return probeMp4(data);
  throw new VideoReadError('neither an MP4 nor a WebP');
}

// ---------------------------------------------------------------------------------------------
// Encoding through ffmpeg (MP4) and sharp (animated WebP).

/** The ffmpeg binary shipped in @ffmpeg-installer/ffmpeg (resolved on first call, not at import). */
export function bundledFfmpegPath(): string {
  try {
    const require = createRequire(import.meta.url);
    return (require('@ffmpeg-installer/ffmpeg') as { path: string }).path;
  } catch (err) {
    // The package throws strings ("Unsupported platform/architecture: …", "Could not find ffmpeg executable …").
    const reason = err instanceof Error ? err.message : String(err);
    throw new Error(
      `no bundled ffmpeg for ${process.platform}-${process.arch} (${reason}); install ffmpeg and set video.ffmpegPath`,
    );
  }
}

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

const lastLines = (text: string, count = 5) => text.trim().split('\n').slice(-count).join(' | ');

/**
 * Runs ffmpeg with `args`, writing `input` frames to its stdin with backpressure. Resolves when it
 * exits 0; rejects with the signal's reason on abort (ffmpeg killed), with the last stderr lines
 * on a non-zero exit, or with what the frames' iterator threw (ffmpeg killed).
 */
export async function runFfmpeg(
  ffmpegPath: string,
  args: string[],
  options: { input?: AsyncIterable<Buffer> | Iterable<Buffer>; frameBytes?: number; signal?: AbortSignal },
): Promise<void> {
  const { input, signal } = options;
  signal?.throwIfAborted();
  const proc = spawn(ffmpegPath, ['-hide_banner', '-loglevel', 'error', '-nostdin', ...args], {
    stdio: [input ? 'pipe' : 'ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  proc.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null } | Error>((resolve) => {
    proc.once('error', resolve);
    proc.once('close', (code, sig) => resolve({ code, signal: sig }));
  });
  const kill = () => proc.kill('SIGKILL');
  signal?.addEventListener('abort', kill, { once: true });
  let feedError: unknown;
  try {
    const feeding =
      input && proc.stdin
        ? feed(proc.stdin, input, options.frameBytes, exit).catch((err: unknown) => {
            feedError = err;
            kill();
          })
        : undefined;
    const end = await exit;
    await feeding;
    if (signal?.aborted) throw signal.reason;
    if (feedError !== undefined) throw feedError;
    if (end instanceof Error) throw new Error(`ffmpeg could not be started (${ffmpegPath}): ${end.message}`);
    if (end.code !== 0)
      throw new Error(
        `ffmpeg failed (${end.code === null ? `signal ${end.signal}` : `exit ${end.code}`}): ${lastLines(stderr) || 'no message'}`,
      );
  } finally {
    signal?.removeEventListener('abort', kill);
  }
}

async function feed(
  stdin: Writable,
  frames: AsyncIterable<Buffer> | Iterable<Buffer>,
  frameBytes: number | undefined,
  exit: Promise<unknown>,
): Promise<void> {
  stdin.on('error', () => {}); // EPIPE when ffmpeg stops early: its exit status says why
  let exited = false;
  void exit.then(() => {
    exited = true;
  });
  for await (const frame of frames) {
    if (exited) return;
    if (frameBytes !== undefined && frame.length !== frameBytes)
      throw new Error(`a frame has ${frame.length} bytes, not ${frameBytes}`);
    if (!stdin.write(frame)) await Promise.race([once(stdin, 'drain').catch(() => {}), exit]);
  }
  stdin.end();
}

/** Temporary folders in use; removed at process exit too, in case it comes mid-encode. */
const liveTempDirs = new Set<string>();
let exitHook = false;

/** Runs `work` in a fresh temporary folder, removed afterwards whatever happens. */
export async function inTempDir<T>(parent: string | undefined, work: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(parent ?? tmpdir(), 'imgtask-video-'));
  liveTempDirs.add(dir);
  if (!exitHook) {
    exitHook = true;
    process.once('exit', () => {
      for (const live of liveTempDirs) rmSync(live, { recursive: true, force: true });
    });
  }
  try {
    return await work(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
    liveTempDirs.delete(dir);
  }
}

const rawInput = (width: number, height: number, fps: number) => [
  '-f',
  'rawvideo',
  '-pix_fmt',
  'rgb24',
  '-s',
  `${width}x${height}`,
  '-r',
  String(fps),
  '-i',
  'pipe:0',
];
const webpOutput = ['-c:v', 'libwebp_anim', '-quality', '75', '-compression_level', '2', '-loop', '0', '-an'];

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
      // faststart rewrites the file to put moov first: the output must be seekable, so a file.
      const out = join(dir, 'out.mp4');
      const args = [
        ...rawInput(width, height, fps),
        '-c:v',
        'libx264',
        '-preset',
        'veryfast',
        '-pix_fmt',
        'yuv420p',
        '-movflags',
        '+faststart',
        '-an',
        '-y',
        out,
      ];
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
      await runFfmpeg(ffmpegPath, [...rawInput(width, height, fps), ...webpOutput, '-y', out], {
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
  return inTempDir(options.tempDir, async (dir) => {
    // A file, not a pipe: an MP4 whose moov comes last cannot be read from a pipe.
    const input = join(dir, 'in.mp4');
    const out = join(dir, 'out.webp');
    await writeFile(input, data);
    await runFfmpeg(options.ffmpegPath, ['-i', input, ...webpOutput, '-y', out], { signal: options.signal });
    return readFile(out);
  });
}
