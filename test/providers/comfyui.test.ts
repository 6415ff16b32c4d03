import assert from 'node:assert/strict';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { test } from 'node:test';
import sharp from 'sharp';
import {
  bindingProblems,
  type LoadedWorkflow,
  type WorkflowBindings,
  type WorkflowGraph,
} from '../../src/domain/comfy-workflows.js';
import { ProviderError } from '../../src/domain/task-status.js';
import { limitGenerator } from '../../src/providers/capacity.js';
import type { GenerateParams, SourceImage, VideoParams } from '../../src/providers/provider-types.js';
import { createComfyUi } from '../../src/providers/remote/comfyui/generator.js';
import {
  animatedWebpWorkflow,
  type FakeComfyUi,
  fakeImageColour,
  img2imgWorkflow,
  startFakeComfyUi,
  txt2imgWorkflow,
} from '../fakes/comfyui.js';

/**
 * The ComfyUI provider against the fake ComfyUI (test/fakes/comfyui.ts: ComfyUI's routes,
 * validation, executor messages and history over real HTTP and WebSocket).
 */
const BINDINGS: WorkflowBindings = {
  prompt: '6.inputs.text',
  negativePrompt: '7.inputs.text',
  seed: '3.inputs.seed',
  width: '5.inputs.width',
  height: '5.inputs.height',
  batchSize: '5.inputs.batch_size',
};
const IMG2IMG: WorkflowBindings = { prompt: '6.inputs.text', seed: '3.inputs.seed', images: ['10.inputs.image'] };
const VIDEO: WorkflowBindings & { fps: string; frames: string } = {
  prompt: '6.inputs.text',
  seed: '3.inputs.seed',
  width: '5.inputs.width',
  height: '5.inputs.height',
  frames: '5.inputs.batch_size',
  fps: '9.inputs.fps',
};

const workflow = (graph: unknown, bindings: WorkflowBindings): LoadedWorkflow => {
  assert.deepEqual(bindingProblems(graph as WorkflowGraph, bindings), [], 'the bindings fit the fake workflow');
  return { file: '/fake.json', graph: graph as WorkflowGraph, bindings };
};
const WORKFLOWS: Record<string, LoadedWorkflow> = {
  'models.sd': workflow(txt2imgWorkflow(), BINDINGS),
  'models.edit': workflow(img2imgWorkflow(), IMG2IMG),
  'videoModels.clip': workflow(animatedWebpWorkflow(), VIDEO),
};

function provider(
  fake: Pick<FakeComfyUi, 'baseUrl'>,
  extra: { headers?: Record<string, string>; timeoutMs?: number; maxQueued?: number } = {},
) {
  return createComfyUi({
    name: 'gpu-1',
    baseUrl: fake.baseUrl,
    headers: extra.headers ?? {},
    timeoutMs: extra.timeoutMs ?? 30_000,
    pollIntervalMs: 20,
    maxQueued: extra.maxQueued ?? null,
    workflowOf: (key) => WORKFLOWS[key],
  });
}

const params = (extra: Partial<GenerateParams> = {}): GenerateParams => ({
  model: 'sd',
  prompt: 'a lighthouse at dawn',
  width: 320,
  height: 192,
  inputs: [],
  index: 0,
  seed: 42,
  options: {},
  signal: new AbortController().signal,
  ...extra,
});

