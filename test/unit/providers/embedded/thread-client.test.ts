import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ThreadClient } from '../../../../src/providers/embedded/thread-client.js';

const script = new URL('../../../fixtures/slow-worker.mjs', import.meta.url);

test('close() waits for a call under way to answer before ending the thread (ending it inside native code can abort the process)', async () => {
  const client = new ThreadClient<{ delayMs: number }, { answered: boolean }>(script, 'slow model');
  const call = client.call({ delayMs: 300 }, 5000);
  await new Promise((resolve) => setTimeout(resolve, 20));
  const started = performance.now();
  await client.close();
  const waited = performance.now() - started;
  assert.deepEqual(
    await call.then((out) => out.answered),
    true,
    'the call under way got its answer, not a "stopped" error',
  );
  assert.ok(waited >= 200, `close() returned after ${Math.round(waited)} ms, before the call answered`);
});

test('close() waits no longer than its grace: a call that does not answer in time is ended with the thread', async () => {
  const client = new ThreadClient<{ delayMs: number }, { answered: boolean }>(script, 'slow model');
  const call = client.call({ delayMs: 10_000 }, 20_000);
  const outcome = call.then(
    () => 'answered',
    (err: Error) => err.message,
  );
  await new Promise((resolve) => setTimeout(resolve, 20));
  const started = performance.now();
  await client.close(100);
  const waited = performance.now() - started;
  assert.ok(waited < 2000, `close(100) took ${Math.round(waited)} ms`);
  assert.match(await outcome, /slow model stopped/);
});

test('close() with nothing under way ends the thread at once', async () => {
  const client = new ThreadClient<{ delayMs: number }, { answered: boolean }>(script, 'slow model');
  assert.equal((await client.call({ delayMs: 0 }, 5000)).answered, true);
  const started = performance.now();
  await client.close();
  assert.ok(performance.now() - started < 1000);
});
