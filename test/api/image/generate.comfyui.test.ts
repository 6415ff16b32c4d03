import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import sharp from 'sharp';
import {
  animatedWebpWorkflow,
  type FakeComfyUi,
  fakeImageColour,
  startFakeComfyUi,
  txt2imgWorkflow,
} from '../../fakes/comfyui.js';
import { type Harness, startService, waitForTask } from '../../helpers/harness.js';
import { tempDir } from '../../helpers/temp-dir.js';

/**
 * ComfyUI through the public API: a model served by two ComfyUI servers (the fake ComfyUI of
 * test/fakes), listed by GET /models, generating with the request bound into its workflow,
 * failing over, reporting progress while it runs, and cancelled on the server.
 */
const PROMPT = 'a lighthouse at dawn';
const BINDINGS = {
  prompt: '6.inputs.text',
  negativePrompt: '7.inputs.text',
  seed: '3.inputs.seed',
  width: '5.inputs.width',
  height: '5.inputs.height',
  batchSize: '5.inputs.batch_size',
};

/** A port nothing listens on: connections are refused. */
async function refusedUrl(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

async function serviceOn(t: TestContext, servers: string[], graph: unknown = txt2imgWorkflow()): Promise<Harness> {
  const dir = await tempDir(t);
  const file = join(dir, 'flux.json');
  await writeFile(file, JSON.stringify(graph));
  const video = join(dir, 'clip.json');
  await writeFile(video, JSON.stringify(animatedWebpWorkflow()));
  const providers = Object.fromEntries(
    servers.map((baseUrl, i) => [`gpu-${i + 1}`, { type: 'comfyui', baseUrl, pollIntervalMs: 50, timeoutMs: 20_000 }]),
  );
  return startService(t, {
    config: {
      providers,
      models: {
        flux: {
          providers: Object.keys(providers),
          workflow: file,
          bindings: BINDINGS,
          price: { perImage: '0.01', perInput: '0.002' },
          capabilities: { maxInputs: 0, supports4k: false, negativePrompt: true, nativeSize: '512x512' },
        },
      },
      videoModels: {
        clip: {
          providers: Object.keys(providers),
          workflow: video,
          bindings: {
            prompt: '6.inputs.text',
            seed: '3.inputs.seed',
            width: '5.inputs.width',
            height: '5.inputs.height',
            frames: '5.inputs.batch_size',
            fps: '9.inputs.fps',
          },
          price: { perSecond: '0.01' },
          capabilities: {
            maxInputs: 0,
            negativePrompt: false,
            maxDurationS: 2,
            maxFps: 8,
            maxSize: '256x256',
            nativeSize: '256x144',
          },
        },
      },
    },
  });
}

async function generate(h: Harness, body: Record<string, unknown> = {}) {
  const res = await h.request('POST', '/image/generate', {
    auth: h.apiKey,
    body: { prompt: PROMPT, model: 'flux', output: { format: 'png' }, ...body },
  });
  assert.equal(res.status, 201, res.text);
  return res.json.data.taskId as string;
}

test('ComfyUI: the model is listed, and a generate binds the request into its workflow and stores the output', async (t) => {
  const fake = await startFakeComfyUi(t);
  const h = await serviceOn(t, [fake.baseUrl]);
  const models = await h.request('GET', '/models', { auth: h.apiKey });
  assert.ok(
    models.json.data.some((m: { id: string }) => m.id === 'flux'),
    'GET /models lists it',
  );
  const videoModels = await h.request('GET', '/video/models', { auth: h.apiKey });
  assert.ok(
    videoModels.json.data.some((m: { id: string }) => m.id === 'clip'),
    'a video workflow is a video model',
  );

  const task = await waitForTask(h, await generate(h, { seed: 42, size: 'square' }));
  assert.equal(task.status, 'completed', JSON.stringify(task));
  const [image] = task.result.images;
  assert.equal(image.status, 'success');
  assert.equal(image.seed, 42);
  const bytes = Buffer.from(await (await fetch(image.service_url)).arrayBuffer());
  const { data } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true });
  assert.deepEqual([...data.subarray(0, 3)], fakeImageColour(42, PROMPT), 'the seed and the prompt made this image');
  assert.equal(task.cost, '0.01');
});

test('ComfyUI: a server that refuses connections is failed over to the next', async (t) => {
  const fake = await startFakeComfyUi(t);
  const h = await serviceOn(t, [await refusedUrl(), fake.baseUrl]);
  const task = await waitForTask(h, await generate(h, { seed: 3 }));
  assert.equal(task.result.images[0].status, 'success', JSON.stringify(task.result));
  assert.equal(fake.requests.filter((r) => r.path === '/prompt').length, 1, 'the live server made it');
});

