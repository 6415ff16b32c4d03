import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { resolve } from 'node:path';
import { test } from 'node:test';
import sharp from 'sharp';
import { type LoadedWorkflow, loadWorkflow } from '../../src/config/workflows.js';
import type { WorkflowBindings } from '../../src/domain/comfy-workflows.js';
import type { LivePreview } from '../../src/domain/media-types.js';
import { ProviderError } from '../../src/domain/task-status.js';
import type { GenerateParams, VideoParams } from '../../src/providers/provider-types.js';
import { createComfyUi } from '../../src/providers/remote/comfyui/generator.js';

/**
 * Opt-in: the provider scenarios of comfyui.test.ts against a real ComfyUI (0.3.64 or later) at
 * COMFYUI_URL, with the model-free workflows of test/fixtures/comfyui/workflows and the custom
 * nodes of test/fixtures/comfyui/custom_nodes/imgtask_test_nodes installed on it. How to start
 * such a server: docs/development.md "A real ComfyUI". CI has none, and skips the file.
 */
const BASE_URL = process.env.COMFYUI_URL?.replace(/\/+$/, '');
const skip = BASE_URL
  ? false
  : 'COMFYUI_URL is not set: start a ComfyUI with the test custom nodes (docs/development.md) and set it to run this file';
const FIXTURES = resolve(import.meta.dirname, '../fixtures/comfyui');

/** EmptyImage's colour in the fixtures (0x336699). */
const BLUE = [0x33, 0x66, 0x99];
/** Every workflow binds the request's prompt into a dangling PrimitiveString, node 6. */
const PROMPT = { prompt: '6.inputs.value' };
const IMAGE: WorkflowBindings = {
  ...PROMPT,
  seed: '3.inputs.seed',
  width: '5.inputs.width',
  height: '5.inputs.height',
  batchSize: '5.inputs.batch_size',
};

function workflows(): Record<string, LoadedWorkflow> {
  const load = (file: string, bindings: WorkflowBindings) => loadWorkflow(`workflows/${file}`, FIXTURES, bindings);
  return {
    'models.txt2img': load('txt2img.json', IMAGE),
    'models.slow': load('slow.json', IMAGE),
    'models.img2img': load('img2img.json', { ...PROMPT, images: ['10.inputs.image'] }),
    'models.error': load('error.json', IMAGE),
    'models.invalid': load('invalid.json', PROMPT),
    'videoModels.video': load('video.json', {
      ...PROMPT,
      seed: '3.inputs.seed',
      width: '5.inputs.width',
      height: '5.inputs.height',
      frames: '12.inputs.amount',
      fps: '9.inputs.fps',
    }),
  };
}

function provider() {
  const loaded = workflows();
  return createComfyUi({
    name: 'real',
    baseUrl: BASE_URL!,
    headers: {},
    timeoutMs: 120_000,
    pollIntervalMs: 250,
    maxQueued: null,
    workflowOf: (key) => loaded[key],
  });
}

/** A seed no earlier run used, so ComfyUI's cache does not answer in place of running. */
const freshSeed = () => randomInt(1, 2 ** 31);

const params = (model: string, extra: Partial<GenerateParams> = {}): GenerateParams => ({
  model,
  prompt: 'a model-free test image',
  width: 96,
  height: 64,
  inputs: [],
  index: 0,
  seed: freshSeed(),
  options: {},
  signal: AbortSignal.timeout(120_000),
  ...extra,
});

async function serverJson(path: string): Promise<any> {
  const res = await fetch(`${BASE_URL}${path}`);
  assert.equal(res.status, 200, `GET ${path}`);
  return res.json();
}

/** The server's history entry of the job whose node 3 ran with this seed. */
async function entryWithSeed(seed: number): Promise<any> {
  const history = await serverJson('/history?max_items=64');
  return Object.values(history).find((entry: any) => entry.prompt?.[2]?.['3']?.inputs?.seed === seed);
}

async function firstPixel(image: Buffer): Promise<number[]> {
  const { data } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return [...data.subarray(0, 3)];
}

/** Within 2 of each channel: a float pipeline may round a colour down by one. */
function assertColour(actual: number[], expected: number[], what: string) {
  assert.ok(
    actual.every((v, i) => Math.abs(v - expected[i]) <= 2),
    `${what}: ${actual} is not ${expected}`,
  );
}

