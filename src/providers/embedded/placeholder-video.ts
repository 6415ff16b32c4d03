import sharp from 'sharp';
import { ProviderError } from '../../domain/task-status.js';
import { encodeFrames } from '../../media/video-encode.js';
import type { GeneratedVideo, SourceImage, VideoGenerator, VideoParams } from '../provider-types.js';
import { placeholderHash } from './placeholder.js';
import { svgText } from './svg-text.js';

/** HSL (degrees, 0–1, 0–1) to RGB bytes. */
function hsl(h: number, s: number, l: number): [number, number, number] {
  const k = (n: number) => (n + h / 30) % 12;
  const a = s * Math.min(l, 1 - l);
  const f = (n: number) => Math.round(255 * (l - a * Math.max(-1, Math.min(k(n) - 3, 9 - k(n), 1))));
  return [f(0), f(8), f(4)];
}

/** The prompt's first words as a sparse alpha mask: pairs of (pixel index, alpha), drawn over every frame. */
async function textMask(prompt: string, width: number, height: number): Promise<Int32Array> {
  const fontSize = Math.max(10, Math.round(Math.min(width, height) / 14));
  const chars = Math.max(6, Math.floor(width / (fontSize * 0.62)));
  const line = prompt.length > chars ? `${prompt.slice(0, chars - 1).trimEnd()}…` : prompt;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><text x="50%" y="${Math.round(height * 0.85)}" font-family="DejaVu Sans, sans-serif" font-size="${fontSize}" fill="white" text-anchor="middle" dominant-baseline="middle">${svgText(line)}</text></svg>`;
  const alpha = await sharp(Buffer.from(svg)).ensureAlpha().extractChannel(3).raw().toBuffer();
  const pairs: number[] = [];
  for (let i = 0; i < alpha.length; i++) if (alpha[i] > 0) pairs.push(i, alpha[i]);
  return Int32Array.from(pairs);
}

/** The input image resized to cover width × height, as raw RGB. */
const coverRaw = (input: SourceImage, width: number, height: number): Promise<Buffer> =>
  sharp(input.data).resize(width, height, { fit: 'cover' }).removeAlpha().toColourspace('srgb').raw().toBuffer();

interface Scene {
  width: number;
  height: number;
  fps: number;
  count: number;
  hash: Buffer;
  /** Frame 0 when the request sent an image. */
  base?: Buffer;
  text?: Int32Array;
  /** Told 0.25, 0.5 and 0.75 as those shares of the frames are drawn (the caller says 1 once encoded). */
  onProgress?: (fraction: number) => void;
}

/** Fills a disc of colour `rgb` at `alpha`/256 over `frame`. */
function disc(
  frame: Buffer,
  width: number,
  height: number,
  cx: number,
  cy: number,
  r: number,
  rgb: [number, number, number],
  alpha: number,
): void {
  const y0 = Math.max(0, Math.floor(cy - r));
  const y1 = Math.min(height - 1, Math.ceil(cy + r));
  const keep = 256 - alpha;
  for (let y = y0; y <= y1; y++) {
    const dy = y - cy;
    const half = Math.sqrt(Math.max(0, r * r - dy * dy));
    const x0 = Math.max(0, Math.ceil(cx - half));
    const x1 = Math.min(width - 1, Math.floor(cx + half));
    for (let x = x0, p = (y * width + x0) * 3; x <= x1; x++, p += 3) {
      frame[p] = (frame[p] * keep + rgb[0] * alpha) >> 8;
      frame[p + 1] = (frame[p + 1] * keep + rgb[1] * alpha) >> 8;
      frame[p + 2] = (frame[p + 2] * keep + rgb[2] * alpha) >> 8;
    }
  }
}

/**
 * The clip's frames, made one at a time (raw RGB24). Without an input: a diagonal two-colour
 * gradient scrolling at 64 palette steps a second, three discs on Lissajous paths and the prompt.
 * With one: the input (frame 0 exactly), then a slow zoom towards a point chosen by the hash, and a
 * translucent bar sweeping across, from off-screen left (frame 0) to the right edge (last frame).
 */
function* frames(scene: Scene, signal: AbortSignal): Generator<Buffer> {
  const { width, height, fps, count, hash, base, text, onProgress } = scene;
  const hue = (hash[0] * 360) / 256;
  const hue2 = (hue + 40 + (hash[1] % 140)) % 360;
  const accent = hsl((hue + 180) % 360, 0.6, 0.6);
  const bytes = width * height * 3;

  // Gradient: a 256-entry palette (colour 1 → colour 2 → colour 1) indexed by x, y and time.
  const c1 = hsl(hue, 0.65, 0.45);
  const c2 = hsl(hue2, 0.7, 0.3);
  const palette = new Uint8Array(256 * 3);
  for (let i = 0; i < 256; i++) {
    const w = i < 128 ? i / 127 : (255 - i) / 127;
    for (let c = 0; c < 3; c++) palette[i * 3 + c] = Math.round(c1[c] + (c2[c] - c1[c]) * w);
  }
  // A gradient row depends only on (its y band + time) mod 256: the 256 possible rows are drawn
  // once (fewer pixels than one 640x360 frame), and each frame row is a copy of one of them.
  const rowBytes = width * 3;
  const gx = Uint8Array.from({ length: width }, (_, x) => Math.floor((x * 128) / width));
  const gy = Uint8Array.from({ length: height }, (_, y) => Math.floor((y * 128) / height));
  const rows = base ? Buffer.alloc(0) : Buffer.allocUnsafe(256 * rowBytes);
  for (let r = 0; r < (base ? 0 : 256); r++) {
    for (let x = 0, p = r * rowBytes; x < width; x++, p += 3) {
      const c = ((r + gx[x]) & 255) * 3;
      rows[p] = palette[c];
      rows[p + 1] = palette[c + 1];
      rows[p + 2] = palette[c + 2];
    }
  }
  const discs = [0, 1, 2].map((k) => ({
    r: Math.min(width, height) * (0.08 + (hash[2 + k] / 255) * 0.14),
    fx: 0.15 + (hash[5 + k] / 255) * 0.35,
    fy: 0.1 + (hash[8 + k] / 255) * 0.35,
    px: hash[11 + k] / 255,
    py: hash[14 + k] / 255,
    rgb: hsl((hue + 150 + k * 40) % 360, 0.6, 0.3 + k * 0.15),
  }));

  // Zoom and pan (input): the window shrinks to 1/zoom of the frame, its corner moving towards (panX, panY).
  const panX = 0.2 + (hash[17] / 255) * 0.6;
  const panY = 0.2 + (hash[18] / 255) * 0.6;
  const bar = Math.max(2, Math.round(width / 10));
  const xmap = new Int32Array(width);
  const ymap = new Int32Array(height);
  let quarters = 0;

  for (let t = 0; t < count; t++) {
    if (signal.aborted) throw signal.reason;
    const time = t / fps;
    const frame = Buffer.allocUnsafe(bytes);
    if (base) {
      const zoom = 1 + 0.08 * time;
      const left = (width - width / zoom) * panX;
      const top = (height - height / zoom) * panY;
      for (let x = 0; x < width; x++) xmap[x] = Math.min(width - 1, Math.floor(left + x / zoom)) * 3;
      for (let y = 0; y < height; y++) ymap[y] = Math.min(height - 1, Math.floor(top + y / zoom)) * width * 3;
      for (let y = 0, p = 0; y < height; y++) {
        const row = ymap[y];
        for (let x = 0; x < width; x++, p += 3) {
          const s = row + xmap[x];
          frame[p] = base[s];
          frame[p + 1] = base[s + 1];
          frame[p + 2] = base[s + 2];
        }
      }
      const x0 = Math.round(-bar + (width * t) / Math.max(1, count - 1));
      for (let y = 0; y < height; y++) {
        for (let x = Math.max(0, x0), p = (y * width + x) * 3; x < Math.min(width, x0 + bar); x++, p += 3) {
          frame[p] = (frame[p] * 154 + accent[0] * 102) >> 8;
          frame[p + 1] = (frame[p + 1] * 154 + accent[1] * 102) >> 8;
          frame[p + 2] = (frame[p + 2] * 154 + accent[2] * 102) >> 8;
        }
      }
    } else {
      const shift = Math.round(time * 64);
      for (let y = 0; y < height; y++) {
        const r = (gy[y] + shift) & 255;
        rows.copy(frame, y * rowBytes, r * rowBytes, (r + 1) * rowBytes);
      }
      for (const d of discs) {
        const cx = width * (0.5 + 0.38 * Math.sin(2 * Math.PI * (d.fx * time + d.px)));
        const cy = height * (0.5 + 0.38 * Math.sin(2 * Math.PI * (d.fy * time + d.py)));
        disc(frame, width, height, cx, cy, d.r, d.rgb, 170);
      }
      if (text) {
        for (let i = 0; i < text.length; i += 2) {
          const p = text[i] * 3;
          const a = text[i + 1];
          frame[p] += ((255 - frame[p]) * a) >> 8;
          frame[p + 1] += ((255 - frame[p + 1]) * a) >> 8;
          frame[p + 2] += ((255 - frame[p + 2]) * a) >> 8;
        }
      }
    }
    const drawn = Math.floor((4 * (t + 1)) / count);
    if (drawn > quarters && drawn < 4) {
      quarters = drawn;
      onProgress?.(drawn / 4);
    }
    yield frame;
  }
}

/** The clip's raw RGB24 frames for `params`, made lazily as they are pulled (the input is resized once, here). */
export async function placeholderFrames(
  params: Omit<VideoParams, 'model' | 'format' | 'options'>,
): Promise<Generator<Buffer>> {
  const { width, height, fps, signal, onProgress } = params;
  const hash = placeholderHash(params);
  const count = Math.max(1, Math.round(params.durationS * fps));
  const base = params.input ? await coverRaw(params.input, width, height) : undefined;
  const text = params.input ? undefined : await textMask(params.prompt, width, height);
  return frames({ width, height, fps, count, hash, base, text, onProgress }, signal);
}

/**
 * The embedded placeholder video model: deterministic frames from the prompt, encoded to real MP4
 * (H.264) or animated WebP. The same prompt, negative prompt, seed (else index), size, duration,
 * rate and input give the same frames; the clip moves (see `frames`). Frames are made as the
 * encoder takes them, and progress is reported by quarters of them, then 1 once encoded.
 */
export function createPlaceholderVideoGenerator(options: { ffmpegPath: () => string }): VideoGenerator {
  return {
    async generate(params: VideoParams): Promise<GeneratedVideo> {
      const { width, height, fps, format, signal } = params;
      signal.throwIfAborted();
      let ffmpegPath: string;
      try {
        ffmpegPath = options.ffmpegPath();
      } catch (err) {
        throw new ProviderError('PROVIDER_ERROR', `placeholder video: ${(err as Error).message}`, { retryable: false });
      }
      try {
        const data = await encodeFrames(await placeholderFrames(params), {
          width,
          height,
          fps,
          format,
          ffmpegPath,
          signal,
        });
        params.onProgress?.(1);
        return { data, format };
      } catch (err) {
        if (signal.aborted) throw signal.reason;
        throw new ProviderError('PROVIDER_ERROR', `placeholder video: ${(err as Error).message}`);
      }
    },
  };
}
