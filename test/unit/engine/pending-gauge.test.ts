import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createPendingGauge } from '../../../src/engine/pending-gauge.js';

test('the pending count is read at most once a second far from the bound, grown by the creates since; near the bound every create reads it', async () => {
  let now = 0;
  let pending = 100;
  let reads = 0;
  const gauge = createPendingGauge(
    async () => {
      reads += 1;
      return pending;
    },
    () => now,
  );
  assert.equal(await gauge.read(100_000), 100);
  for (let i = 0; i < 50; i++) {
    gauge.created();
    pending += 1;
    assert.equal(await gauge.read(100_000), pending, 'the count read, plus the creates made here since');
  }
  assert.equal(reads, 1, 'one read for 51 creates within a second');
  now = 1000;
  assert.equal(await gauge.read(100_000), 150);
  assert.equal(reads, 2, 'read again after a second');
  assert.equal(await gauge.read(160), 150);
  assert.equal(await gauge.read(160), 150);
  assert.equal(reads, 4, 'within 10 % of the bound: read every time, so the bound is exact');
});
