import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import sharp from 'sharp';
import { twoOutputWorkflow } from '../../fakes/comfyui/workflows.js';
import { type FakeComfyUi, fakeImageColour, startFakeComfyUi, txt2imgWorkflow } from '../../fakes/comfyui.js';
import { accountOf, type Harness, startService, waitForTask } from '../../helpers/harness.js';
import { tempDir } from '../../helpers/temp-dir.js';

/**
 * Every output of a ComfyUI workflow through the public API: a workflow with two SaveImage nodes
 * makes two items per run (count × outputs), each stored and priced; a model may name the nodes
 * that count; a run that writes fewer files fails the missing item, free. And `count` needs a seed
 * binding, and without width/height bindings an item reports the size the workflow made.
 */
const PROMPT = 'a lighthouse at dawn';
const BINDINGS = {
  prompt: '6.inputs.text',
  seed: '3.inputs.seed',
  width: '5.inputs.width',
  height: '5.inputs.height',
  batchSize: '5.inputs.batch_size',
};

async function serviceWith(
  t: TestContext,
  fake: FakeComfyUi,
  model: Record<string, unknown>,
  graph: unknown = twoOutputWorkflow(),
): Promise<Harness> {
  const dir = await tempDir(t);
  const file = join(dir, 'graph.json');
  await writeFile(file, JSON.stringify(graph));
  return startService(t, {
    config: {
      providers: { 'gpu-1': { type: 'comfyui', baseUrl: fake.baseUrl, pollIntervalMs: 50, timeoutMs: 20_000 } },
      models: {
        flux: {
          provider: 'gpu-1',
          workflow: file,
          bindings: BINDINGS,
          price: { perImage: '0.01', perInput: '0' },
          capabilities: { maxInputs: 0, supports4k: false, negativePrompt: false, nativeSize: '512x512' },
          ...model,
        },
      },
    },
  });
}

const body = (extra: Record<string, unknown>) => ({
  prompt: PROMPT,
  model: 'flux',
  output: { format: 'png' },
  ...extra,
});
const prompts = (fake: FakeComfyUi) => fake.requests.filter((r) => r.path === '/prompt').length;

async function create(h: Harness, extra: Record<string, unknown>): Promise<string> {
  const res = await h.request('POST', '/image/generate', { auth: h.apiKey, body: body(extra) });
  assert.equal(res.status, 201, res.text);
  return res.json.data.taskId;
}

async function firstPixel(url: string): Promise<number[]> {
  const bytes = Buffer.from(await (await fetch(url)).arrayBuffer());
  const { data } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true });
  return [...data.subarray(0, 3)];
}

test('every output: two SaveImage nodes and count 2 make 4 items from 2 jobs, each stored and priced, estimated and reserved as 4', async (t) => {
  const fake = await startFakeComfyUi(t);
  const h = await serviceWith(t, fake, {});
  const estimate = await h.request('POST', '/tasks/estimate', {
    auth: h.apiKey,
    body: { type: 'image.generate', request: body({ count: 2, seed: 42 }) },
  });
  assert.equal(estimate.status, 200, estimate.text);
  assert.deepEqual(estimate.json.data.items, ['0.01', '0.01', '0.01', '0.01']);
  assert.equal(estimate.json.data.estimatedCost, '0.04');

  fake.holdJobs();
  const taskId = await create(h, { count: 2, seed: 42 });
  await fake.waitForMessage((m) => m.type === 'progress');
  assert.equal((await accountOf(h)).reserved, '0.04', 'the reserve counts every output');
  fake.releaseJobs();

  const task = await waitForTask(h, taskId);
  assert.equal(task.status, 'completed', JSON.stringify(task));
  const images = task.result.images;
  assert.equal(images.length, 4, JSON.stringify(images));
  assert.ok(
    images.every((image: { status: string }) => image.status === 'success'),
    JSON.stringify(images),
  );
  assert.equal(prompts(fake), 2, 'one job per run, shared by its two items');
  assert.equal(new Set(images.map((image: { id: string }) => image.id)).size, 4, 'four stored images');
  assert.equal(new Set(images.map((image: { service_url: string }) => image.service_url)).size, 4);
  // Items 0 and 1 are run 0 (seed 42), items 2 and 3 run 1 (seed 43); output 0 is node 9 (512×512), output 1 node 12
  // (inverted, 64×64).
  assert.deepEqual(
    images.map((image: { seed: number }) => image.seed),
    [42, 42, 43, 43],
  );
  assert.deepEqual(
    images.map((image: { size: string }) => image.size),
    ['512x512', '64x64', '512x512', '64x64'],
  );
  assert.deepEqual(await firstPixel(images[0].service_url), fakeImageColour(42, PROMPT));
  assert.deepEqual(await firstPixel(images[2].service_url), fakeImageColour(43, PROMPT));
  const inverted = (seed: number) => fakeImageColour(seed, PROMPT).map((v) => 255 - v);
  assert.deepEqual(await firstPixel(images[1].service_url), inverted(42), "node 12's file: run 0's image inverted");
  assert.deepEqual(await firstPixel(images[3].service_url), inverted(43));
  assert.equal(task.cost, '0.04');
  assert.equal((await accountOf(h)).reserved, '0');
});

