import assert from 'node:assert/strict';
import { test } from 'node:test';
import { randomBase62, randomId, sortableId } from '../../../src/domain/ids.js';

test('sortable ids made later sort later, even within one millisecond', () => {
  const ids = Array.from({ length: 2000 }, () => sortableId('tsk'));
  assert.deepEqual([...ids].sort(), ids);
  assert.equal(new Set(ids).size, ids.length);
  assert.match(ids[0], /^tsk_[0-9a-z]{12}[0-9A-Za-z]{10}$/);
});

test('random ids and base62 text use only base62 characters and do not repeat', () => {
  const text = randomBase62(10_000);
  assert.match(text, /^[0-9A-Za-z]{10000}$/);
  // Every character appears: a biased or truncated alphabet would miss some.
  assert.equal(new Set(text).size, 62);
  assert.match(randomId('crd'), /^crd_[0-9A-Za-z]{22}$/);
  assert.notEqual(randomId('x'), randomId('x'));
});
