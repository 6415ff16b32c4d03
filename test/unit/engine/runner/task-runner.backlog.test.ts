import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../../../src/config/load.js';
import { createConfigSource } from '../../../../src/config/source.js';
import { Lanes } from '../../../../src/engine/runner/lanes.js';
import { createTaskRunner } from '../../../../src/engine/runner/task-runner.js';
import type { TaskRecord } from '../../../../src/store/records.js';

const QUEUED = 10_000;
const CONCURRENCY = 4;

/** A runner whose one lane runs CONCURRENCY items that never finish on their own (they end when aborted). */
function pausedRunner() {
  const at = new Date().toISOString();
  const tasks = new Map<string, TaskRecord>();
  const task = (n: number): TaskRecord => {
    const record: TaskRecord = {
      id: `tsk_${n}`,
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
    tasks.set(record.id, record);
    return record;
  };
  let started = 0;
  const progress = {
    definition: () => ({
      lane: () => 'fake',
      maxAttempts: 1,
      itemCost: () => 0,
      runItem: ({ signal }: { signal: AbortSignal }) =>
        new Promise((_resolve, reject) => {
          started += 1;
          signal.addEventListener('abort', () => reject(new Error('stopped')), { once: true });
        }),
    }),
    getTask: async (id: string) => tasks.get(id),
    finishItem: async () => undefined,
    settleIfDone: async () => undefined,
    fail: async () => undefined,
  };
  const config = createConfigSource(loadConfig({ env: {}, overrides: { work: { lanes: { fake: CONCURRENCY } } } }));
  const runner = createTaskRunner({
    settlement: progress as never,
    lanes: new Lanes(config),
    config,
    log: () => undefined,
  });
  return { runner, task, started: () => started };
}

/** Counts EventTarget.addEventListener calls while `fn` runs (an AbortSignal is an EventTarget). */
async function countListenersAdded(fn: () => Promise<void>): Promise<number> {
  const original = EventTarget.prototype.addEventListener;
  let added = 0;
  EventTarget.prototype.addEventListener = function (
    this: EventTarget,
    ...args: Parameters<EventTarget['addEventListener']>
  ) {
    added += 1;
    return original.apply(this, args);
  };
  try {
    await fn();
  } finally {
    EventTarget.prototype.addEventListener = original;
  }
  return added;
}

test(`${QUEUED.toLocaleString('en-US')} tasks queued behind a busy lane add nothing per task to a shared listener list, and all are let go when the runner stops`, async () => {
  const { runner, task, started } = pausedRunner();
  const runs: Promise<void>[] = [];
  const added = await countListenersAdded(async () => {
    for (let n = 0; n < QUEUED; n++) runs.push(runner.run(task(n)));
    // Let the lane start what it can: its running items each hang one listener on their own signal.
    while (started() < CONCURRENCY) await new Promise((resolve) => setImmediate(resolve));
  });
  assert.ok(
    added <= 4 * CONCURRENCY,
    `listeners added: ${added} for ${QUEUED} queued tasks (a few per running item, none per queued task)`,
  );
  await runner.close(0);
  // Every task's wait ends at stop, queued or running: the claimer gives their leases back.
  const outcome = await Promise.race([
    Promise.all(runs).then(() => 'all let go'),
    new Promise((resolve) => setTimeout(resolve, 5000, 'still waiting')),
  ]);
  assert.equal(outcome, 'all let go');
});
