import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { test } from 'node:test';
import { abortableSleep } from '../../../../src/engine/runner/retry.js';

test('a sleep that runs its course leaves no abort listener behind; an abort ends it early', async () => {
  const controller = new AbortController();
  for (let i = 0; i < 20; i++) await abortableSleep(1, controller.signal);
  assert.equal(getEventListeners(controller.signal, 'abort').length, 0);

  const started = Date.now();
  const long = abortableSleep(60_000, controller.signal);
  controller.abort();
  await long;
  assert.ok(Date.now() - started < 1000, 'the abort cut the sleep short');
});
