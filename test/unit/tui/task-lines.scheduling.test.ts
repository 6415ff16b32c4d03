import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TaskView } from '../../../src/client/http-client.js';
import { plainText, taskLines } from '../../../src/tui/task-lines.js';

const task = (fields: Record<string, unknown>) =>
  ({
    id: 'tsk_1',
    type: 'image.generate',
    status: 'completed',
    cost: '0.01',
    result: { model: 'm', images: [] },
    priority: 0,
    ...fields,
  }) as unknown as TaskView;

test('a task’s report names its priority when not 0 and its deadline when it has one', () => {
  assert.equal(
    plainText(taskLines(task({}))),
    'tsk_1 image.generate completed  cost 0.01 USD',
    'the defaults add no line',
  );
  assert.match(plainText(taskLines(task({ priority: 5 }))), /\n {2}priority 5$/);
  assert.match(
    plainText(taskLines(task({ priority: -3, deadlineAt: '2026-11-22T09:50:00.000Z' }))),
    /\n {2}priority -3 {2}deadline 2026-11-22T09:50:00\.000Z$/,
  );
  assert.match(
    plainText(taskLines(task({ deadlineAt: '2026-11-22T09:50:00.000Z' }))),
    /\n {2}deadline 2026-11-22T09:50:00\.000Z$/,
  );
});

test('an expired task reads as such: its deadline, then the TASK_EXPIRED error and what it means', () => {
  const expired = task({
    status: 'failed',
    cost: '0',
    result: null,
    deadlineAt: '2026-11-22T09:50:00.000Z',
    errors: [
      {
        code: 'TASK_EXPIRED',
        message: 'the task’s deadline (Cancel-After) passed before any item finished; nothing was charged',
      },
    ],
  });
  assert.equal(
    plainText(taskLines(expired)),
    [
      'tsk_1 image.generate failed  cost 0 USD',
      '  deadline 2026-11-22T09:50:00.000Z',
      '  ✗ TASK_EXPIRED: the task’s deadline (Cancel-After) passed before any item finished; nothing was charged',
    ].join('\n'),
  );
});
