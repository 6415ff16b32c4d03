import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EndpointBackoff } from '../../../src/webhooks/endpoint-backoff.js';

test('a cool-down doubles with each failure in a row, up to the cap, and an answer ends it', () => {
  let now = 0;
  const backoff = new EndpointBackoff(() => now);
  const ends: number[] = [];
  for (let i = 0; i < 5; i++) {
    backoff.unanswered('http://x/', 5000);
    ends.push(backoff.nextEnd(['http://x/'])! - now);
    now += 10_000;
  }
  assert.deepEqual(ends, [1000, 2000, 4000, 5000, 5000]);
  assert.equal(backoff.cap('http://x/', 2), 1, 'failing: one at a time');
  backoff.answered('http://x/');
  assert.equal(backoff.cap('http://x/', 2), 2);
  assert.equal(backoff.nextEnd(['http://x/']), null);
});

test('the endpoints remembered stay bounded: past 10,000 the longest quiet is forgotten', () => {
  const backoff = new EndpointBackoff(() => 0);
  for (let i = 0; i < 10_001; i++) backoff.unanswered(`http://h${i}/`, 60_000);
  assert.equal(backoff.cap('http://h0/', 2), 2, 'the first one is forgotten');
  assert.equal(backoff.cap('http://h10000/', 2), 0);
});
