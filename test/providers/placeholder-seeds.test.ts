import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bundledFfmpegPath } from '../../src/media/ffmpeg.js';
import { createPlaceholderGenerator } from '../../src/providers/embedded/placeholder.js';
import { createPlaceholderVideoGenerator } from '../../src/providers/embedded/placeholder-video.js';
import type { GenerateParams, VideoParams } from '../../src/providers/provider-types.js';

const images = createPlaceholderGenerator();
const videos = createPlaceholderVideoGenerator({ ffmpegPath: bundledFfmpegPath });

const image = (over: Partial<GenerateParams> = {}): GenerateParams => ({
  model: 'placeholder',
  prompt: 'a lighthouse at dawn',
  width: 256,
  height: 256,
  inputs: [],
  index: 0,
  options: {},
  signal: new AbortController().signal,
  ...over,
});

const video = (over: Partial<VideoParams> = {}): VideoParams => ({
  model: 'placeholder',
  prompt: 'a red fox running through snow',
  width: 96,
  height: 54,
  durationS: 1,
  fps: 8,
  format: 'webp',
  index: 0,
  options: {},
  signal: new AbortController().signal,
  ...over,
});

test('the image placeholder: the same seed and request give the same bytes, whatever the index; another seed another image', async () => {
  const a = await images.generate(image({ seed: 42 }));
  const again = await images.generate(image({ seed: 42 }));
  assert.ok(a.data.equals(again.data), 'byte-identical for the same seed');
  const elsewhere = await images.generate(image({ seed: 42, index: 3 }));
  assert.ok(a.data.equals(elsewhere.data), 'the seed alone decides (it already counts the index)');
  for (const seed of [43, 0, 4294967295]) {
    const other = await images.generate(image({ seed }));
    assert.ok(!other.data.equals(a.data), `seed ${seed} draws another image`);
  }
  const unseeded = await images.generate(image());
  assert.ok(!unseeded.data.equals(a.data), 'without a seed the index decides, as before');
});

test('the video placeholder: the same seed and request give the same bytes; another seed another clip', async () => {
  const a = await videos.generate(video({ seed: 7 }));
  const again = await videos.generate(video({ seed: 7, index: 2 }));
  assert.ok(a.data.equals(again.data), 'byte-identical animated WebP for the same seed');
  const other = await videos.generate(video({ seed: 8 }));
  assert.ok(!other.data.equals(a.data), 'another seed, another clip');
});

test('the placeholders report their progress in steps, ending at 1', async () => {
  const drawn: number[] = [];
  await images.generate(image({ seed: 1, onProgress: (fraction) => drawn.push(fraction) }));
  assert.deepEqual(drawn, [0.25, 0.5, 0.75, 1]);
  const encoded: number[] = [];
  await videos.generate(video({ seed: 1, onProgress: (fraction) => encoded.push(fraction) }));
  assert.deepEqual(encoded, [0.25, 0.5, 0.75, 1], 'quarters of the frames drawn, then 1 once encoded');
});
