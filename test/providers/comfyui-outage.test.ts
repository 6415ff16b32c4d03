import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import sharp from 'sharp';
import type { LoadedWorkflow, WorkflowBindings, WorkflowGraph } from '../../src/domain/comfy-workflows.js';
import { ProviderError } from '../../src/domain/task-status.js';
import { limitGenerator } from '../../src/providers/capacity.js';
import type { GenerateParams } from '../../src/providers/provider-types.js';
import { createComfyUi } from '../../src/providers/remote/comfyui/generator.js';
import { providerForAttempt } from '../../src/task-types/failover.js';
import { type FakeComfyUi, fakeImageColour, startFakeComfyUi, txt2imgWorkflow } from '../fakes/comfyui.js';

/**
 * A ComfyUI server that goes down or restarts (the fake's stop() and start(), on the same port):
 * down is not "at capacity", an item given a server that is down waits for it (probing with a
 * backoff made short here), the error names the cause when the wait runs out, a cancel stops the
 * wait at once, and the log says when the server went down and when it was back.
 */
const BINDINGS: WorkflowBindings = {
  prompt: '6.inputs.text',
  seed: '3.inputs.seed',
  width: '5.inputs.width',
  height: '5.inputs.height',
  batchSize: '5.inputs.batch_size',
};
const WORKFLOW: LoadedWorkflow = { file: '/fake.json', graph: txt2imgWorkflow() as WorkflowGraph, bindings: BINDINGS };
const PROMPT = 'a lighthouse at dawn';

function provider(baseUrl: string, extra: { timeoutMs?: number; firstProbeMs?: number } = {}) {
  const logs: { level: string; message: string }[] = [];
  const comfy = createComfyUi({
    name: 'gpu-1',
    baseUrl,
    headers: {},
    timeoutMs: extra.timeoutMs ?? 20_000,
    pollIntervalMs: 20,
    maxQueued: null,
    workflowOf: () => WORKFLOW,
    log: (level, message) => logs.push({ level, message }),
    probeBackoff: { firstMs: extra.firstProbeMs ?? 10, maxMs: 40 },
  });
  return { comfy, logs };
}

const params = (extra: Partial<GenerateParams> = {}): GenerateParams => ({
  model: 'sd',
  prompt: PROMPT,
  width: 64,
  height: 64,
  inputs: [],
  index: 0,
  seed: 42,
  options: {},
  signal: new AbortController().signal,
  ...extra,
});

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  const err = await promise.then(
    () => assert.fail('expected a failure'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof ProviderError, `a ProviderError, got ${String(err)}`);
  return err;
}

async function colourOf(data: Buffer): Promise<number[]> {
  const { data: pixels } = await sharp(data).raw().toBuffer({ resolveWithObject: true });
  return [...pixels.subarray(0, 3)];
}

