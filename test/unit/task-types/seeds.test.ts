import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../../src/config/load.js';
import type { GenerateParams, VideoParams } from '../../../src/providers/provider-types.js';
import { createGenerateType } from '../../../src/task-types/image-generate.js';
import { itemSeed } from '../../../src/task-types/seeds.js';
import type { ImageTaskDeps } from '../../../src/task-types/task-type-deps.js';
import { createVideoType } from '../../../src/task-types/video-generate.js';

/** The task types over the default config, with generators that record what they were asked and report one step. */
function setup() {
  const config = loadConfig({ env: {}, overrides: {} });
  const asked: (GenerateParams | VideoParams)[] = [];
  const deps = {
    config: { current: () => config },
    providers: () => ({
      generator: () => ({
        generate: async (params: GenerateParams) => {
          asked.push(params);
          params.onProgress?.(0.5);
          return { data: Buffer.from('png') };
        },
      }),
      videoGenerator: () => undefined,
    }),
    images: {
      saveEncoded: async () => ({ id: 'img_x', serviceUrl: 'http://h/images/img_x.webp', width: 8, height: 8 }),
    },
  } as unknown as ImageTaskDeps;
  return { generate: createGenerateType(deps), video: createVideoType(deps), asked };
}

const task = (prepared?: unknown) => ({ id: 'task_1', accountId: 'acct_1', prepared, items: [] }) as never;
const signal = new AbortController().signal;

test('item seeds count up from the base and wrap at 2^32', () => {
  assert.equal(itemSeed(42, 0), 42);
  assert.equal(itemSeed(42, 19), 61);
  assert.equal(itemSeed(4294967295, 1), 0);
  assert.equal(itemSeed(4294967290, 10), 4);
});

test('prepare plans the request’s seed, or one chosen at random; a plan journaled before a restart keeps its seed', async () => {
  const { generate, video } = setup();
  const body = (extra: object) => generate.body().parse({ prompt: 'p', ...extra });
  assert.equal(((await generate.prepare!(task(), body({ seed: 42 }), signal)).saved as { seed: number }).seed, 42);
  const chosen = ((await generate.prepare!(task(), body({}), signal)).saved as { seed: number }).seed;
  assert.ok(Number.isInteger(chosen) && chosen >= 0 && chosen < 2 ** 32, `${chosen}`);
  const journaled = { model: 'placeholder', width: 1024, height: 1024, seed: 123 };
  assert.equal(
    ((await generate.prepare!(task(journaled), body({}), signal)).saved as { seed: number }).seed,
    123,
    'a restart reuses the journaled seed',
  );

  const videoBody = (extra: object) => video.body().parse({ prompt: 'p', ...extra });
  assert.equal(((await video.prepare!(task(), videoBody({ seed: 9 }), signal)).saved as { seed: number }).seed, 9);
  const videoPlan = { model: 'placeholder', width: 640, height: 360, seed: 77 };
  assert.equal(((await video.prepare!(task(videoPlan), videoBody({}), signal)).saved as { seed: number }).seed, 77);
});

test('runItem hands the provider seed + index and the item’s progress reporter, and the item reports its seed', async () => {
  const { generate, asked } = setup();
  const request = generate.body().parse({ prompt: 'p', count: 3 });
  const plan = { model: 'placeholder', width: 64, height: 64, seed: 4294967295 };
  const reported: number[] = [];
  const item = (await generate.runItem({
    task: task(plan),
    request,
    index: 2,
    attempt: 1,
    prepared: { saved: plan, runtime: [] },
    signal,
    reportProgress: (fraction) => reported.push(fraction),
  })) as { seed: number };
  assert.equal(asked[0].seed, 1, '(4294967295 + 2) mod 2^32');
  assert.equal(item.seed, 1);
  assert.deepEqual(reported, [0.5], 'the provider’s progress reaches the item');

  const older = { model: 'placeholder', width: 64, height: 64 };
  const unseeded = (await generate.runItem({
    task: task(older),
    request,
    index: 0,
    attempt: 1,
    prepared: { saved: older, runtime: [] },
    signal,
  })) as { seed?: number };
  assert.equal('seed' in unseeded, false, 'a plan journaled before seeds were kept reports none');
  assert.equal(asked[1].seed, undefined);
});
