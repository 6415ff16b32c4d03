/**
 * Placeholder video benchmark (not a test): seconds of compute per second of footage for the
 * embedded placeholder model (frames made in JavaScript, encoded by the bundled ffmpeg for MP4 and
 * by sharp for animated WebP), beside its anchor measured in the same run: the bare ffmpeg encoding
 * the same number of frames of its own test source (`-f lavfi -i testsrc`, libx264 veryfast,
 * yuv420p; for WebP, libwebp_anim at our settings). 640x360, 24 fps, 4 s clips.
 *
 * Two more figures split the gap: the bare ffmpeg encoding *our* frames read from a raw file (the
 * encoder's share for our content), and our frames through ffmpeg's libwebp_anim instead of sharp
 * (the path past sharp's memory budget). Every round runs each case once, interleaved, after one
 * warm-up round (JIT, fonts, sharp, the page cache); each figure is the median of ROUNDS rounds.
 *
 *   npm run bench:video          (about a minute)
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundledFfmpegPath } from '../../src/media/ffmpeg.js';
import { encodeFrames } from '../../src/media/video-encode.js';
import { createPlaceholderVideoGenerator, placeholderFrames } from '../../src/providers/embedded/placeholder-video.js';

const ROUNDS = 5;
const [WIDTH, HEIGHT, FPS, SECONDS] = [640, 360, 24, 4];
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const kib = (bytes: number) => `${Math.round(bytes / 1024)} KiB`;

const ffmpeg = bundledFfmpegPath();
const generator = createPlaceholderVideoGenerator({ ffmpegPath: () => ffmpeg });
const clip = {
  prompt: 'a red fox running through snow at dawn',
  width: WIDTH,
  height: HEIGHT,
  durationS: SECONDS,
  fps: FPS,
  index: 0,
};
const x264 = ['-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-movflags', '+faststart'];
const webpAnim = ['-c:v', 'libwebp_anim', '-quality', '75', '-compression_level', '2', '-loop', '0'];

interface Run {
  ms: number;
  bytes: number;
}

async function timed(work: () => Promise<number>): Promise<Run> {
  const t0 = performance.now();
  const bytes = await work();
  return { ms: performance.now() - t0, bytes };
}

/** The bare ffmpeg writing `out` from `input` args; the output's size. */
async function bareFfmpeg(input: string[], codec: string[], out: string): Promise<number> {
  const run = spawnSync(ffmpeg, ['-hide_banner', '-loglevel', 'error', ...input, ...codec, '-an', '-y', out]);
  if (run.status !== 0) throw new Error(`ffmpeg failed: ${run.stderr}`);
  return (await stat(out)).size;
}

async function main() {
  const dir = await mkdtemp(join(tmpdir(), 'imgtask-bench-video-'));
  try {
    const raw = join(dir, 'frames.rgb');
    await writeFile(
      raw,
      Buffer.concat([...(await placeholderFrames({ ...clip, signal: new AbortController().signal }))]),
    );
    const testsrc = ['-f', 'lavfi', '-i', `testsrc=size=${WIDTH}x${HEIGHT}:rate=${FPS}`, '-t', String(SECONDS)];
    const rawFile = ['-f', 'rawvideo', '-pix_fmt', 'rgb24', '-s', `${WIDTH}x${HEIGHT}`, '-r', String(FPS), '-i', raw];
    const cases: Record<string, () => Promise<number>> = {
      'ours mp4': async () =>
        (
          await generator.generate({
            ...clip,
            model: 'placeholder',
            format: 'mp4',
            options: {},
            signal: new AbortController().signal,
          })
        ).data.length,
      'anchor mp4': () => bareFfmpeg(testsrc, x264, join(dir, 'anchor.mp4')),
      'bare ffmpeg, our frames, mp4': () => bareFfmpeg(rawFile, x264, join(dir, 'ours.mp4')),
      'ours webp': async () =>
        (
          await generator.generate({
            ...clip,
            model: 'placeholder',
            format: 'webp',
            options: {},
            signal: new AbortController().signal,
          })
        ).data.length,
      'anchor webp': () => bareFfmpeg(testsrc, webpAnim, join(dir, 'anchor.webp')),
      'ours webp via libwebp_anim': async () => {
        const frames = await placeholderFrames({ ...clip, signal: new AbortController().signal });
        return (
          await encodeFrames(frames, {
            width: WIDTH,
            height: HEIGHT,
            fps: FPS,
            format: 'webp',
            ffmpegPath: ffmpeg,
            webpBudgetBytes: 0,
          })
        ).length;
      },
      'frames alone': async () => {
        let count = 0;
        for (const _frame of await placeholderFrames({ ...clip, signal: new AbortController().signal })) count++;
        if (count !== FPS * SECONDS) throw new Error(`made ${count} frames`);
        return 0;
      },
    };
    const load = loadavg()[0];
    const runs: Record<string, Run[]> = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
    for (let round = -1; round < ROUNDS; round++) {
      for (const [name, work] of Object.entries(cases)) {
        const run = await timed(work);
        if (round >= 0) runs[name].push(run);
      }
    }
    const ms = (name: string) => median(runs[name].map((r) => r.ms));
    const perSecond = (name: string) => `${(ms(name) / 1000 / SECONDS).toFixed(3)} s/s`;
    const line = (name: string) =>
      `${perSecond(name)} (${Math.round(ms(name))} ms, ${kib(runs[name][0].bytes)}; runs ${runs[name].map((r) => Math.round(r.ms)).join(', ')})`;

    console.log(
      `video benchmark — node ${process.version}, ${cpus().length} cores, load average ${load.toFixed(2)} at start, ${loadavg()[0].toFixed(2)} at end`,
    );
    console.log(
      `${WIDTH}x${HEIGHT}, ${FPS} fps, ${SECONDS} s clips (${FPS * SECONDS} frames); medians of ${ROUNDS} interleaved rounds after one warm-up`,
    );
    console.log('seconds of compute per second of footage (lower is better)\n');
    console.log(`mp4   ours (placeholder → libx264 veryfast, faststart)      ${line('ours mp4')}`);
    console.log(`      anchor: bare ffmpeg, testsrc → same encoder            ${line('anchor mp4')}`);
    console.log(
      `      ratio ours / anchor                                     ${(ms('ours mp4') / ms('anchor mp4')).toFixed(2)} ×`,
    );
    console.log(`      bare ffmpeg, our frames from a raw file → same encoder ${line('bare ffmpeg, our frames, mp4')}`);
    console.log(`webp  ours (placeholder → sharp, q75 effort 2)               ${line('ours webp')}`);
    console.log(`      anchor: bare ffmpeg, testsrc → libwebp_anim q75         ${line('anchor webp')}`);
    console.log(
      `      ratio ours / anchor                                     ${(ms('ours webp') / ms('anchor webp')).toFixed(2)} ×`,
    );
    console.log(`      our frames → ffmpeg libwebp_anim q75 instead of sharp   ${line('ours webp via libwebp_anim')}`);
    console.log(
      `frames alone (made, no encoder): ${Math.round(ms('frames alone'))} ms, ${(ms('frames alone') / (FPS * SECONDS)).toFixed(2)} ms a frame`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
