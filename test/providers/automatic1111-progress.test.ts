import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { GenerateParams } from '../../src/providers/provider-types.js';
import { createAutomatic1111 } from '../../src/providers/remote/automatic1111.js';
import { startFakeA1111 } from '../fixtures/fake-a1111.js';

const INTERVAL_MS = 10;
// Each test waits for events (a fraction reported, a read arrived); the timeout turns a wait that never ends into a
// failure.

const sd = (baseUrl: string, apiKey?: string) =>
  createAutomatic1111({
    name: 'sd',
    baseUrl,
    steps: 20,
    cfgScale: 7,
    denoisingStrength: 0.6,
    timeoutMs: 10_000,
    apiKey,
    progressIntervalMs: INTERVAL_MS,
  });

const params = (over: Partial<GenerateParams> = {}): GenerateParams => ({
  model: 'sdxl',
  prompt: 'a red kite',
  width: 512,
  height: 512,
  inputs: [],
  index: 0,
  options: {},
  signal: new AbortController().signal,
  ...over,
});

/** A held gate and the function that opens it. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/** Collects reported fractions; `reached(f)` resolves once `f` has been reported. */
function recorder() {
  const seen: number[] = [];
  const waiters: { fraction: number; resolve: () => void }[] = [];
  return {
    seen,
    onProgress: (fraction: number) => {
      seen.push(fraction);
      for (const waiter of waiters) if (waiter.fraction === fraction) waiter.resolve();
    },
    reached: (fraction: number) =>
      seen.includes(fraction) ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ fraction, resolve })),
  };
}

/**
 * No progress read arrives once generate has returned. A negative can only be shown over a
 * window: twenty poll intervals, in which a poller left running would have read several times.
 */
async function assertNoMorePolls(fake: { polls: unknown[] }) {
  // A read sent just before the stop may still be on its way to the fake: let it land first.
  await sleep(INTERVAL_MS * 3);
  const count = fake.polls.length;
  await sleep(INTERVAL_MS * 20);
  assert.equal(fake.polls.length, count, 'no progress read after the request ended');
}

test('AUTOMATIC1111 progress: polled while the request runs, growth reported, failed reads ignored, polling stops with the request', {
  timeout: 10_000,
}, async (t) => {
  const fake = await startFakeA1111(t);
  fake.progress = [0.01, 'error', 0.3, 0.3, 'garbage', 0.25, 0.6, 1];
  const held = gate();
  fake.gate = held.promise;
  const progress = recorder();
  const made = sd(fake.baseUrl, 'user:pass').generate(params({ seed: 42, onProgress: progress.onProgress }));
  await progress.reached(1);
  held.open();
  const image = await made;
  assert.ok(image.data.length > 0);
  assert.deepEqual(
    progress.seen,
    [0.01, 0.3, 0.6, 1],
    'each growth once; a 500, a non-JSON answer and a drop are not reported',
  );
  assert.equal(fake.requests[0].json.seed, 42, 'the item’s seed is sent');
  for (const poll of fake.polls) {
    assert.equal(poll.query, 'skip_current_image=true');
    assert.equal(
      poll.authorization,
      `Basic ${Buffer.from('user:pass').toString('base64')}`,
      'progress reads carry the web UI’s credentials',
    );
  }
  await assertNoMorePolls(fake);
});

test('AUTOMATIC1111 progress: polling stops when the item is cancelled', { timeout: 10_000 }, async (t) => {
  const fake = await startFakeA1111(t);
  fake.progress = [0.2, 0.4];
  const held = gate();
  fake.gate = held.promise;
  t.after(held.open);
  const progress = recorder();
  const controller = new AbortController();
  const made = sd(fake.baseUrl).generate(params({ signal: controller.signal, onProgress: progress.onProgress }));
  await progress.reached(0.4);
  controller.abort(new Error('cancelled'));
  await assert.rejects(made);
  await assertNoMorePolls(fake);
  assert.deepEqual(progress.seen, [0.2, 0.4]);
});

test('AUTOMATIC1111 progress: with two requests in flight the server’s figure is nobody’s, and is not reported; a request alone again reports', {
  timeout: 10_000,
}, async (t) => {
  const fake = await startFakeA1111(t);
  fake.progress = [0.5];
  const held = gate();
  fake.gate = held.promise;
  const generator = sd(fake.baseUrl);
  const first = recorder();
  const second = recorder();
  const a = generator.generate(params({ onProgress: first.onProgress }));
  const b = generator.generate(params({ index: 1, onProgress: second.onProgress }));
  await fake.requestsReached(2);
  const before = fake.polls.length;
  await fake.pollsReached(before + 6);
  assert.deepEqual(
    [first.seen, second.seen],
    [[], []],
    'the server runs one job at a time: its progress cannot be told to either',
  );
  held.open();
  await Promise.all([a, b]);

  // Alone, the same generator reports again.
  const lone = recorder();
  const held2 = gate();
  fake.gate = held2.promise;
  const c = generator.generate(params({ onProgress: lone.onProgress }));
  await lone.reached(0.5);
  held2.open();
  await c;
});

test('AUTOMATIC1111 without onProgress never polls', { timeout: 10_000 }, async (t) => {
  const fake = await startFakeA1111(t);
  const held = gate();
  fake.gate = held.promise;
  const made = sd(fake.baseUrl).generate(params());
  await fake.requestsReached(1);
  await sleep(INTERVAL_MS * 10);
  held.open();
  await made;
  assert.equal(fake.polls.length, 0);
});
