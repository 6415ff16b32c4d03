import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TaskView } from '../../../src/client/http-client.js';
import { plainText, taskLines } from '../../../src/tui/task-lines.js';

const task = (request: Record<string, unknown>) =>
  ({
    id: 'tsk_1',
    type: 'image.generate',
    status: 'completed',
    cost: '0.01',
    result: { model: 'm', images: [] },
    priority: 0,
    request,
  }) as unknown as TaskView;

test('a task’s report names the model parameters its request set, as NAME=VALUE; none set adds no line', () => {
  assert.equal(
    plainText(taskLines(task({ prompt: 'a fox', parameters: { steps: 30, sampler: 'dpmpp_2m', hires: false } }))).split(
      '\n',
    )[1],
    '  parameters steps=30  sampler=dpmpp_2m  hires=false',
  );
  assert.equal(plainText(taskLines(task({ prompt: 'a fox' }))), 'tsk_1 image.generate completed  cost 0.01 USD');
  assert.equal(
    plainText(taskLines(task({ prompt: 'a fox', parameters: {} }))),
    'tsk_1 image.generate completed  cost 0.01 USD',
  );
});
