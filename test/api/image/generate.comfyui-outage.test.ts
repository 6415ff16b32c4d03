import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { startFakeComfyUi, txt2imgWorkflow } from '../../fakes/comfyui.js';
import { type Harness, startService, waitForTask } from '../../helpers/harness.js';
import { tempDir } from '../../helpers/temp-dir.js';

/**
 * ComfyUI servers that go down, restart or fail through the public API: an item waits for a lone
 * server that restarts and is made there, fails with the real cause when the server never comes
 * back, goes to a server that is up without waiting for one that is down; an execution_error
 * that would recur runs once, one that may pass (out of memory) is retried, and no server path
 * reaches the client.
 */
const PROMPT = 'a lighthouse at dawn';
const BINDINGS = {
  prompt: '6.inputs.text',
  seed: '3.inputs.seed',
  width: '5.inputs.width',
  height: '5.inputs.height',
  batchSize: '5.inputs.batch_size',
};

async function serviceOn(t: TestContext, servers: string[], timeoutMs = 20_000): Promise<Harness> {
  const dir = await tempDir(t);
  const file = join(dir, 'flux.json');
  await writeFile(file, JSON.stringify(txt2imgWorkflow()));
  const providers = Object.fromEntries(
    servers.map((baseUrl, i) => [`gpu-${i + 1}`, { type: 'comfyui', baseUrl, pollIntervalMs: 50, timeoutMs }]),
  );
  return startService(t, {
    config: {
      providers,
      models: {
        flux: {
          providers: Object.keys(providers),
          workflow: file,
          bindings: BINDINGS,
          price: { perImage: '0.01', perInput: '0' },
          capabilities: { maxInputs: 0, supports4k: false, negativePrompt: false, nativeSize: '512x512' },
        },
      },
    },
  });
}

async function generate(h: Harness, seed: number): Promise<string> {
  const res = await h.request('POST', '/image/generate', {
    auth: h.apiKey,
    body: { prompt: PROMPT, model: 'flux', seed, output: { format: 'png' } },
  });
  assert.equal(res.status, 201, res.text);
  return res.json.data.taskId as string;
}

async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`never: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const prompts = (fake: { requests: { path: string }[] }) => fake.requests.filter((r) => r.path === '/prompt').length;

test('ComfyUI: a lone server that restarts is waited for, and the item is made there; the log says it went down (with the cause) and came back', async (t) => {
  const fake = await startFakeComfyUi(t);
  const h = await serviceOn(t, [fake.baseUrl]);
  await fake.stop();
  const taskId = await generate(h, 5);
  await until(
    () => h.logs.some((line) => /gpu-1 is down \(ECONNREFUSED\)/.test(line)),
    'the log says the server is down',
  );
  await fake.start();
  const task = await waitForTask(h, taskId);
  assert.equal(task.result.images[0].status, 'success', JSON.stringify(task.result));
  assert.equal(prompts(fake), 1, 'run once, once the server was back');
  assert.equal(h.logs.filter((line) => / is down /.test(line)).length, 1, 'down is logged once');
  assert.equal(
    h.logs.filter((line) => /gpu-1 is back, after [\d.]+ s down/.test(line)).length,
    1,
    'back is logged once',
  );
});

test('ComfyUI: a lone server that never comes back fails the item with the cause and the wait, not PROVIDERS_BUSY', async (t) => {
  const fake = await startFakeComfyUi(t);
  const h = await serviceOn(t, [fake.baseUrl], 1000);
  await fake.stop();
  const task = await waitForTask(h, await generate(h, 1));
  const [image] = task.result.images;
  assert.equal(image.status, 'failed');
  assert.equal(image.error.code, 'PROVIDER_ERROR', JSON.stringify(image.error));
  assert.match(image.error.message, /^gpu-1 cannot be reached \(ECONNREFUSED\); waited \d\.\d s$/);
  assert.equal(task.cost, '0');
});

test('ComfyUI: with one of two servers down, the other makes the image without waiting for the one that is down', async (t) => {
  const down = await startFakeComfyUi(t);
  const up = await startFakeComfyUi(t);
  const h = await serviceOn(t, [down.baseUrl, up.baseUrl]);
  await down.stop();
  const first = await waitForTask(h, await generate(h, 1));
  assert.equal(first.result.images[0].status, 'success', JSON.stringify(first.result));
  const secondId = await generate(h, 2);
  const second = await waitForTask(h, secondId);
  assert.equal(second.result.images[0].status, 'success', JSON.stringify(second.result));
  assert.equal(prompts(up), 2, 'the server that is up made both');
  const stored = await h.server.services.store.tasks.get(secondId);
  assert.equal(stored?.items[0].attempts, 1, 'known down: its first attempt went to the server that is up');
  assert.ok(!h.logs.some((line) => / is back/.test(line)), 'nothing waited for the server that is down');
});

test('ComfyUI: an execution_error that would recur runs once, and its message reaches the client without server paths', async (t) => {
  const fake = await startFakeComfyUi(t);
  const h = await serviceOn(t, [fake.baseUrl]);
  fake.failNext(
    'execution_error',
    "[Errno 2] No such file or directory: '/home/alice/ComfyUI/models/loras/detail.safetensors'",
    4,
  );
  const taskId = await generate(h, 3);
  const task = await waitForTask(h, taskId);
  const [image] = task.result.images;
  assert.equal(image.status, 'failed');
  assert.equal(image.error.code, 'PROVIDER_ERROR');
  assert.match(
    image.error.message,
    /node 3 \(KSampler\): RuntimeError: .*No such file or directory: '…\/loras\/detail\.safetensors'/,
  );
  assert.doesNotMatch(image.error.message, /alice|\/home|ComfyUI\/models/, 'no server path');
  assert.equal(prompts(fake), 1, 'not run again: it would fail the same way');
  assert.equal(fake.messages.filter((m) => m.type === 'execution_error').length, 1);
  assert.equal((await h.server.services.store.tasks.get(taskId))?.items[0].attempts, 1);
});

test('ComfyUI: an execution_error that may pass on another try (out of memory) is retried, and the retry makes the image', async (t) => {
  const fake = await startFakeComfyUi(t);
  const h = await serviceOn(t, [fake.baseUrl]);
  fake.failNext('out_of_memory', 'Allocation on device 0 would exceed allowed memory. (out of memory)');
  const task = await waitForTask(h, await generate(h, 4));
  assert.equal(task.result.images[0].status, 'success', JSON.stringify(task.result));
  assert.equal(fake.messages.filter((m) => m.type === 'execution_error').length, 1);
  assert.equal(prompts(fake), 2, 'the second attempt');
});