async function rejectsWith(promise: Promise<unknown>, code: string, pattern: RegExp): Promise<void> {
  const err = await promise.then(
    () => assert.fail('expected a failure'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof ProviderError, `a ProviderError, got ${String(err)}`);
  assert.equal(err.code, code, err.message);
  assert.match(err.message, pattern);
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    assert.ok(Date.now() < deadline, `${what} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const options = { skip, timeout: 120_000 };

test(
  'txt2img: the size, seed and prompt bound, progress and previews reported, the PNG read back',
  options,
  async () => {
    const fractions: number[] = [];
    const previews: LivePreview[] = [];
    const request = params('txt2img', { onProgress: (f) => fractions.push(f), onPreview: (p) => previews.push(p) });
    const image = await provider().image.generate(request);
    const { width, height, format } = await sharp(image.data).metadata();
    assert.deepEqual({ width, height, format }, { width: 96, height: 64, format: 'png' });
    assertColour(await firstPixel(image.data), BLUE, 'EmptyImage colour');
    const entry = await entryWithSeed(request.seed!);
    assert.ok(entry, 'the seed reached node 3');
    assert.equal(entry.prompt[2]['6'].inputs.value, request.prompt, 'the prompt reached the PrimitiveString');
    assert.equal(entry.prompt[2]['5'].inputs.batch_size, 1);
    assert.ok(
      fractions.some((f) => f > 0 && f < 1),
      `progress was reported: ${fractions}`,
    );
    assert.deepEqual(
      fractions,
      [...fractions].sort((a, b) => a - b),
      'progress only grows',
    );
    assert.ok(previews.length >= 1, 'the steps node sends a preview with each step');
  },
);

test('img2img: the input uploaded, bound into LoadImage, and inverted', options, async () => {
  const png = await sharp({ create: { width: 48, height: 32, channels: 3, background: '#204060' } })
    .png()
    .toBuffer();
  const image = await provider().image.generate(
    params('img2img', { inputs: [{ data: png, format: 'png', width: 48, height: 32 }] }),
  );
  const { width, height } = await sharp(image.data).metadata();
  assert.deepEqual([width, height], [48, 32], 'the input size');
  assertColour(await firstPixel(image.data), [0xdf, 0xbf, 0x9f], 'the inverted input');
});

test('cancel: the running job is interrupted on the server, long before it would end', options, async () => {
  const controller = new AbortController();
  let started!: () => void;
  const progressed = new Promise<void>((r) => (started = r));
  const request = params('slow', { signal: controller.signal, onProgress: (f) => f > 0 && started() });
  const running = provider().image.generate(request);
  await progressed;
  const cancelledAt = Date.now();
  controller.abort(new Error('cancelled'));
  await assert.rejects(running);
  // The slow workflow runs 120 steps of 0.25 s: interrupted, it leaves the queue within a step or two.
  await until(async () => (await serverJson('/queue')).queue_running.length === 0, 'the queue emptied');
  await until(async () => (await entryWithSeed(request.seed!)) !== undefined, 'the job is in history');
  const entry = await entryWithSeed(request.seed!);
  assert.equal(entry.status.status_str, 'error');
  assert.equal(entry.status.messages.at(-1)[0], 'execution_interrupted');
  assert.ok(Date.now() - cancelledAt < 20_000, 'stopped, not run to its end');
});

test('video: frames and fps bound, the animated WebP answered with every frame', options, async () => {
  const video: VideoParams = {
    model: 'video',
    prompt: 'frames',
    width: 64,
    height: 48,
    durationS: 1,
    fps: 8,
    format: 'webp',
    index: 0,
    seed: freshSeed(),
    options: {},
    signal: AbortSignal.timeout(120_000),
  };
  const clip = await provider().video.generate(video);
  assert.equal(clip.format, 'webp');
  const meta = await sharp(clip.data, { animated: true }).metadata();
  assert.deepEqual([meta.width, meta.pages, meta.pageHeight], [64, 8, 48], 'duration × fps frames at the size asked');
});

test('an exception in a node fails PROVIDER_ERROR with the node and its message', options, async () => {
  await rejectsWith(
    provider().image.generate(params('error')),
    'PROVIDER_ERROR',
    /node 13 \(ImgtaskTestFail\).*imgtask test failure/s,
  );
});

test('a workflow ComfyUI refuses (node_errors) fails INVALID_INPUT, naming the node', options, async () => {
  await rejectsWith(provider().image.generate(params('invalid')), 'INVALID_INPUT', /node 14 \(ImageScale\)/);
});
