import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import { startFakeA1111 } from '../../fixtures/fake-a1111.js';
import { type Harness, startService, waitForTask } from '../../helpers/harness.js';

async function generate(h: Harness, body: Record<string, unknown>) {
  const res = await h.request('POST', '/image/generate', {
    auth: h.apiKey,
    body: { prompt: 'a lighthouse at dawn', size: '1:1', ...body },
  });
  assert.equal(res.status, 201, res.text);
  const task = await waitForTask(h, res.json.data.taskId);
  assert.equal(task.status, 'completed');
  return task;
}

const seedsOf = (task: { result: { images: { status: string; seed?: number }[] } }) =>
  task.result.images.map((image) => {
    assert.equal(image.status, 'success');
    return image.seed;
  });

/** Each image's decoded pixels: the files differ by their signed credentials (task id, time), the images do not. */
const pixelsOf = async (task: { result: { images: { service_url: string }[] } }) =>
  Promise.all(
    task.result.images.map(async (image) =>
      sharp(Buffer.from(await (await fetch(image.service_url)).arrayBuffer()))
        .raw()
        .toBuffer(),
    ),
  );

test('seed: item i is made with seed + i and reports it; the same seed gives the same files, another seed other files', async (t) => {
  const h = await startService(t);
  const first = await generate(h, { seed: 42, count: 2, output: { format: 'png' } });
  assert.deepEqual(seedsOf(first), [42, 43]);
  assert.equal(first.request.seed, 42, 'the task keeps the seed it was sent');

  const again = await generate(h, { seed: 42, count: 2, output: { format: 'png' } });
  const [a0, a1] = await pixelsOf(first);
  const [b0, b1] = await pixelsOf(again);
  assert.ok(a0.equals(b0) && a1.equals(b1), 'the same seed and request: the same pixels');
  assert.ok(!a0.equals(a1), 'the two items of a task differ');
  const [next] = await pixelsOf(await generate(h, { seed: 43, output: { format: 'png' } }));
  assert.ok(next.equals(a1), 'seed 43 alone makes the second image of seed 42');
  const [other] = await pixelsOf(await generate(h, { seed: 7, output: { format: 'png' } }));
  assert.ok(!other.equals(a0), 'another seed, another image');

  assert.deepEqual(seedsOf(await generate(h, { seed: 4294967295, count: 2 })), [4294967295, 0], 'seeds wrap at 2^32');
});

test('seed: without one, a random seed s is chosen once for the task and its items report s and s + 1', async (t) => {
  const h = await startService(t);
  const chosen: number[] = [];
  for (let run = 0; run < 3; run++) {
    const task = await generate(h, { count: 2 });
    const [s, next] = seedsOf(task) as number[];
    assert.ok(Number.isInteger(s) && s >= 0 && s <= 4294967295, `a 32-bit seed: ${s}`);
    assert.equal(next, (s + 1) % 2 ** 32);
    assert.equal('seed' in task.request, false, 'the request stays as it was sent');
    chosen.push(s);
  }
  assert.ok(new Set(chosen).size > 1, `chosen at random: ${chosen}`);
});

test('seed: reaches AUTOMATIC1111 as its seed, item by item', async (t) => {
  const fake = await startFakeA1111(t);
  const h = await startService(t, {
    config: {
      providers: { sd: { type: 'automatic1111', baseUrl: fake.baseUrl, timeoutMs: 5000 } },
      models: {
        sdxl: {
          provider: 'sd',
          price: { perImage: '0.002', perInput: '0' },
          capabilities: { maxInputs: 0, supports4k: false, negativePrompt: true },
        },
      },
    },
  });
  const task = await generate(h, { model: 'sdxl', seed: 42, count: 2 });
  assert.deepEqual(seedsOf(task), [42, 43]);
  assert.deepEqual(fake.requests.map((request) => request.json.seed).sort(), [42, 43]);

  const unseeded = await generate(h, { model: 'sdxl', count: 2 });
  const [s, next] = seedsOf(unseeded) as number[];
  assert.deepEqual(
    fake.requests
      .slice(2)
      .map((request) => request.json.seed)
      .sort((x, y) => x - y),
    [s, next].sort((x, y) => x - y),
    'the chosen seed is the one sent',
  );
});
