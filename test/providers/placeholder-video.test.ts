import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import { ProviderError } from '../../src/domain/task-status.js';
import { bundledFfmpegPath } from '../../src/media/ffmpeg.js';
import { probeVideo } from '../../src/media/video-probe.js';
import { createPlaceholderVideoGenerator } from '../../src/providers/embedded/placeholder-video.js';
import type { SourceImage, VideoParams } from '../../src/providers/provider-types.js';
import { makeImage } from '../helpers/images.js';
import { decodeVideo, meanAbsDiff, webpAnimation, webpFrames } from '../helpers/video-check.js';

const generator = createPlaceholderVideoGenerator({ ffmpegPath: bundledFfmpegPath });
const params = (over: Partial<VideoParams> = {}): VideoParams => ({
  model: 'placeholder',
  prompt: 'a red fox running through snow',
  width: 160,
  height: 90,
  durationS: 1,
  fps: 8,
  format: 'mp4',
  index: 0,
  options: {},
  signal: new AbortController().signal,
  ...over,
});

test('the placeholder makes an MP4 of durationS × fps frames that a real decoder reads, each frame different from the last', async () => {
  const made = await generator.generate(params({ durationS: 2, fps: 12 }));
  assert.equal(made.format, 'mp4');
  assert.deepEqual(probeVideo(made.data), { format: 'mp4', width: 160, height: 90, durationS: 2, frames: 24, fps: 12 });
  const decoded = await decodeVideo(made.data);
  assert.equal(decoded.frames, 24);
  for (let i = 1; i < decoded.frames; i++) {
    const diff = meanAbsDiff(decoded.frame(i - 1), decoded.frame(i));
    assert.ok(diff > 0.5, `frame ${i} differs from frame ${i - 1} (mean difference ${diff.toFixed(2)})`);
  }
});

test('the placeholder makes an animated WebP directly: one page per frame, round(1000/fps) ms each, looping', async () => {
  const made = await generator.generate(params({ format: 'webp', durationS: 2, fps: 10 }));
  assert.equal(made.format, 'webp');
  const animation = await webpAnimation(made.data);
  assert.deepEqual([animation.pages, animation.loop, animation.width, animation.pageHeight], [20, 0, 160, 90]);
  assert.deepEqual(animation.delay, Array(20).fill(100));
  const { frames } = await webpFrames(made.data);
  assert.ok(meanAbsDiff(frames[0], frames[10]) > 2, 'the clip moves');
});

test('the same parameters give the same clip; another prompt, negative prompt or index gives another', async () => {
  const webpA = await generator.generate(params({ format: 'webp' }));
  const webpB = await generator.generate(params({ format: 'webp' }));
  assert.ok(webpA.data.equals(webpB.data), 'identical WebP bytes');
  const mp4A = await decodeVideo((await generator.generate(params())).data, undefined, { pixFmt: 'rgb24' });
  const mp4B = await decodeVideo((await generator.generate(params())).data, undefined, { pixFmt: 'rgb24' });
  assert.ok(mp4A.pixels.equals(mp4B.pixels), 'identical decoded MP4 frames');
  for (const other of [{ prompt: 'a lighthouse at dawn' }, { negativePrompt: 'blurry' }, { index: 1 }]) {
    const made = await generator.generate(params({ format: 'webp', ...other }));
    assert.ok(!made.data.equals(webpA.data), JSON.stringify(other));
    const [first] = (await webpFrames(made.data)).frames;
    const [firstA] = (await webpFrames(webpA.data)).frames;
    assert.ok(meanAbsDiff(first, firstA) > 5, `${JSON.stringify(other)}: a visibly different first frame`);
  }
});

test('with an input image, frame 0 is that image covering the frame, and later frames move away from it', async () => {
  const png = await makeImage({ width: 200, height: 100, rgb: [250, 40, 40] });
  // A picture with structure (a gradient), so zooming shows.
  const gradient = await sharp(
    Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="240" height="120"><defs><linearGradient id="g"><stop offset="0" stop-color="#102080"/><stop offset="1" stop-color="#f0c020"/></linearGradient></defs><rect width="100%" height="100%" fill="url(#g)"/><circle cx="120" cy="60" r="30" fill="#20a040"/></svg>',
    ),
  )
    .png()
    .toBuffer();
  for (const data of [png, gradient]) {
    const meta = await sharp(data).metadata();
    const input: SourceImage = { data, format: 'png', width: meta.width, height: meta.height };
    const expected = await sharp(data).resize(160, 90, { fit: 'cover' }).removeAlpha().raw().toBuffer();
    const decoded = await decodeVideo(
      (await generator.generate(params({ input, durationS: 2, fps: 8 }))).data,
      undefined,
      { pixFmt: 'rgb24' },
    );
    assert.equal(decoded.frames, 16);
    const first = meanAbsDiff(decoded.frame(0), expected);
    assert.ok(first < 8, `frame 0 is the input (mean difference ${first.toFixed(2)})`);
    if (data === gradient) {
      const last = meanAbsDiff(decoded.frame(15), expected);
      assert.ok(
        last > first + 5,
        `the last frame has moved on (mean difference ${last.toFixed(2)}, frame 0 ${first.toFixed(2)})`,
      );
    }
    for (let i = 1; i < decoded.frames - 1; i++)
      assert.ok(meanAbsDiff(decoded.frame(i - 1), decoded.frame(i)) > 0.2, `frame ${i} moves`);
  }
});

test('an abort rejects with its reason, before or during the encode', async () => {
  await assert.rejects(
    generator.generate(params({ signal: AbortSignal.abort(new Error('cancelled before')) })),
    /cancelled before/,
  );
  const controller = new AbortController();
  const started = performance.now();
  const running = generator.generate(
    params({ width: 640, height: 360, durationS: 10, fps: 30, signal: controller.signal }),
  );
  setTimeout(() => controller.abort(new Error('cancelled during')), 150);
  await assert.rejects(running, /cancelled during/);
  const ms = performance.now() - started;
  assert.ok(ms < 3000, `rejected after ${Math.round(ms)} ms (a full encode takes several seconds)`);
});

test('a failing ffmpeg is a PROVIDER_ERROR', async () => {
  const broken = createPlaceholderVideoGenerator({ ffmpegPath: () => '/nonexistent/ffmpeg' });
  await assert.rejects(
    broken.generate(params()),
    (err: unknown) =>
      err instanceof ProviderError && err.code === 'PROVIDER_ERROR' && /ffmpeg could not be started/.test(err.message),
  );
  const unresolved = createPlaceholderVideoGenerator({
    ffmpegPath: () => {
      throw new Error('no bundled ffmpeg for this platform');
    },
  });
  await assert.rejects(
    unresolved.generate(params()),
    (err: unknown) =>
      err instanceof ProviderError && err.code === 'PROVIDER_ERROR' && /no bundled ffmpeg/.test(err.message),
  );
});
