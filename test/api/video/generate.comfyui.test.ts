import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { bundledFfmpegPath } from '../../../src/media/ffmpeg.js';
import { mp4Codec, probeVideo } from '../../../src/media/video-probe.js';
import { animatedWebpWorkflow, type FakeComfyUi, fakeImageColour, startFakeComfyUi } from '../../fakes/comfyui.js';
import { accountOf, type Harness, startService, waitForTask } from '../../helpers/harness.js';
import { tempDir } from '../../helpers/temp-dir.js';
import { decodeVideo } from '../../helpers/video-check.js';

/**
 * A ComfyUI video workflow through the public API: SaveAnimatedWEBP answers a default (MP4)
 * request with an H.264 MP4 of its frames, and a workflow that makes a still, or not the frames
 * asked for, fails the item PROVIDER_ERROR, free.
 */
const PROMPT = 'a kite over the dunes';
const BINDINGS = {
  prompt: '6.inputs.text',
  seed: '3.inputs.seed',
  width: '5.inputs.width',
  height: '5.inputs.height',
  frames: '5.inputs.batch_size',
  fps: '9.inputs.fps',
};

async function serviceOn(
  t: TestContext,
  fake: FakeComfyUi,
  graph: unknown,
  bindings: Record<string, string> = BINDINGS,
): Promise<Harness> {
  const file = join(await tempDir(t), 'clip.json');
  await writeFile(file, JSON.stringify(graph));
  return startService(t, {
    config: {
      providers: { 'gpu-1': { type: 'comfyui', baseUrl: fake.baseUrl, pollIntervalMs: 50, timeoutMs: 20_000 } },
      videoModels: {
        clip: {
          providers: ['gpu-1'],
          workflow: file,
          bindings,
          price: { perSecond: '0.01' },
          capabilities: {
            maxInputs: 0,
            negativePrompt: false,
            maxDurationS: 2,
            maxFps: 16,
            maxSize: '256x256',
            nativeSize: '64x48',
          },
        },
      },
    },
  });
}

async function generate(h: Harness, body: Record<string, unknown>) {
  const res = await h.request('POST', '/video/generate', {
    auth: h.apiKey,
    body: { prompt: PROMPT, model: 'clip', ...body },
  });
  assert.equal(res.status, 201, res.text);
  return waitForTask(h, res.json.data.taskId, 30_000);
}

const prompts = (fake: FakeComfyUi) => fake.requests.filter((r) => r.path === '/prompt').length;

test('ComfyUI video: a SaveAnimatedWEBP workflow answers a default request with a playable H.264 MP4 of its frames, charged per second', async (t) => {
  const fake = await startFakeComfyUi(t);
  const h = await serviceOn(t, fake, animatedWebpWorkflow());
  const task = await generate(h, { duration_s: 2, fps: 8, seed: 5 });
  assert.equal(task.status, 'completed');
  const [item] = task.result.videos;
  assert.equal(item.status, 'success', JSON.stringify(item));
  assert.deepEqual([item.format, item.size, item.duration_s, item.fps, item.cost], ['mp4', '64x48', 2, 8, '0.02']);
  assert.match(item.service_url, /\.mp4$/);

  const data = Buffer.from(await (await fetch(item.service_url)).arrayBuffer());
  assert.equal(mp4Codec(data), 'avc1', 'H.264');
  assert.deepEqual(probeVideo(data), { format: 'mp4', width: 64, height: 48, durationS: 2, frames: 16, fps: 8 });
  // A real decoder reads 16 frames, each the colour the fake drew for that place in the batch.
  const decoded = await decodeVideo(data, bundledFfmpegPath(), { pixFmt: 'rgb24' });
  assert.equal(decoded.frames, 16);
  for (let i = 0; i < 16; i++) {
    const pixel = [...decoded.frame(i).subarray(0, 3)];
    const drawn = fakeImageColour(5, PROMPT, i);
    assert.ok(
      pixel.every((v, c) => Math.abs(v - drawn[c]) <= 16),
      `frame ${i}: ${pixel}, drawn ${drawn}`,
    );
  }
  assert.equal(task.cost, '0.02');
  assert.equal((await accountOf(h)).balance, '99.98');
});

test('ComfyUI video: a workflow that makes one frame fails the item PROVIDER_ERROR, not retried, free', async (t) => {
  const fake = await startFakeComfyUi(t);
  // No frames binding: the workflow's batch of 1 is saved as a still WebP.
  const graph = animatedWebpWorkflow() as Record<string, { inputs: Record<string, unknown> }>;
  graph['5'].inputs.batch_size = 1;
  const { frames: _frames, ...bindings } = BINDINGS;
  const h = await serviceOn(t, fake, graph, bindings);
  const task = await generate(h, { duration_s: 2, fps: 8 });
  assert.equal(task.status, 'completed');
  const [item] = task.result.videos;
  assert.equal(item.status, 'failed', JSON.stringify(item));
  assert.equal(item.error.code, 'PROVIDER_ERROR');
  assert.match(item.error.message, /still image/);
  assert.equal(prompts(fake), 1, 'not retried: the workflow would make the same still');
  assert.equal(task.cost, '0');
  const account = await accountOf(h);
  assert.deepEqual([account.balance, account.reserved], ['100', '0']);
});

test('ComfyUI video: a clip far from the frames bound into the workflow fails the item PROVIDER_ERROR, free', async (t) => {
  const fake = await startFakeComfyUi(t);
  // `frames` goes to the sampler's steps: the workflow still makes its own batch of 8 frames.
  const h = await serviceOn(t, fake, animatedWebpWorkflow(), { ...BINDINGS, frames: '3.inputs.steps' });
  const task = await generate(h, { duration_s: 2, fps: 16 });
  const [item] = task.result.videos;
  assert.equal(item.status, 'failed', JSON.stringify(item));
  assert.equal(item.error.code, 'PROVIDER_ERROR');
  assert.match(item.error.message, /made 8 frames; 32 were asked for/);
  assert.equal(prompts(fake), 1);
  assert.equal(task.cost, '0');
  assert.equal((await accountOf(h)).balance, '100');
});

test('ComfyUI video: count > 1 on a model without a seed binding is 400 VALIDATION_ERROR naming it, nothing reserved or queued', async (t) => {
  const fake = await startFakeComfyUi(t);
  const { seed: _seed, ...unseeded } = BINDINGS;
  const h = await serviceOn(t, fake, animatedWebpWorkflow(), unseeded);
  const refused = await h.request('POST', '/video/generate', {
    auth: h.apiKey,
    body: { prompt: PROMPT, model: 'clip', count: 2, duration_s: 1, fps: 8 },
  });
  assert.equal(refused.status, 400, refused.text);
  assert.equal(refused.json.code, 'VALIDATION_ERROR');
  assert.match(refused.json.message, /no seed binding/);
  assert.equal((await accountOf(h)).reserved, '0');
  assert.equal(prompts(fake), 0);
});
