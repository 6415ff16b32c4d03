import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../../../src/config/load.js';
import { createConfigSource } from '../../../../src/config/source.js';
import { ProviderError } from '../../../../src/domain/task-status.js';
import { Lanes } from '../../../../src/engine/runner/lanes.js';
import { createTaskRunner } from '../../../../src/engine/runner/task-runner.js';
import type { ItemContext } from '../../../../src/engine/task-registry.js';
import { EventBus, type ItemFractions } from '../../../../src/services/event-bus.js';
import type { ItemRecord, TaskRecord } from '../../../../src/store/records.js';
import { eventually } from '../../../helpers/harness.js';

/** An item the test drives: its context (to report progress), and how to end it. */
interface Running {
  ctx: ItemContext<unknown>;
  succeed(): void;
  fail(error: Error): void;
}

/**
 * A runner over a fake progress, with one lane ("fake", `concurrency` wide) whose items run
 * until the test ends them; its `task:progress` events are recorded. A task settles (and
 * `task:settled` is emitted) once its items are all recorded.
 */
function setup(
  t: { after(fn: () => unknown): void },
  options: { concurrency?: number; progressIntervalMs?: number; maxAttempts?: number } = {},
) {
  const at = new Date().toISOString();
  const tasks = new Map<string, TaskRecord>();
  const events = new EventBus();
  const sent: { taskId: string; fractions: ItemFractions }[] = [];
  events.on('task:progress', (event) => void sent.push(event));
  const running = new Map<string, Running>();
  const started: string[] = [];
  const make = (id: string, items = 1): TaskRecord => {
    const record: TaskRecord = {
      id,
      type: 'fake',
      status: 'pending',
      accountId: 'acc_1',
      apiKeyId: null,
      request: {},
      items: Array.from({ length: items }, (): ItemRecord => ({ status: 'pending' })),
      estimate: 0,
      cost: 0,
      result: null,
      createdAt: at,
      updatedAt: at,
    };
    tasks.set(id, record);
    return record;
  };
  const progress = {
    definition: () => ({
      lane: () => 'fake',
      maxAttempts: options.maxAttempts ?? 1,
      itemCost: () => 0,
      runItem: (ctx: ItemContext<unknown>) =>
        new Promise((resolve, reject) => {
          const key = `${ctx.task.id}:${ctx.index}`;
          started.push(`${key}:${ctx.attempt}`);
          running.set(key, { ctx, succeed: () => resolve({ done: true }), fail: reject });
          ctx.signal.addEventListener(
            'abort',
            () => reject(new ProviderError('TIMEOUT', 'stopped', { retryable: false })),
            { once: true },
          );
        }),
    }),
    getTask: async (id: string) => tasks.get(id),
    async finishItem(id: string, index: number, item: ItemRecord) {
      const task = tasks.get(id)!;
      const items = task.items.map((old, i) => (i === index ? item : old));
      const done = items.every((i) => i.status !== 'pending');
      const next: TaskRecord = { ...task, items, status: done ? 'completed' : 'pending' };
      tasks.set(id, next);
      if (done) events.emit('task:settled', { kind: 'task.fake.completed', task: next });
    },
    settleIfDone: async () => undefined,
    fail: async () => undefined,
  };
  const config = createConfigSource(
    loadConfig({ env: {}, overrides: { work: { lanes: { fake: options.concurrency ?? 1 }, retryBaseMs: 1 } } }),
  );
  const lanes = new Lanes(config);
  const runner = createTaskRunner({
    settlement: progress as never,
    lanes,
    config,
    log: () => undefined,
    events,
    progressIntervalMs: options.progressIntervalMs ?? 0,
  });
  t.after(() => runner.close(0));
  /** The item `taskId:index` once it runs. */
  const item = async (key: string): Promise<Running> => {
    await eventually(() => running.has(key));
    return running.get(key)!;
  };
  return { runner, lanes, events, sent, make, item, running, started, task: (id: string) => tasks.get(id)! };
}

test('an item reports its fraction: clamped to 0..1, never back within an attempt, and announced as task:progress', async (t) => {
  const s = setup(t, { concurrency: 2 });
  const done = s.runner.run(s.make('tsk_a', 2));
  const first = await s.item('tsk_a:0');
  const second = await s.item('tsk_a:1');
  assert.deepEqual(s.runner.progressOf('tsk_a')?.fractions, {}, 'nothing reported yet: no fraction');

  first.ctx.reportProgress!(0.25);
  second.ctx.reportProgress!(1.7);
  first.ctx.reportProgress!(0.1);
  first.ctx.reportProgress!(Number.NaN);
  assert.deepEqual(s.runner.progressOf('tsk_a')?.fractions, { 0: 0.25, 1: 1 });
  assert.deepEqual(
    s.sent.map((e) => e.fractions),
    [{ 0: 0.25 }, { 0: 0.25, 1: 1 }],
    'a change is an event; a report going back, or not a number, is none',
  );
  assert.ok(s.sent.every((e) => e.taskId === 'tsk_a'));

  second.succeed();
  await eventually(() => s.task('tsk_a').items[1].status === 'success');
  assert.deepEqual(s.runner.progressOf('tsk_a')?.fractions, { 0: 0.25 }, 'an item that ended has no fraction');
  first.succeed();
  await done;
});

