import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ProviderError } from '../../../src/domain/task-status.js';
import { limitCalls, limitGenerator } from '../../../src/providers/capacity.js';

test('a limited call refuses past its concurrency with a retryable PROVIDERS_BUSY, and frees its slot however the call ends', async () => {
  let concurrency = 1;
  const releases: Array<() => void> = [];
  const slow = limitCalls(
    (label: string) => new Promise<string>((resolve) => releases.push(() => resolve(label))),
    () => concurrency,
  );
  const first = slow.call('first');
  assert.equal(slow.busy(), true);
  await assert.rejects(
    slow.call('refused'),
    (err: ProviderError) => err instanceof ProviderError && err.code === 'PROVIDERS_BUSY' && err.retryable,
  );
  concurrency = 2;
  assert.equal(slow.busy(), false, 'the concurrency is read on each call (a reload applies)');
  const second = slow.call('second');
  assert.equal(slow.busy(), true);
  releases[1]();
  assert.equal(await second, 'second');
  assert.equal(slow.busy(), false);
  releases[0]();
  assert.equal(await first, 'first');

  const failing = limitCalls(
    async () => Promise.reject(new ProviderError('REVIEW_FAILED', 'x')),
    () => 1,
  );
  await assert.rejects(failing.call(), (err: ProviderError) => err.code === 'REVIEW_FAILED');
  assert.equal(failing.busy(), false, 'a failed call frees its slot');
});

test('limitGenerator caps generate() the same way', async () => {
  let release!: () => void;
  const limited = limitGenerator(
    { generate: (n: number) => new Promise<number>((resolve) => (release = () => resolve(n * 2))) },
    () => 1,
  );
  const made = limited.generate(21);
  await assert.rejects(limited.generate(1), (err: ProviderError) => err.code === 'PROVIDERS_BUSY');
  release();
  assert.equal(await made, 42);
  assert.equal(limited.busy(), false);
});