test('every output: outputs ["12"] makes one item per run, from node 12 alone', async (t) => {
  const fake = await startFakeComfyUi(t);
  const h = await serviceWith(t, fake, { outputs: ['12'] });
  const task = await waitForTask(h, await create(h, { count: 2, seed: 5 }));
  const images = task.result.images;
  assert.equal(images.length, 2, JSON.stringify(images));
  assert.deepEqual(
    images.map((image: { size: string }) => image.size),
    ['64x64', '64x64'],
  );
  assert.deepEqual(
    await firstPixel(images[0].service_url),
    fakeImageColour(5, PROMPT).map((v) => 255 - v),
    "node 12's inverted image",
  );
  assert.deepEqual(
    images.map((image: { seed: number }) => image.seed),
    [5, 6],
    'one run per item again',
  );
  assert.equal(task.cost, '0.02');
  assert.equal(prompts(fake), 2);
});

test('every output: a run that writes fewer files than outputs fails the missing item PROVIDER_ERROR, free, and keeps the others', async (t) => {
  const fake = await startFakeComfyUi(t);
  // Node 8 (VAEDecode) writes no file: output 1 of each run has none.
  const h = await serviceWith(t, fake, { outputs: ['9', '8'] });
  const task = await waitForTask(h, await create(h, { count: 1, seed: 9 }));
  const [made, missing] = task.result.images;
  assert.equal(made.status, 'success', JSON.stringify(task.result));
  assert.equal(missing.status, 'failed');
  assert.equal(missing.error.code, 'PROVIDER_ERROR');
  assert.match(missing.error.message, /no file for output 2 of 2 \(node 8\)/);
  assert.equal(task.cost, '0.01', 'the missing item is free');
  assert.equal(prompts(fake), 1, 'not retried: the same graph would write the same files');
});

test('count > 1 on a ComfyUI model without a seed binding is 400 VALIDATION_ERROR naming it, and nothing is queued', async (t) => {
  const fake = await startFakeComfyUi(t);
  const { seed: _seed, ...unseeded } = BINDINGS;
  const h = await serviceWith(t, fake, { bindings: unseeded }, txt2imgWorkflow());
  const refused = await h.request('POST', '/image/generate', { auth: h.apiKey, body: body({ count: 2 }) });
  assert.equal(refused.status, 400, refused.text);
  assert.equal(refused.json.code, 'VALIDATION_ERROR');
  assert.match(refused.json.message, /no seed binding/);
  assert.equal((await accountOf(h)).reserved, '0');
  const one = await waitForTask(h, await create(h, { count: 1 }));
  assert.equal(one.result.images[0].status, 'success', 'count 1 is fine');
  assert.equal(prompts(fake), 1);
});

test('without width and height bindings the size asked for is not bound: the item reports the size the workflow made', async (t) => {
  const fake = await startFakeComfyUi(t);
  const { width: _w, height: _h, ...sizeless } = BINDINGS;
  const graph = txt2imgWorkflow() as Record<string, { inputs: Record<string, unknown> }>;
  graph['5'].inputs.width = 320;
  graph['5'].inputs.height = 192;
  const h = await serviceWith(t, fake, { bindings: sizeless }, graph);
  const task = await waitForTask(h, await create(h, { size: 'square', seed: 1 }));
  const [image] = task.result.images;
  assert.equal(image.status, 'success', JSON.stringify(task.result));
  assert.equal(image.size, '320x192', "the stored image's own size, not the size asked for");
  const { width, height } = await sharp(Buffer.from(await (await fetch(image.service_url)).arrayBuffer())).metadata();
  assert.deepEqual([width, height], [320, 192]);
});

test('every output: a posted graph (workflow) with two save nodes makes two items per run, though the model’s own workflow has one', async (t) => {
  const fake = await startFakeComfyUi(t);
  const h = await serviceWith(t, fake, { allowRawWorkflows: true }, txt2imgWorkflow());
  const made = await h.request('POST', '/api-key', {
    auth: h.token,
    body: { scopes: ['image:generate', 'tasks:read', 'workflow:raw'] },
  });
  assert.equal(made.status, 201, made.text);
  const res = await h.request('POST', '/image/generate', {
    auth: made.json.data.raw,
    body: body({ seed: 3, workflow: twoOutputWorkflow() }),
  });
  assert.equal(res.status, 201, res.text);
  const task = await waitForTask(h, res.json.data.taskId);
  assert.deepEqual(
    task.result.images.map((image: { status: string; size?: string }) => image.size ?? image.status),
    ['512x512', '64x64'],
  );
  assert.equal(task.cost, '0.02');
  assert.equal(prompts(fake), 1);
});
