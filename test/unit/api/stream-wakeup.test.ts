import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createStreamWakeup } from '../../../src/api/stream-wakeup.js';

test('a sleep ends at the next wake; a wake while nobody sleeps is dropped', async () => {
  const wakeup = createStreamWakeup();
  wakeup.wake();
  let woken = false;
  const slept = wakeup.sleep().then(() => {
    woken = true;
  });
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(woken, false, 'the wake before the sleep did not end it');
  wakeup.wake();
  await slept;
  assert.equal(woken, true);
});