async function rejectsWith(promise: Promise<unknown>, code: string, pattern?: RegExp): Promise<ProviderError> {
  const err = await promise.then(
    () => assert.fail('expected a failure'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof ProviderError, `a ProviderError, got ${String(err)}`);
  assert.equal(err.code, code, err.message);
  if (pattern) assert.match(err.message, pattern);
  return err;
}

test('an image: the request bound into the workflow, the job followed to its end, the output read; headers on every request', async (t) => {
  const fake = await startFakeComfyUi(t);
  const fractions: number[] = [];
  const image = await provider(fake, { headers: { authorization: 'Bearer proxy-token' } }).image.generate(
    params({ onProgress: (f) => fractions.push(f) }),
  );
  const { width, height } = await sharp(image.data).metadata();
  assert.deepEqual([width, height], [320, 192], 'the size reached EmptyLatentImage');
  const { data } = await sharp(image.data).raw().toBuffer({ resolveWithObject: true });
  assert.deepEqual(
    [...data.subarray(0, 3)],
    fakeImageColour(42, 'a lighthouse at dawn'),
    'the seed and the prompt reached the graph',
  );
  const queued = fake.requests.find((r) => r.method === 'POST' && r.path === '/prompt');
  const sent = queued?.json as { prompt: WorkflowGraph; client_id: string };
  assert.equal(sent.prompt['5'].inputs.batch_size, 1, 'one image per item');
  assert.equal(sent.prompt['7'].inputs.text, 'text, watermark', 'no negative prompt: the workflow keeps its own');
  assert.match(sent.client_id, /^[0-9a-f-]{36}$/);
  assert.ok(
    fake.requests.every((r) => r.headers.authorization === 'Bearer proxy-token'),
    'every request carries the headers',
  );
  assert.ok(
    fake.requests.some((r) => r.path.startsWith('/ws?clientId=')),
    'the socket was opened with the client id',
  );
  assert.ok(fractions.length >= 2, `progress was reported: ${fractions}`);
  assert.deepEqual(
    fractions,
    [...fractions].sort((a, b) => a - b),
    'progress only grows',
  );
  assert.equal(fractions.at(-1), 1);
  assert.ok(fractions[0] > 0 && fractions[0] < 1);
});

test('input images are uploaded and their names bound into the LoadImage inputs', async (t) => {
  const fake = await startFakeComfyUi(t);
  const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#336699' } })
    .png()
    .toBuffer();
  const input: SourceImage = { data: png, format: 'png', width: 64, height: 64 };
  const image = await provider(fake).image.generate(params({ model: 'edit', inputs: [input] }));
  assert.ok(image.data.length > 0);
  const upload = fake.requests.find((r) => r.path === '/upload/image');
  assert.equal(upload?.form?.fields.type, 'input');
  assert.equal(upload?.form?.files[0].bytes, png.length);
  const sent = fake.requests.find((r) => r.path === '/prompt')?.json as { prompt: WorkflowGraph };
  assert.equal(sent.prompt['10'].inputs.image, upload?.form?.files[0].filename, 'the uploaded name is bound');
});

test('a workflow ComfyUI refuses (node_errors) fails INVALID_INPUT, not retried, with its messages', async (t) => {
  const fake = await startFakeComfyUi(t);
  const broken = structuredClone(txt2imgWorkflow()) as unknown as WorkflowGraph;
  broken['4'].inputs.ckpt_name = 'missing.safetensors';
  WORKFLOWS['models.broken'] = { file: '/broken.json', graph: broken, bindings: BINDINGS };
  const err = await rejectsWith(
    provider(fake).image.generate(params({ model: 'broken' })),
    'INVALID_INPUT',
    /refused the workflow: .*node 4 \(CheckpointLoaderSimple\)/,
  );
  assert.equal(err.retryable, false);
});

test('an execution_error fails PROVIDER_ERROR with the node and the exception message', async (t) => {
  const fake = await startFakeComfyUi(t);
  fake.failNext('execution_error', 'mat1 and mat2 shapes cannot be multiplied');
  await rejectsWith(
    provider(fake).image.generate(params()),
    'PROVIDER_ERROR',
    /node 3 \(KSampler\).*mat1 and mat2 shapes cannot be multiplied/,
  );
});

test('a WebSocket that drops mid-job leaves the job to /history polling, and the image arrives', async (t) => {
  const fake = await startFakeComfyUi(t, { stepDelayMs: 20 });
  fake.dropSocketsDuringNextJob();
  const image = await provider(fake).image.generate(params({ seed: 7 }));
  const { data } = await sharp(image.data).raw().toBuffer({ resolveWithObject: true });
  assert.deepEqual([...data.subarray(0, 3)], fakeImageColour(7, 'a lighthouse at dawn'));
  assert.ok(fake.requests.filter((r) => r.path.startsWith('/history/')).length >= 1, 'history was polled');
});

test('a server that dies mid-job fails PROVIDER_ERROR (retried elsewhere) and counts as down, not busy', async (t) => {
  const fake = await startFakeComfyUi(t, { stepDelayMs: 20 });
  fake.dieDuringNextJob();
  const comfy = provider(fake);
  const err = await rejectsWith(comfy.image.generate(params()), 'PROVIDER_ERROR', /gpu-1 .*\(ECONNREFUSED\)/);
  assert.notEqual(err.retryable, false);
  await fake.died;
  assert.equal(comfy.image.down?.(), true, 'the next attempt goes to the next server that is up at once');
  assert.equal(comfy.image.busy?.(), false, 'down is not "at capacity"');
});

test('a server answering 503 fails PROVIDER_ERROR', async (t) => {
  const fake = await startFakeComfyUi(t);
  fake.refuse(true);
  await rejectsWith(provider(fake).image.generate(params()), 'PROVIDER_ERROR', /HTTP 503/);
});

test('cancel interrupts the running job alone, with its prompt_id', async (t) => {
  const fake = await startFakeComfyUi(t);
  fake.holdJobs();
  const controller = new AbortController();
  const running = provider(fake).image.generate(params({ signal: controller.signal }));
  await fake.waitForMessage((m) => m.type === 'progress');
  controller.abort(new Error('cancelled'));
  await assert.rejects(running);
  await waitUntil(
    () => fake.interrupts.length > 0,
    () => fake.requests.map((r) => `${r.method} ${r.path}`).join(', '),
  );
  const started = fake.messages.find((m) => m.type === 'execution_start');
  assert.ok(started, 'the job started');
  const promptId = (started.data as { prompt_id: string }).prompt_id;
  assert.deepEqual(
    fake.requests.filter((r) => r.path === '/interrupt').map((r) => r.json),
    [{ prompt_id: promptId }],
  );
});

test('cancel removes a queued job from the queue and leaves the running one alone', async (t) => {
  const fake = await startFakeComfyUi(t);
  fake.holdJobs();
  const comfy = provider(fake);
  const first = comfy.image.generate(params({ seed: 1 }));
  await fake.waitForMessage((m) => m.type === 'progress');
  const controller = new AbortController();
  const second = comfy.image.generate(params({ seed: 2, signal: controller.signal }));
  await waitUntil(() => fake.queue().pending.length === 1);
  const queuedId = fake.queue().pending[0];
  controller.abort(new Error('cancelled'));
  await assert.rejects(second);
  await waitUntil(() => fake.queue().pending.length === 0);
  assert.deepEqual(
    fake.requests.filter((r) => r.method === 'POST' && r.path === '/queue').map((r) => r.json),
    [{ delete: [queuedId] }],
  );
  assert.equal(fake.requests.filter((r) => r.path === '/interrupt').length, 0, 'the running job was not interrupted');
  fake.releaseJobs();
  assert.ok((await first).data.length > 0, 'the running job finished');
});

test('a video workflow: frames and fps bound, its animated WebP answered as webp', async (t) => {
  const fake = await startFakeComfyUi(t);
  const video: VideoParams = {
    model: 'clip',
    prompt: 'waves',
    width: 160,
    height: 96,
    durationS: 1,
    fps: 8,
    format: 'webp',
    index: 0,
    seed: 5,
    options: {},
    signal: new AbortController().signal,
  };
  const clip = await provider(fake).video.generate(video);
  assert.equal(clip.format, 'webp');
  const meta = await sharp(clip.data, { animated: true }).metadata();
  assert.equal(meta.pages, 8, 'duration × fps frames');
  const sent = fake.requests.find((r) => r.path === '/prompt')?.json as { prompt: WorkflowGraph };
  assert.equal(sent.prompt['9'].inputs.fps, 8);
});

test('a job longer than timeoutMs fails TIMEOUT and is taken off the server', async (t) => {
  const fake = await startFakeComfyUi(t);
  fake.holdJobs();
  await rejectsWith(provider(fake, { timeoutMs: 300 }).image.generate(params()), 'TIMEOUT');
  await waitUntil(() => fake.interrupts.length > 0);
});

async function waitUntil(check: () => boolean, describe: () => string = () => '', timeoutMs = 5000): Promise<void> {
  for (let i = 0; i < timeoutMs / 10 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.ok(check(), `the condition came true ${describe()}`);
}

test('a cancel while the WebSocket is still connecting fails the item quietly (nothing thrown later, nothing queued)', async (t) => {
  // A server that takes the connection and never answers the upgrade.
  const silent = createServer(() => {});
  const sockets: Socket[] = [];
  silent.on('connection', (socket) => sockets.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    for (const socket of sockets) socket.destroy();
    silent.close();
  });
  const uncaught: unknown[] = [];
  const onUncaught = (err: unknown) => uncaught.push(err);
  process.on('uncaughtException', onUncaught);
  t.after(() => process.off('uncaughtException', onUncaught));
  const controller = new AbortController();
  const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  const running = provider({ baseUrl: url }).image.generate(params({ signal: controller.signal }));
  await new Promise((resolve) => setTimeout(resolve, 100));
  controller.abort(new Error('cancelled'));
  await assert.rejects(running);
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.deepEqual(uncaught, [], 'no error escaped after the cancel');
  assert.equal(sockets.length, 1, 'only the socket was tried: no prompt was sent after the cancel');
});

test('a prompt ComfyUI queues with node_errors (one output valid) fails INVALID_INPUT and its queued part is taken off the server', async (t) => {
  const fake = await startFakeComfyUi(t);
  fake.holdJobs();
  const graph = structuredClone(txt2imgWorkflow()) as unknown as WorkflowGraph;
  graph['20'] = { class_type: 'SaveImage', inputs: { filename_prefix: 'extra', images: ['99', 0] } };
  WORKFLOWS['models.partial'] = { file: '/partial.json', graph, bindings: BINDINGS };
  await rejectsWith(
    provider(fake).image.generate(params({ model: 'partial' })),
    'INVALID_INPUT',
    /node 20 \(SaveImage\)/,
  );
  const queued = fake.requests.find((r) => r.path === '/queue' && r.method === 'POST');
  assert.ok(queued, 'the queued part was deleted or interrupted');
  await waitUntil(() => fake.queue().running === null && fake.queue().pending.length === 0);
});

test('a history written a moment after execution_success is waited for', async (t) => {
  const fake = await startFakeComfyUi(t, { historyDelayMs: 40 });
  const image = await provider(fake).image.generate(params({ seed: 9 }));
  const { data } = await sharp(image.data).raw().toBuffer({ resolveWithObject: true });
  assert.deepEqual([...data.subarray(0, 3)], fakeImageColour(9, 'a lighthouse at dawn'));
});

test('a server restarted mid-job (queue and history forgotten) is sent the job again at once, not left to the deadline', async (t) => {
  const fake = await startFakeComfyUi(t);
  fake.holdJobs();
  const running = provider(fake, { timeoutMs: 60_000 }).image.generate(params({ seed: 5 }));
  await fake.waitForMessage((m) => m.type === 'progress');
  fake.releaseJobs();
  fake.forget();
  const image = await running;
  const { data } = await sharp(image.data).raw().toBuffer({ resolveWithObject: true });
  assert.deepEqual([...data.subarray(0, 3)], fakeImageColour(5, 'a lighthouse at dawn'));
  assert.equal(fake.requests.filter((r) => r.path === '/prompt').length, 2, 'queued again once');
});

test('limitGenerator: busy when full, or when the generator says so itself', async () => {
  let down = false;
  const limited = limitGenerator({ generate: async () => 'done', busy: () => down }, () => 1);
  assert.equal(limited.busy(), false);
  down = true;
  assert.equal(limited.busy(), true, 'the generator is down: busy');
});

test('a server whose queue holds maxQueued waiting jobs is busy (read from GET /queue in the background)', async (t) => {
  const fake = await startFakeComfyUi(t);
  fake.holdJobs();
  const comfy = provider(fake, { maxQueued: 1 });
  assert.equal(comfy.image.busy?.(), false, 'nothing read yet');
  const first = comfy.image.generate(params({ seed: 1 }));
  const second = comfy.image.generate(params({ seed: 2 }));
  await waitUntil(() => fake.queue().pending.length === 1);
  // The queue is read at most every 2 s: wait for the read that sees the waiting job.
  await waitUntil(
    () => comfy.image.busy?.() === true,
    () => 'busy never came true',
    3000,
  );
  fake.releaseJobs();
  await Promise.all([first, second]);
});
