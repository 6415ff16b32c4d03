import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Writable } from 'node:stream';

// Running ffmpeg: where its binary is, feeding it frames, and the temporary folders its files go in.

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

/**
 * Runs ffmpeg on `data` written to a file named `inputName` in a temporary folder, answering the
 * file `outputName` it wrote there. A file, not a pipe: an MP4 whose moov comes last cannot be read
 * from a pipe.
 */
export function ffmpegFileToFile(
  data: Buffer,
  names: { input: string; output: string },
  args: (input: string, out: string) => string[],
  options: { ffmpegPath: string; signal?: AbortSignal; tempDir?: string },
): Promise<Buffer> {
  return inTempDir(options.tempDir, async (dir) => {
    const input = join(dir, names.input);
    const out = join(dir, names.output);
    await writeFile(input, data);
    await runFfmpeg(options.ffmpegPath, args(input, out), { signal: options.signal });
    return readFile(out);
  });
}

/** ffmpeg's arguments for raw RGB24 frames of `width` × `height` read from stdin, at `rate` (given with `rateFlag`). */
export const rawRgbInput = (width: number, height: number, rateFlag: '-r' | '-framerate', rate: string) => [
  '-f',
  'rawvideo',
  '-pix_fmt',
  'rgb24',
  '-s',
  `${width}x${height}`,
  rateFlag,
  rate,
  '-i',
  'pipe:0',
];

/** H.264 (yuv420p) into `out`; faststart rewrites the file to put moov first, so `out` must be a file. */
export const h264Output = (out: string) => [
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

/** A looping animated WebP (lossy, quality 75). */
export const webpOutput = ['-c:v', 'libwebp_anim', '-quality', '75', '-compression_level', '2', '-loop', '0', '-an'];
