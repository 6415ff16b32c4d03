import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventBus } from '../../../src/services/event-bus.js';
import type { TaskRecord } from '../../../src/store/records.js';

const task = { id: 'tsk_1', type: 'image.alt', status: 'completed' } as TaskRecord;

test('every listener hears an event, in order, even when one throws or rejects; failures are reported', async () => {
  const reported: string[] = [];
  const bus = new EventBus((name, err) => reported.push(`${name}: ${(err as Error).message}`));
  const heard: string[] = [];
  bus.on('task:settled', () => heard.push('first'));
  bus.on('task:settled', () => {
    throw new Error('thrown');
  });
  bus.on('task:settled', async () => {
    throw new Error('rejected');
  });
  bus.on('task:settled', ({ task }) => heard.push(`last ${task.id}`));
  bus.emit('task:settled', { kind: 'task.image.alt.completed', task });
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(heard, ['first', 'last tsk_1']);
  assert.deepEqual(reported, ['task:settled: thrown', 'task:settled: rejected']);
});

test('an unsubscribed listener hears nothing more; other events do not reach it', () => {
  const bus = new EventBus();
  let settled = 0;
  let due = 0;
  const off = bus.on('task:settled', () => settled++);
  bus.on('delivery:due', () => due++);
  bus.emit('task:settled', { kind: 'task.image.alt.completed', task });
  off();
  bus.emit('task:settled', { kind: 'task.image.alt.completed', task });
  bus.emit('delivery:due', {});
  assert.deepEqual([settled, due], [1, 1]);
});
