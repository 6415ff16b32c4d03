import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createAttemptLimiter } from '../../../src/console/security.js';

test('counts attempts per client per minute and says how long to wait past the limit', () => {
  let now = Date.parse('2026-11-27T08:00:10.000Z');
  const limiter = createAttemptLimiter(3, () => now);
  assert.deepEqual([limiter.take('a'), limiter.take('a'), limiter.take('a')], [null, null, null]);
  assert.equal(limiter.take('a'), 50, 'the fourth waits for the next minute');
  assert.equal(limiter.take('b'), null, 'another client has its own count');
  now += 50_000;
  assert.equal(limiter.take('a'), null, 'a new minute, a new count');
});

test('many clients at once never wipe every count: the recent ones stay limited', () => {
  const now = Date.parse('2026-11-27T08:00:00.000Z');
  const limiter = createAttemptLimiter(1, () => now);
  for (let i = 0; i < 10_000; i++) limiter.take(`old-${i}`);
  limiter.take('guesser');
  assert.ok(limiter.take('guesser') !== null, 'limited');
  // A flood of new addresses: the oldest go, the recent guesser is still counted.
  for (let i = 0; i < 500; i++) limiter.take(`new-${i}`);
  assert.ok(limiter.take('guesser') !== null, 'still limited after the flood');
});
