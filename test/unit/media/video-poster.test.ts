import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { test } from 'node:test';
import sharp from 'sharp';
import { bundledFfmpegPath } from '../../../src/media/ffmpeg.js';
import { encodeFrames } from '../../../src/media/video-encode.js';
import { posterFrame } from '../../../src/media/video-poster.js';
import { tempDir } from '../../helpers/temp-dir.js';

const ffmpegPath = bundledFfmpegPath();

/** Frames of one flat colour each: red first, then blue. */
function* redThenBlue(width: number, height: number, count: number): Generator<Buffer> {
  for (let i = 0; i < count; i++) {
    const frame = Buffer.alloc(width * height * 3);
    for (let p = 0; p < frame.length; p += 3) frame.set(i === 0 ? [220, 20, 20] : [20, 20, 220], p);
    yield frame;
  }
}

/** The mean colour of a still. */
async function meanOf(data: Buffer): Promise<number[]> {
  const { channels } = await sharp(data).stats();
  return channels.slice(0, 3).map((c) => Math.round(c.mean));
}

for (const [format, name] of [
  ['mp4', 'an MP4'],
  ['webp', 'an animated WebP'],
] as const) {
  test(`posterFrame of ${name}: its first frame, as a WebP of the clip's size, leaving no temp folder`, async (t) => {
    const dir = await tempDir(t);
    const clip = await encodeFrames(redThenBlue(64, 48, 8), { width: 64, height: 48, fps: 8, format, ffmpegPath });
    const poster = await posterFrame(clip, format, { ffmpegPath, tempDir: dir });
    const meta = await sharp(poster).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height, meta.pages ?? 1], ['webp', 64, 48, 1]);
    const [r, , b] = await meanOf(poster);
    assert.ok(r > 150 && b < 80, `the first (red) frame, not a later one: rgb mean ${await meanOf(poster)}`);
    assert.deepEqual(await readdir(dir), []);
  });
}

test('posterFrame of bytes that are no video rejects (the caller falls back), and a wide clip is scaled down to 1280', async () => {
  await assert.rejects(posterFrame(Buffer.from('not a video at all'), 'mp4', { ffmpegPath }), /ffmpeg failed/);
  const wide = await encodeFrames(redThenBlue(1600, 90, 2), {
    width: 1600,
    height: 90,
    fps: 2,
    format: 'mp4',
    ffmpegPath,
  });
  const meta = await sharp(await posterFrame(wide, 'mp4', { ffmpegPath })).metadata();
  assert.deepEqual([meta.width, meta.height], [1280, 72]);
});
