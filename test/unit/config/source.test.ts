import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../../src/config/load.js';
import { createConfigSource } from '../../../src/config/source.js';

test('a failing change listener does not stop the others; set rejects once all have run, and the new config is in force', async () => {
  const first = loadConfig({ env: {} });
  const next = loadConfig({ env: {}, overrides: { sync: { timeoutMs: 5 } } });
  const source = createConfigSource(first);
  const seen: number[] = [];
  source.onChange(() => {
    throw new Error('lane resize failed');
  });
  source.onChange((now, before) => {
    seen.push(before.sync.timeoutMs, now.sync.timeoutMs);
  });
  await assert.rejects(source.set(next), /1 config listener\(s\) failed: lane resize failed/);
  assert.deepEqual(seen, [first.sync.timeoutMs, 5]);
  assert.equal(source.current(), next);
});
