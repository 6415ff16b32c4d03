import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSharedRuns, type RunHooks } from '../../../../../src/providers/remote/comfyui/shared-runs.js';

/**
 * Items that are outputs of one ComfyUI run share its job: the first starts it, the others await
 * it; a failure fails every waiting item and is forgotten, so retries start one new job together;
 * the job is aborted only when every item awaiting it was.
 */
const run = (output: number, key = 't:0:1') => ({ key, output, outputs: 2 });
const hooks = (controller = new AbortController(), onProgress?: (fraction: number) => void): RunHooks => ({
  signal: controller.signal,
  onProgress,
});

/** A job the test ends by hand, counting its starts and keeping the hooks it was run with. */
function manualJob() {
  const started: { hooks: RunHooks; resolve: (value: string) => void; reject: (err: Error) => void }[] = [];
  const job = (h: RunHooks) => new Promise<string>((resolve, reject) => started.push({ hooks: h, resolve, reject }));
  return { started, job };
}

test('the items of one run share one job, and the run is forgotten once every output was taken', async () => {
  const runs = createSharedRuns<string>();
  const { started, job } = manualJob();
  const seen: number[] = [];
  const first = runs.join(
    run(0),
    hooks(undefined, (f) => seen.push(f)),
    job,
  );
  const second = runs.join(
    run(1),
    hooks(undefined, (f) => seen.push(f * 10)),
    job,
  );
  assert.equal(started.length, 1, 'the second item joined');
  started[0].hooks.onProgress?.(0.5);
  assert.deepEqual(seen, [0.5, 5], 'progress reaches every waiting item');
  started[0].resolve('entry');
  assert.deepEqual(await Promise.all([first, second]), ['entry', 'entry']);
  assert.equal(runs.size(), 0);
});

test('an item that comes after its run ended takes its output from it, without a new job', async () => {
  const runs = createSharedRuns<string>();
  const { started, job } = manualJob();
  const first = runs.join(run(0), hooks(), job);
  started[0].resolve('entry');
  assert.equal(await first, 'entry');
  assert.equal(runs.size(), 1, 'output 1 is still to be taken');
  assert.equal(await runs.join(run(1), hooks(), job), 'entry');
  assert.equal(started.length, 1);
  assert.equal(runs.size(), 0);
});

test('a failed run fails every waiting item; their retries (a new key) share one new job', async () => {
  const runs = createSharedRuns<string>();
  const { started, job } = manualJob();
  const first = runs.join(run(0), hooks(), job);
  const second = runs.join(run(1), hooks(), job);
  started[0].reject(new Error('CUDA error'));
  await assert.rejects(first, /CUDA error/);
  await assert.rejects(second, /CUDA error/);
  assert.equal(runs.size(), 0, 'forgotten');
  const retries = [runs.join(run(0, 't:0:2'), hooks(), job), runs.join(run(1, 't:0:2'), hooks(), job)];
  assert.equal(started.length, 2, 'one new job for both retries');
  started[1].resolve('again');
  assert.deepEqual(await Promise.all(retries), ['again', 'again']);
});

test('the job is aborted only when every item awaiting it was; a lone abort leaves it to the others', async () => {
  const runs = createSharedRuns<string>();
  const { started, job } = manualJob();
  const a = new AbortController();
  const b = new AbortController();
  const first = runs.join(run(0), hooks(a), job);
  const second = runs.join(run(1), hooks(b), job);
  a.abort(new Error('cancelled'));
  await assert.rejects(first, /cancelled/);
  assert.equal(started[0].hooks.signal.aborted, false, 'the other item still waits for it');
  b.abort(new Error('cancelled too'));
  await assert.rejects(second, /cancelled too/);
  assert.equal(started[0].hooks.signal.aborted, true, 'nobody waits: off the server');
  assert.equal(runs.size(), 0);
  const again = runs.join(run(0), hooks(), job);
  assert.equal(started.length, 2, 'the next item starts anew');
  started[1].resolve('fresh');
  assert.equal(await again, 'fresh');
});

test('a finished run nobody comes back for is forgotten after a while', async () => {
  const runs = createSharedRuns<string>(5);
  const { started, job } = manualJob();
  const first = runs.join(run(0), hooks(), job);
  started[0].resolve('entry');
  await first;
  assert.equal(runs.size(), 1);
  await new Promise((resolve) => setTimeout(resolve, 30));
  assert.equal(runs.size(), 0);
});