test('ComfyUI: node_errors fail the item INVALID_INPUT, not retried, and free', async (t) => {
  const fake = await startFakeComfyUi(t);
  const graph = txt2imgWorkflow() as Record<string, { inputs: Record<string, unknown> }>;
  graph['4'].inputs.ckpt_name = 'not-on-this-server.safetensors';
  const h = await serviceOn(t, [fake.baseUrl], graph);
  const refused = await waitForTask(h, await generate(h));
  assert.equal(refused.result.images[0].status, 'failed');
  assert.equal(refused.result.images[0].error.code, 'INVALID_INPUT');
  assert.equal(fake.requests.filter((r) => r.path === '/prompt').length, 1, 'not retried');
  assert.equal(refused.cost, '0', 'a failed image is free');
});

test('ComfyUI: an execution_error is retried (it may be the server), and the retry makes the image', async (t) => {
  const fake = await startFakeComfyUi(t);
  const h = await serviceOn(t, [fake.baseUrl]);
  fake.failNext('execution_error', 'CUDA error: an illegal memory access');
  const task = await waitForTask(h, await generate(h, { seed: 11 }));
  assert.equal(task.result.images[0].status, 'success', JSON.stringify(task.result));
  assert.equal(fake.messages.filter((m) => m.type === 'execution_error').length, 1);
  assert.equal(fake.requests.filter((r) => r.path === '/prompt').length, 2, 'the second attempt');
});

test('ComfyUI: a pending task shows the job progress; cancel interrupts that job on the server', async (t) => {
  const fake: FakeComfyUi = await startFakeComfyUi(t);
  fake.holdJobs();
  const h = await serviceOn(t, [fake.baseUrl]);
  const taskId = await generate(h);
  await fake.waitForMessage((m) => m.type === 'progress');
  let fraction: number | undefined;
  for (let i = 0; i < 200 && !(fraction && fraction > 0); i++) {
    const pending = await h.request('GET', `/tasks/${taskId}`, { auth: h.apiKey });
    fraction = pending.json.data.progress?.items?.[0]?.fraction;
    if (!(fraction && fraction > 0)) await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.ok(fraction !== undefined && fraction > 0 && fraction < 1, `the running item's fraction: ${fraction}`);

  const cancelled = await h.request('POST', `/tasks/${taskId}/cancel`, { auth: h.apiKey });
  assert.equal(cancelled.status, 200, cancelled.text);
  for (let i = 0; i < 300 && fake.interrupts.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(fake.interrupts.length, 1);
  assert.equal(fake.interrupts[0].interrupted, true, 'that job was the one running');
  const settled = await h.request('GET', `/tasks/${taskId}`, { auth: h.apiKey });
  assert.equal(settled.json.data.progress, undefined, 'no progress once settled');
});

test('ComfyUI: a server that cannot be reached counts as down, so the next task goes to the live server at its first attempt', async (t) => {
  // Takes each connection and drops it at once.
  const dropping = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => dropping.listen(0, '127.0.0.1', resolve));
  t.after(() => dropping.close());
  const fake = await startFakeComfyUi(t);
  const h = await serviceOn(t, [`http://127.0.0.1:${(dropping.address() as { port: number }).port}`, fake.baseUrl]);
  const first = await waitForTask(h, await generate(h, { seed: 1 }));
  assert.equal(first.result.images[0].status, 'success');
  const secondId = await generate(h, { seed: 2 });
  const second = await waitForTask(h, secondId);
  assert.equal(second.result.images[0].status, 'success');
  const stored = await h.server.services.store.tasks.get(secondId);
  assert.equal(stored?.items[0].attempts, 1, 'no attempt went to the unreachable server');
});

test('ComfyUI: an execution_error on every attempt is the item error, with ComfyUI message', async (t) => {
  const fake = await startFakeComfyUi(t);
  const h = await serviceOn(t, [fake.baseUrl]);
  fake.failNext('execution_error', 'CUDA error: an illegal memory access', 4);
  const task = await waitForTask(h, await generate(h));
  assert.equal(task.result.images[0].status, 'failed');
  assert.equal(task.result.images[0].error.code, 'PROVIDER_ERROR');
  assert.match(task.result.images[0].error.message, /node 3 \(KSampler\).*CUDA error: an illegal memory access/);
});
