import assert from 'node:assert/strict';
import { test } from 'node:test';
import { taskFailureMessage } from '../../../src/api/failure-message.js';

const failed = (message?: string) => ({
  status: 'failed',
  error: { code: 'FETCH_FAILED', ...(message ? { message } : {}) },
});

test("a failed sync answer's message names each failed item's reason, numbered from 1, skipping successes", () => {
  const task = {
    id: 'tsk_1',
    items: [failed('cannot fetch the image: a.example answered HTTP 404'), { status: 'success' }, failed()],
  };
  assert.equal(
    taskFailureMessage(task),
    'task tsk_1 failed: item 1 FETCH_FAILED (cannot fetch the image: a.example answered HTTP 404); item 3 FETCH_FAILED',
  );
});

test("one item is not numbered; without item errors it names the task's own errors", () => {
  assert.equal(
    taskFailureMessage({ id: 'tsk_2', items: [failed('the image cannot be read')] }),
    'task tsk_2 failed: FETCH_FAILED (the image cannot be read)',
  );
  const task = {
    id: 'tsk_2',
    items: [{ status: 'pending' }],
    errors: [{ code: 'TASK_EXPIRED', message: 'the deadline passed' }],
  };
  assert.equal(taskFailureMessage(task), 'task tsk_2 failed: TASK_EXPIRED (the deadline passed)');
});

test('the message is bounded: each reason cut to 200 characters, the whole to about 1000, then how many more', () => {
  const task = { id: 'tsk_3', items: Array.from({ length: 10 }, () => failed(`cannot reach ${'x'.repeat(400)}`)) };
  const message = taskFailureMessage(task);
  assert.ok(message.length <= 1020, `${message.length} characters`);
  assert.match(message, /^task tsk_3 failed: item 1 FETCH_FAILED \(cannot reach x+…\); item 2 /);
  assert.match(message, /; and 6 more$/);
  assert.equal(message.match(/\(cannot reach x{186}…\)/g)?.length, 4, 'each reason cut to 200 characters');
});