test('a retry starts its fraction again from 0, and a report from the earlier attempt is not taken', async (t) => {
  const s = setup(t, { maxAttempts: 3 });
  const done = s.runner.run(s.make('tsk_r'));
  const attempt1 = await s.item('tsk_r:0');
  attempt1.ctx.reportProgress!(0.6);
  assert.deepEqual(s.runner.progressOf('tsk_r')?.fractions, { 0: 0.6 });
  s.running.delete('tsk_r:0');
  attempt1.fail(new ProviderError('PROVIDER_ERROR', 'flaky'));
  const attempt2 = await s.item('tsk_r:0');
  assert.equal(attempt2.ctx.attempt, 2);
  assert.deepEqual(s.runner.progressOf('tsk_r')?.fractions, { 0: 0 }, 'reset on the retry');
  assert.deepEqual(s.sent.at(-1), { taskId: 'tsk_r', fractions: { 0: 0 } }, 'and announced');

  attempt1.ctx.reportProgress!(0.9);
  assert.deepEqual(s.runner.progressOf('tsk_r')?.fractions, { 0: 0 }, 'the first attempt is over: its report is stale');
  attempt2.ctx.reportProgress!(0.3);
  assert.deepEqual(s.runner.progressOf('tsk_r')?.fractions, { 0: 0.3 });
  attempt2.succeed();
  await done;
  assert.equal(s.task('tsk_r').items[0].status, 'success');
});

test('at settlement the progress is gone: nothing held, and a late report is not announced', async (t) => {
  const s = setup(t, { concurrency: 2 });
  const done = s.runner.run(s.make('tsk_s', 2));
  const first = await s.item('tsk_s:0');
  const second = await s.item('tsk_s:1');
  second.ctx.reportProgress!(0.5);
  first.succeed();
  await eventually(() => s.task('tsk_s').items[0].status === 'success');
  // Settled from outside while item 1 still runs (a cancel): the runner aborts it and forgets the task's progress.
  s.events.emit('task:settled', { kind: 'task.fake.failed', task: { ...s.task('tsk_s'), status: 'failed' } });
  assert.equal(s.runner.progressOf('tsk_s'), undefined);
  const before = s.sent.length;
  second.ctx.reportProgress!(0.75);
  assert.equal(s.sent.length, before, 'nothing announced after the settlement');
  await done;
  assert.equal(s.runner.progressOf('tsk_s'), undefined);
});

test('the last value is delivered: reports within the interval are folded into one more event, read when it goes out', async (t) => {
  const s = setup(t, { progressIntervalMs: 30 });
  const done = s.runner.run(s.make('tsk_t'));
  const item = await s.item('tsk_t:0');
  for (const fraction of [0.1, 0.2, 0.3, 0.4]) item.ctx.reportProgress!(fraction);
  assert.deepEqual(
    s.sent.map((e) => e.fractions),
    [{ 0: 0.1 }],
    'the first at once, the others held',
  );
  await eventually(() => s.sent.length === 2);
  assert.deepEqual(s.sent[1].fractions, { 0: 0.4 }, 'then the latest');
  item.succeed();
  await done;
  assert.equal(s.sent.length, 2);
});

test("queue position: items ahead in the lane's order while none of its items has started, exact behind a busy lane; estimates once the lane has an item time", async (t) => {
  const s = setup(t);
  const runs = [
    s.runner.run(s.make('tsk_1')),
    s.runner.run(s.make('tsk_2', 2)),
    s.runner.run(s.make('tsk_3')),
    s.runner.run(s.make('tsk_4')),
  ];
  const first = await s.item('tsk_1:0');
  const position = (id: string) => s.runner.progressOf(id)?.queuePosition;
  assert.deepEqual(
    ['tsk_1', 'tsk_2', 'tsk_3', 'tsk_4'].map(position),
    [undefined, 0, 2, 3],
    'the running task has none; each queued one counts the items ahead of it (tsk_2 has two)',
  );
  assert.equal(s.runner.progressOf('tsk_3')?.startInMs, undefined, 'no item of the lane has finished: no estimate');
  assert.equal(s.runner.progressOf('tsk_3')?.finishInMs, undefined);

  first.succeed();
  const second = await s.item('tsk_2:0');
  assert.deepEqual(
    ['tsk_2', 'tsk_3', 'tsk_4'].map(position),
    [undefined, 1, 2],
    'a task whose first item started has no position, and its second item is still ahead of the others',
  );
  const estimates = (id: string) => s.runner.progressOf(id)!;
  assert.ok(estimates('tsk_3').startInMs! >= 0, 'an estimate once an item of the lane has finished');
  assert.ok(estimates('tsk_4').startInMs! >= estimates('tsk_3').startInMs!, 'a task further back starts later');
  assert.ok(estimates('tsk_4').finishInMs! >= estimates('tsk_4').startInMs!);
  assert.equal(estimates('tsk_2').startInMs, undefined, 'started: only its finish is estimated');
  assert.ok(estimates('tsk_2').finishInMs! >= 0);

  second.succeed();
  (await s.item('tsk_2:1')).succeed();
  await s.item('tsk_3:0');
  assert.deepEqual(['tsk_3', 'tsk_4'].map(position), [undefined, 0]);
  (await s.item('tsk_3:0')).succeed();
  (await s.item('tsk_4:0')).succeed();
  await Promise.all(runs);
  assert.equal(s.runner.progressOf('tsk_4'), undefined, 'a task run to its end is no longer held');
});

test('with a thousand tasks queued the position of the last is exact, asked in O(log n)', async (t) => {
  const s = setup(t, { concurrency: 4 });
  const queued = 1000;
  for (let n = 0; n < queued; n++) void s.runner.run(s.make(`tsk_${n}`));
  await eventually(() => s.running.size === 4);
  assert.equal(s.runner.progressOf(`tsk_${queued - 1}`)?.queuePosition, queued - 4 - 1);
  assert.equal(s.runner.progressOf('tsk_4')?.queuePosition, 0);
  s.running.get('tsk_0:0')!.succeed();
  await eventually(() => s.running.has('tsk_4:0'));
  assert.equal(s.runner.progressOf(`tsk_${queued - 1}`)?.queuePosition, queued - 5 - 1);
});
