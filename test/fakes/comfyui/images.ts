// What the fake "model" draws: a solid colour derived from the sampler's seed, the positive prompt
// and the image's place in its batch, so a test can tell which seed and text reached the graph.
import { createHash } from 'node:crypto';
import sharp from 'sharp';

export type Rgb = [number, number, number];

/** The colour of image `batchIndex` sampled with `seed` from the positive prompt `text`. */
export function fakeImageColour(seed: number, text: string, batchIndex = 0): Rgb {
  const digest = createHash('sha256').update(`${seed}\n${batchIndex}\n${text}`).digest();
  return [digest[0], digest[1], digest[2]];
}

export function renderPng(width: number, height: number, rgb: Rgb): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: rgb[0], g: rgb[1], b: rgb[2] } } })
    .png()
    .toBuffer();
}

/** An animated WebP, one frame per colour, `1000 / fps` ms each (SaveAnimatedWEBP's duration). */
export function renderAnimatedWebp(
  width: number,
  height: number,
  frames: Rgb[],
  fps: number,
  lossless: boolean,
  quality: number,
): Promise<Buffer> {
  const frameBytes = width * height * 3;
  const raw = Buffer.alloc(frameBytes * frames.length);
  frames.forEach((rgb, i) => {
    for (let p = i * frameBytes; p < (i + 1) * frameBytes; p += 3) raw.set(rgb, p);
  });
  const delay = Math.trunc(1000 / fps);
  return sharp(raw, { raw: { width, height: height * frames.length, channels: 3, pageHeight: height } })
    .webp({ lossless, quality, loop: 0, delay: frames.map(() => delay) })
    .toBuffer();
}

/** The size of an uploaded image, as LoadImage reads it. */
export async function imageSize(bytes: Buffer): Promise<{ width: number; height: number }> {
  const { width, height } = await sharp(bytes).metadata();
  return { width: width ?? 0, height: height ?? 0 };
}

/** The colour of an image's first pixel (the fake's images are solid), as LoadImage would read it. */
export async function firstPixel(bytes: Buffer): Promise<Rgb> {
  const { data } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return [data[0], data[1], data[2]];
}
