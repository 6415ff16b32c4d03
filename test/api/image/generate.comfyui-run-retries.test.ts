import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { twoOutputWorkflow } from '../../fakes/comfyui/workflows.js';
import { type FakeComfyUi, startFakeComfyUi } from '../../fakes/comfyui.js';
import { type Harness, startService, waitForTask } from '../../helpers/harness.js';
import { tempDir } from '../../helpers/temp-dir.js';

/**
 * The items of one run of a two-output workflow on a server that takes one job at a time: item 1
 * runs only once item 0 has ended, so it comes to the run late. It must take the run's outcome
 * as item 0 left it (the retry's image; a failure that would recur) rather than run the graph again.
 */
const BINDINGS = {
  prompt: '6.inputs.text',
  seed: '3.inputs.seed',
  width: '5.inputs.width',
  height: '5.inputs.height',
  batchSize: '5.inputs.batch_size',
};

async function oneAtATime(t: TestContext, fake: FakeComfyUi): Promise<Harness> {
  const dir = await tempDir(t);
  const file = join(dir, 'graph.json');
  await writeFile(file, JSON.stringify(twoOutputWorkflow()));
  return startService(t, {
    config: {
      providers: {
        'gpu-1': { type: 'comfyui', baseUrl: fake.baseUrl, pollIntervalMs: 50, timeoutMs: 20_000, concurrency: 1 },
      },
      models: {
        flux: {
          provider: 'gpu-1',
          workflow: file,
          bindings: BINDINGS,
          price: { perImage: '0.01', perInput: '0' },
          capabilities: { maxInputs: 0, supports4k: false, negativePrompt: false, nativeSize: '512x512' },
        },
      },
    },
  });
}

const prompts = (fake: FakeComfyUi) => fake.requests.filter((r) => r.path === '/prompt').length;

async function generate(h: Harness): Promise<string> {
  const res = await h.request('POST', '/image/generate', {
    auth: h.apiKey,
    body: { prompt: 'a lighthouse', model: 'flux', seed: 5, output: { format: 'png' } },
  });
  assert.equal(res.status, 201, res.text);
  return res.json.data.taskId;
}

test('every output: an item that comes late to a run whose first attempt failed and was retried takes the retry’s output, without a third job', async (t) => {
  const fake = await startFakeComfyUi(t);
  const h = await oneAtATime(t, fake);
  fake.failNext('out_of_memory', 'Allocation on device 0 would exceed allowed memory. (out of memory)');
  const task = await waitForTask(h, await generate(h));
  assert.deepEqual(
    task.result.images.map((image: { status: string }) => image.status),
    ['success', 'success'],
    JSON.stringify(task.result),
  );
  assert.equal(prompts(fake), 2, 'the failed job and its retry, which both items share');
});

test('every output: an item that comes late to a run that failed in a way that would recur fails the same, without running the graph again', async (t) => {
  const fake = await startFakeComfyUi(t);
  const h = await oneAtATime(t, fake);
  fake.failNext('execution_error', 'shapes cannot be multiplied', 4);
  const task = await waitForTask(h, await generate(h));
  const images = task.result.images as { status: string; error?: { code: string; message: string } }[];
  assert.deepEqual(
    images.map((image) => image.status),
    ['failed', 'failed'],
  );
  for (const image of images) assert.match(image.error?.message ?? '', /shapes cannot be multiplied/);
  assert.equal(task.cost, '0');
  assert.equal(prompts(fake), 1, 'one job: the error would come back on any run of the graph');
});