/** Resolves once `check` holds (checked every few ms), or fails after `timeoutMs`. */
async function until(check: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`never: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const prompts = (fake: FakeComfyUi) => fake.requests.filter((r) => r.path === '/prompt').length;

test('a server that is down fails the attempt with its cause and is down, not busy; the next attempt waits for it to come back on the same port, and runs there', async (t) => {
  const fake = await startFakeComfyUi(t);
  const { comfy, logs } = provider(fake.baseUrl);
  await fake.stop();
  const first = await failure(comfy.image.generate(params()));
  assert.equal(first.code, 'PROVIDER_ERROR');
  assert.match(first.message, /^gpu-1 cannot be reached \(ECONNREFUSED\)$/);
  assert.notEqual(first.retryable, false, 'retried: on another server, or on this one once it is back');
  assert.equal(comfy.image.down?.(), true);
  assert.equal(comfy.image.busy?.(), false, 'down is not "at capacity"');
  assert.deepEqual(
    logs.map((l) => l.level),
    ['warn'],
  );
  assert.match(logs[0].message, /gpu-1 is down \(ECONNREFUSED\)/);

  const second = comfy.image.generate(params({ seed: 8 }));
  // Probes every 10–40 ms meanwhile: the server comes back while the item waits.
  await new Promise((resolve) => setTimeout(resolve, 150));
  assert.equal(prompts(fake), 0, 'nothing was sent while it was down');
  await fake.start();
  const image = await second;
  assert.deepEqual(await colourOf(image.data), fakeImageColour(8, PROMPT));
  assert.equal(comfy.image.down?.(), false);
  assert.deepEqual(
    logs.map((l) => l.level),
    ['warn', 'info'],
    'down once, back once',
  );
  assert.match(logs[1].message, /gpu-1 is back, after \d+\.\d s down/);
});

test('a server that never comes back: the wait ends at timeoutMs with the cause named (not retried), never PROVIDERS_BUSY', async (t) => {
  const fake = await startFakeComfyUi(t);
  const { comfy, logs } = provider(fake.baseUrl, { timeoutMs: 300 });
  await fake.stop();
  await failure(comfy.image.generate(params()));
  const started = Date.now();
  const err = await failure(comfy.image.generate(params()));
  assert.equal(err.code, 'PROVIDER_ERROR');
  assert.match(err.message, /^gpu-1 cannot be reached \(ECONNREFUSED\); waited 0\.\d s$/);
  assert.equal(err.retryable, false, 'waited as long as a job may take');
  assert.ok(Date.now() - started >= 300, 'it waited its bound');
  assert.equal(logs.filter((l) => l.level === 'warn').length, 1, 'down is logged once');
});

test('a cancel while an item waits for its server stops the wait at once', async (t) => {
  const fake = await startFakeComfyUi(t);
  // The next probe would come a minute later: only the cancel can end this wait soon.
  const { comfy } = provider(fake.baseUrl, { firstProbeMs: 60_000 });
  await fake.stop();
  await failure(comfy.image.generate(params()));
  const controller = new AbortController();
  const waiting = comfy.image.generate(params({ signal: controller.signal }));
  await new Promise((resolve) => setTimeout(resolve, 50));
  const cancelledAt = Date.now();
  controller.abort(new Error('cancelled'));
  await assert.rejects(waiting, /cancelled/);
  assert.ok(Date.now() - cancelledAt < 1000, `stopped at once (${Date.now() - cancelledAt} ms)`);
  assert.equal(prompts(fake), 0);
});

test('a server restarted mid-job and down longer than the polls allow: the attempt fails with the cause, the next waits and runs the job again', async (t) => {
  const fake = await startFakeComfyUi(t);
  const { comfy, logs } = provider(fake.baseUrl);
  fake.holdJobs();
  const running = comfy.image.generate(params({ seed: 3 }));
  await fake.waitForMessage((m) => m.type === 'progress');
  fake.releaseJobs();
  await fake.stop();
  const err = await failure(running);
  assert.match(err.message, /gpu-1 went away in the middle of the job \(ECONNREFUSED\)/);
  assert.equal(comfy.image.down?.(), true);
  const again = comfy.image.generate(params({ seed: 3 }));
  await new Promise((resolve) => setTimeout(resolve, 100));
  await fake.start();
  assert.deepEqual(await colourOf((await again).data), fakeImageColour(3, PROMPT));
  assert.equal(prompts(fake), 2, 'queued again once back');
  assert.deepEqual(
    logs.map((l) => l.level),
    ['warn', 'info'],
  );
});

test('failover: a provider that is down is passed over while another is up, even first in turn; when every one is down one is picked all the same', () => {
  const state: Record<string, { down: boolean; busy: boolean }> = {
    a: { down: true, busy: false },
    b: { down: false, busy: false },
  };
  const lookup = (name: string) => ({ name, down: () => state[name].down, busy: () => state[name].busy });
  assert.equal(providerForAttempt(['a', 'b'], 1, lookup, 'model m').name, 'b', 'the one that is up, without waiting');
  assert.equal(
    providerForAttempt(['a', 'b'], 1, lookup, 'model m', 'a').name,
    'b',
    'even when the lane prefers the one that is down',
  );
  state.b.busy = true;
  assert.throws(
    () => providerForAttempt(['a', 'b'], 1, lookup, 'model m'),
    (err: ProviderError) => err.code === 'PROVIDERS_BUSY' && /at capacity/.test(err.message),
  );
  state.b = { down: true, busy: false };
  assert.equal(
    providerForAttempt(['a', 'b'], 1, lookup, 'model m').name,
    'a',
    'every one down: the first in turn, which waits',
  );
  assert.equal(providerForAttempt(['a', 'b'], 2, lookup, 'model m').name, 'b');
  state.a.busy = true;
  assert.equal(providerForAttempt(['a', 'b'], 1, lookup, 'model m').name, 'b', 'the first with room');
});

test("limitGenerator passes the generator's down through, apart from busy", () => {
  let down = false;
  const limited = limitGenerator({ generate: async () => 'done', down: () => down }, () => 1);
  assert.equal(limited.down(), false);
  down = true;
  assert.equal(limited.down(), true);
  assert.equal(limited.busy(), false);
});

test('a gateway with no server behind it (502, 503, 504) is down too, and back once it answers', async (t) => {
  let status = 502;
  const gateway = createServer((_req, res) => {
    res.statusCode = status;
    res.end(status === 200 ? JSON.stringify({ system: {}, devices: [] }) : 'Bad Gateway');
  });
  await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise((resolve) => gateway.close(resolve)));
  const { comfy, logs } = provider(`http://127.0.0.1:${(gateway.address() as AddressInfo).port}`);
  const err = await failure(comfy.image.generate(params()));
  assert.match(err.message, /^gpu-1 cannot be reached \(HTTP 502\)$/);
  assert.equal(comfy.image.down?.(), true);
  status = 200;
  // down() probes in the background at the backoff's pace.
  await until(() => comfy.image.down?.() === false, 'the probe found it back');
  assert.deepEqual(
    logs.map((l) => l.level),
    ['warn', 'info'],
  );
});
