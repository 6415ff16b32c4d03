import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../../../src/config/load.js';
import { createConfigSource } from '../../../../src/config/source.js';
import { storageFull } from '../../../../src/domain/storage-full.js';
import { Lanes } from '../../../../src/engine/runner/lanes.js';
import { createTaskRunner } from '../../../../src/engine/runner/task-runner.js';
import type { ItemRecord, TaskRecord } from '../../../../src/store/records.js';
import { eventually } from '../../../helpers/harness.js';

/** A one-item task over a fake progress whose writes a full disk refuses `refusals` times (the runner sees 507s). */
function setup(t: { after(fn: () => unknown): void }, refuse: { work?: number; record?: number; settle?: number }) {
  const at = new Date().toISOString();
  let task: TaskRecord = {
    id: 'tsk_1',
    type: 'fake',
    status: 'pending',
    accountId: 'acc_1',
    apiKeyId: null,
    request: {},
    items: [{ status: 'pending' }],
    estimate: 0,
    cost: 0,
    result: null,
    createdAt: at,
    updatedAt: at,
  };
  const counts = { runs: 0 };
  const settleIfDone = async () => {
    if (task.status !== 'pending' || task.items.some((item) => item.status === 'pending')) return undefined;
    if ((refuse.settle ?? 0) > 0) {
      refuse.settle! -= 1;
      throw storageFull();
    }
    task = { ...task, status: 'completed' };
    return task;
  };
  const progress = {
    definition: () => ({
      lane: () => 'fake',
      maxAttempts: 3,
      itemCost: () => 0,
      async runItem() {
        counts.runs += 1;
        if ((refuse.work ?? 0) > 0) {
          refuse.work! -= 1;
          throw storageFull();
        }
        return { done: true };
      },
    }),
    getTask: async () => task,
    async finishItem(_id: string, index: number, item: ItemRecord) {
      if (task.items[index].status !== 'pending') return;
      if ((refuse.record ?? 0) > 0) {
        refuse.record! -= 1;
        throw storageFull();
      }
      task = { ...task, items: [item] };
      await settleIfDone();
    },
    settleIfDone,
    fail: async () => undefined,
    savePrepared: async () => undefined,
  };
  const config = createConfigSource(loadConfig({ env: {}, overrides: { work: { retryBaseMs: 1 } } }));
  const lanes = new Lanes(config);
  const logs: string[] = [];
  const runner = createTaskRunner({ settlement: progress as never, lanes, config, log: (m) => logs.push(m) });
  t.after(() => runner.close(0));
  return { runner, task: () => task, counts, logs, start: () => runner.enqueue(task) };
}

test('work refused for lack of space is run again once writes are taken, never failed with a code of its own', async (t) => {
  const s = setup(t, { work: 2 });
  s.start();
  await eventually(() => s.task().status === 'completed');
  assert.equal(s.task().items[0].status, 'success');
  assert.equal(s.counts.runs, 3);
  assert.equal(s.logs.filter((m) => /kept pending, storage full/.test(m)).length, 1, 'one line per wait, not per try');
});

test('an outcome whose record is refused is recorded later without doing the work again', async (t) => {
  const s = setup(t, { record: 2 });
  s.start();
  await eventually(() => s.task().status === 'completed');
  assert.equal(s.counts.runs, 1);
});

test('an item recorded whose settlement is refused is settled when tried again, not left pending', async (t) => {
  const s = setup(t, { settle: 1 });
  s.start();
  await eventually(() => s.task().status === 'completed');
  assert.equal(s.counts.runs, 1);
});
